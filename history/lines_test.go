package history

import (
	"strings"
	"testing"
)

// Every reader records the line each op starts on, so an input error at an
// op can name its line.
func TestLinesOfOps(t *testing.T) {
	cases := []struct {
		name   string
		format Format
		text   string
		want   []int
	}{
		{"edn maps", EDN, "; header\n{:process 0 :type :invoke :f :read :value nil}\n\n{:process 0 :type :ok :f :read :value 1}\n", []int{2, 4}},
		{"edn vector", EDN, "[{:process 0 :type :invoke :f :read :value nil}\n {:process 0\n  :type :ok :f :read :value 1} {:process 1 :type :invoke :f :read :value nil}]\n", []int{1, 2, 3}},
		{"jsonl", JSONL, `{"process":0,"type":"invoke","f":"read","value":null}` + "\n\n" + `{"process":0,"type":"ok","f":"read","value":1}` + "\n", []int{1, 3}},
		{"jepsen log", JepsenLog, "INFO  jepsen.util - 0\t:invoke\t:read\tnil\nnoise\nINFO  jepsen.util - 0\t:ok\t:read\t1\n", []int{1, 3}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, err := Read(strings.NewReader(c.text), "h", c.format)
			if err != nil {
				t.Fatal(err)
			}
			if len(f.Lines) != len(c.want) {
				t.Fatalf("lines %v, want %v", f.Lines, c.want)
			}
			for i, w := range c.want {
				if got := f.LineOf(f.Ops[i].Index); got != w {
					t.Errorf("op %d: line %d, want %d", i, got, w)
				}
			}
			if f.LineOf(99) != 0 {
				t.Errorf("LineOf of a missing op is not 0")
			}
		})
	}
}
