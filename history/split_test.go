package history

import (
	"fmt"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
)

// TestSplitRead reads EDN inputs in two halves at once and from start to
// end, and wants the same ops, lines and errors, including where the guess
// that the middle line starts an op is wrong.
func TestSplitRead(t *testing.T) {
	op := func(i int) string {
		return fmt.Sprintf("{:index %d, :time %d, :type :invoke, :process %d, :f :txn, :value [[:append %d %d] [:r %d nil]]}", i, i, i%5, 300+i%7, i, 300+i%7)
	}
	lines := func(n int, edit func(i int, s string) string) string {
		var b strings.Builder
		for i := range n {
			b.WriteString(edit(i, op(i)))
			b.WriteByte('\n')
		}
		return b.String()
	}
	same := func(_ int, s string) string { return s }
	tests := []struct {
		name     string
		data     string
		tailRead bool // the tail is read whole and used
	}{
		{"one map per line", lines(200, same), true},
		{"comments and blank lines", lines(200, func(i int, s string) string { return "; op\n\n" + s + " ; end" }), true},
		{"tagged records", lines(200, func(i int, s string) string { return "#jepsen.history.Op" + s }), true},
		{"one big vector", "[" + lines(200, same) + "]", false},
		{"a string spanning the middle", lines(100, same) + `{:type :info, :process 1, :f :log, :value "` + strings.ReplaceAll(lines(100, same), `"`, `\"`) + "\"}\n" + lines(100, same), false},
		{"no index in the tail", lines(200, func(i int, s string) string {
			if i == 150 {
				return strings.Replace(s, fmt.Sprintf(":index %d, ", i), "", 1)
			}
			return s
		}), false},
		{"an error in the tail", lines(200, func(i int, s string) string {
			if i == 180 {
				return strings.Replace(s, ":process", ":process :process", 1)
			}
			return s
		}), false},
		{"an error in the head", lines(200, func(i int, s string) string {
			if i == 20 {
				return s[:len(s)-1]
			}
			return s
		}), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := []byte(tt.data)
			restore := SetSplitMin(0)
			split := splitPoint(data)
			ops, lines, err := readEDN(data)
			restore()
			if split == 0 {
				t.Fatal("no split point in the middle of the input")
			}
			var stop atomic.Bool
			tail := readTail(data, split, nil, nil, &stop)
			if tt.tailRead && !tail.ok {
				t.Error("the tail was not read whole")
			}
			defer SetSplitMin(1 << 62)()
			wantOps, wantLines, wantErr := readEDN(data)
			if fmt.Sprint(err) != fmt.Sprint(wantErr) {
				t.Fatalf("error %v, want %v", err, wantErr)
			}
			if !reflect.DeepEqual(ops, wantOps) || !reflect.DeepEqual(lines, wantLines) {
				t.Fatalf("read in two halves: %d ops, lines %v..., want %d ops, lines %v...", len(ops), lines[:min(5, len(lines))], len(wantOps), wantLines[:min(5, len(wantLines))])
			}
		})
	}
}

// TestJoinOps covers both ways of joining the halves: in place, when the
// head still sits at the start of the shared array, and by copying, when it
// outgrew its part.
func TestJoinOps(t *testing.T) {
	all := make([]int, 0, 10)
	head := append(all[:0:4], 1, 2)
	tail := append(all[4:4], 3, 4, 5)
	got := joinOps(all, head, tail)
	if !reflect.DeepEqual(got, []int{1, 2, 3, 4, 5}) || &got[0] != &all[:1][0] {
		t.Errorf("in place: got %v", got)
	}
	if rest := all[5:10]; !reflect.DeepEqual(rest, make([]int, 5)) {
		t.Errorf("the tail's old place holds %v, want zeros", rest)
	}
	all = make([]int, 0, 4)
	head = append(all[:0:4], 1, 2, 3, 4) // one op per line: the tail is empty
	if got := joinOps(all, head, all[4:4]); !reflect.DeepEqual(got, []int{1, 2, 3, 4}) {
		t.Errorf("empty tail: got %v", got)
	}
	all = make([]int, 0, 10)
	head = append(all[:0:2], 1, 2, 3) // outgrew its part: moved elsewhere
	tail = append(all[2:2], 4)
	if got := joinOps(all, head, tail); !reflect.DeepEqual(got, []int{1, 2, 3, 4}) {
		t.Errorf("copied: got %v", got)
	}
}
