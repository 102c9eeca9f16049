package history

import (
	"reflect"
	"strings"
	"testing"
)

// opsOf builds a history from "process:type" specs; process "n" is the
// nemesis, "-" no process (Jepsen's nil).
func opsOf(specs ...string) []Op {
	ops := make([]Op, len(specs))
	for i, s := range specs {
		p, typ, _ := strings.Cut(s, ":")
		process := NemesisProcess
		switch p {
		case "n":
		case "-":
			process = NoProcess
		default:
			process = int(p[0] - '0')
		}
		ops[i] = Op{Index: int64(i), Process: process, Type: Type(typ)}
	}
	return ops
}

func TestPair(t *testing.T) {
	tests := []struct {
		name    string
		ops     []Op
		want    []OpPair
		wantErr string
	}{
		{"empty", nil, []OpPair{}, ""},
		{"one pair", opsOf("1:invoke", "1:ok"), []OpPair{{0, 1}}, ""},
		{"interleaved", opsOf("1:invoke", "2:invoke", "2:fail", "1:info"), []OpPair{{0, 3}, {1, 2}}, ""},
		{"never completed", opsOf("1:invoke", "2:invoke", "2:ok"), []OpPair{{0, -1}, {1, 2}}, ""},
		{"process invokes again after completing", opsOf("1:invoke", "1:info", "1:invoke", "1:ok"), []OpPair{{0, 1}, {2, 3}}, ""},
		{"nemesis invoke and ok", opsOf("n:invoke", "1:invoke", "n:ok", "1:ok"), []OpPair{{0, 2}, {1, 3}}, ""},
		{"Jepsen nemesis info pairs", opsOf("n:info", "1:invoke", "n:info", "n:info", "1:ok"), []OpPair{{0, 2}, {1, 4}, {3, -1}}, ""},
		{"completion without invocation", opsOf("1:ok"), nil, "op 0: ok of process 1 has no open invocation"},
		{"client info without invocation", opsOf("1:invoke", "1:ok", "1:info"), nil, "op 2: info of process 1 has no open invocation"},
		{"second invocation", opsOf("1:invoke", "2:invoke", "1:invoke"), nil, "op 2: process 1 invokes while op 0 is still open"},
		{"nemesis second invocation", opsOf("n:invoke", "n:invoke"), nil, "op 1: process nemesis invokes while op 0 is still open"},
		{"ops without a process pair among themselves", opsOf("-:invoke", "1:invoke", "-:ok", "-:invoke", "1:ok", "-:fail"), []OpPair{{0, 2}, {1, 4}, {3, 5}}, ""},
		{"no process invokes again", opsOf("-:invoke", "-:invoke"), nil, "op 1: process nil invokes while op 0 is still open"},
		{"unknown type", opsOf("1:invoke", "1:done"), nil, `op 1 has type "done"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Pair(tt.ops)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

// TestPairNamesOpIndex: errors name the op's Index, not its position, so they
// match what the file shows.
func TestPairNamesOpIndex(t *testing.T) {
	ops := opsOf("1:invoke", "1:ok", "1:ok")
	for i := range ops {
		ops[i].Index = int64(100 + i)
	}
	if _, err := Pair(ops); err == nil || !strings.HasPrefix(err.Error(), "op 102: ") {
		t.Errorf("error = %v, want it to name op 102", err)
	}
}

// BenchmarkPair pairs a 100,000-op history of 10 interleaved processes.
func BenchmarkPair(b *testing.B) {
	ops := make([]Op, 100000)
	for i := range ops {
		// Each process invokes, then completes ten ops later.
		ops[i] = Op{Index: int64(i), Process: i % 10, Type: Invoke}
		if i/10%2 == 1 {
			ops[i].Type = OK
		}
	}
	if _, err := Pair(ops); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		Pair(ops)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(ops)), "ns/histop")
}

func TestPairCompletions(t *testing.T) {
	tests := []struct {
		name string
		ops  []Op
		want []OpPair // nil: not a completion-only history
	}{
		{"empty", nil, []OpPair{}},
		{"completions alone", opsOf("0:ok", "1:info", "-:fail", "0:ok"), []OpPair{{0, 0}, {1, 1}, {2, 2}, {3, 3}}},
		{"nemesis left out", opsOf("n:info", "0:ok", "n:info"), []OpPair{{1, 1}}},
		{"an invocation", opsOf("0:ok", "1:invoke", "1:ok"), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := PairCompletions(tt.ops)
			if ok != (tt.want != nil) || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %v, %v; want %v", got, ok, tt.want)
			}
		})
	}
}
