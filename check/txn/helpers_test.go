package txn

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/faultline/faultline/history"
)

// txns builds a history from lines "TYPE PROCESS VALUE", VALUE being EDN:
//
//	ok 0 [[:append :x 1] [:r :y [1]]]
//
// A line of type ok, fail or info for a process with no open invocation is a
// whole transaction: its invocation (reads nil) immediately followed by its
// completion. "invoke P VALUE" opens an invocation on its own (reads in VALUE
// should be nil); the next ok/fail/info line of that process completes it. An
// invocation left open never completes. Indices are positions.
func txns(t testing.TB, lines ...string) []history.Op {
	t.Helper()
	var ops []history.Op
	open := map[int]bool{}
	for _, line := range lines {
		parts := strings.SplitN(strings.TrimSpace(line), " ", 3)
		if len(parts) != 3 {
			t.Fatalf("bad test line %q", line)
		}
		p, err := strconv.Atoi(parts[1])
		if err != nil {
			t.Fatalf("bad process in %q", line)
		}
		op := ednOp(t, parts[0], p, parts[2])
		if parts[0] != "invoke" && !open[p] {
			inv := op
			inv.Type = history.Invoke
			inv.Value = invokeValue(op.Value)
			ops = append(ops, inv)
		}
		open[p] = parts[0] == "invoke"
		ops = append(ops, op)
	}
	for i := range ops {
		ops[i].Index, ops[i].Time = int64(i), int64(i)
	}
	return ops
}

// ednOp reads one op with the given type, process and EDN value through the
// history package's EDN reader, as the CLI would.
func ednOp(t testing.TB, typ string, p int, value string) history.Op {
	t.Helper()
	src := "{:process " + strconv.Itoa(p) + ", :type :" + typ + ", :f :txn, :value " + value + "}"
	f, err := history.Read(strings.NewReader(src), t.Name(), history.EDN)
	if err != nil || len(f.Ops) != 1 {
		t.Fatalf("test op %s: %v", src, err)
	}
	return f.Ops[0]
}

// invokeValue is a completed txn value with every read's result removed.
func invokeValue(v any) any {
	mops, ok := v.([]any)
	if !ok {
		return v
	}
	out := make([]any, len(mops))
	for i, m := range mops {
		mm, ok := m.([]any)
		if ok && len(mm) == 3 && (mm[0] == history.Keyword("r") || mm[0] == "r") {
			mm = []any{mm[0], mm[1], nil}
		}
		out[i] = mm
	}
	return out
}

// check runs Check and fails the test on error.
func check(t testing.TB, ops []history.Op, o Options) *Result {
	t.Helper()
	r, err := Check(context.Background(), ops, o)
	if err != nil {
		t.Fatalf("Check: %v", err)
	}
	return r
}

// la returns list-append options for the models.
func la(models ...string) Options { return Options{Workload: ListAppend, ConsistencyModels: models} }

// rr returns rw-register options for the models.
func rr(models ...string) Options { return Options{Workload: RWRegister, ConsistencyModels: models} }

// has reports whether r found anomaly type typ (forbidden or not).
func has(r *Result, typ string) bool { return r.Counts[typ] > 0 }

// types returns every anomaly type r found, sorted.
func types(r *Result) []string {
	var out []string
	for typ := range r.Counts {
		out = append(out, typ)
	}
	slices.Sort(out)
	return out
}

// withInit returns o with the initial state init given.
func withInit(o Options, init any) Options {
	o.Init, o.HasInit = init, true
	return o
}
