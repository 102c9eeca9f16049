package txn

import (
	"slices"
	"strings"
	"testing"

	"github.com/faultline/faultline/history"
)

// read parses an EDN history as `faultline check` reads one.
func read(t *testing.T, src string) []history.Op {
	t.Helper()
	f, err := history.Read(strings.NewReader(src), t.Name(), history.EDN)
	if err != nil {
		t.Fatal(err)
	}
	return f.Ops
}

// TestCompletionsOnly checks histories given as Elle's tests give them:
// completions alone, often with no :process (list_append_test.clj
// graph-test). Elle knows no start of such a transaction, so there is no
// real-time order, while process order (by completion) and the
// dependencies stand.
func TestCompletionsOnly(t *testing.T) {
	cases := []struct {
		name  string
		o     Options
		src   string
		valid string
		types []string
		note  bool // the note that real time adds nothing
	}{
		{"G2: anti-dependency cycle (graph-test)", la("serializable"),
			"{:type :ok, :value [[:r :x nil] [:append :y 1]]}\n{:type :ok, :value [[:r :y nil] [:append :x 1]]}\n{:type :ok, :value [[:r :x [1]] [:r :y [1]]]}",
			Invalid, []string{"G2-item"}, false},
		{"info reads (graph-test)", la("serializable"),
			"{:type :info, :value [[:append :x 2] [:r :y nil]]}\n{:type :ok, :value [[:append :x 1] [:append :y 1]]}\n{:type :ok, :value [[:r :x [1 2]] [:r :y [1]]]}",
			Valid, nil, false},
		{"G1c on two processes", la("read-committed"),
			"{:process 0, :type :ok, :value [[:append :x 1] [:r :y [1]]]}\n{:process 1, :type :ok, :value [[:append :x 2] [:append :y 1]]}\n{:process 2, :type :ok, :value [[:r :x [1 2]]]}",
			Invalid, []string{"G1c"}, false},
		// Invoked one after the other this would be G-single-realtime;
		// alone, the read of nil may have begun first.
		{"no real-time order", la("strict-serializable"),
			"{:process 0, :type :ok, :value [[:append :x 1]]}\n{:process 1, :type :ok, :value [[:r :x nil]]}",
			Valid, nil, true},
		// On one process, completion order is process order, as Elle's
		// process graph has it.
		{"process order stands", la("strong-session-serializable"),
			"{:process 0, :type :ok, :value [[:append :x 1]]}\n{:process 0, :type :ok, :value [[:r :x nil]]}",
			Invalid, []string{"G-single-item-process"}, false},
		{"rw-register, linearizable keys without real time", Options{Workload: RWRegister, ConsistencyModels: []string{"serializable"}, LinearizableKeys: true},
			"{:type :ok, :value [[:w :x 1]]}\n{:type :ok, :value [[:w :x 2]]}\n{:type :ok, :value [[:r :x 1]]}",
			Valid, nil, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := check(t, read(t, tc.src), tc.o)
			if r.Valid != tc.valid || !slices.Equal(r.AnomalyTypes, tc.types) {
				t.Fatalf("got %s %v, want %s %v\n%s", r.Valid, r.AnomalyTypes, tc.valid, tc.types, r.Explanation)
			}
			note := slices.ContainsFunc(r.Incomplete, func(s string) bool { return strings.Contains(s, "completions alone") })
			if note != tc.note {
				t.Errorf("note of completions alone: %v, want %v (%q)", note, tc.note, r.Incomplete)
			}
		})
	}
}
