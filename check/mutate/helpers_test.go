package mutate

import (
	"context"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/faultline/faultline/check"
	"github.com/faultline/faultline/history"
)

// edn reads EDN op maps, one per line, through the reader the CLI uses, and
// numbers the ops by position (Index and Time).
func edn(t testing.TB, lines ...string) []history.Op {
	t.Helper()
	f, err := history.Read(strings.NewReader(strings.Join(lines, "\n")), t.Name(), history.EDN)
	if err != nil {
		t.Fatalf("test history: %v", err)
	}
	if len(f.Ops) != len(lines) {
		t.Fatalf("test history: read %d ops from %d lines", len(f.Ops), len(lines))
	}
	for i := range f.Ops {
		f.Ops[i].Index, f.Ops[i].Time = int64(i), int64(i)*10
	}
	return f.Ops
}

// op is one EDN op line: process, type, function and value.
func op(p int, typ, f, value string) string {
	return "{:process " + strconv.Itoa(p) + ", :type :" + typ + ", :f :" + f + ", :value " + value + "}"
}

// kop is op with a :key.
func kop(p int, typ, f, key, value string) string {
	return "{:process " + strconv.Itoa(p) + ", :type :" + typ + ", :f :" + f + ", :key " + key + ", :value " + value + "}"
}

// whole is an invocation immediately followed by its ok completion.
func whole(p int, f, inv, res string) []string {
	return []string{op(p, "invoke", f, inv), op(p, "ok", f, res)}
}

// cat joins line groups.
func cat(groups ...[]string) []string {
	var out []string
	for _, g := range groups {
		out = append(out, g...)
	}
	return out
}

// registerHistory is a valid single-register history: four sequential writes
// with reads between them, and one read concurrent with a write.
func registerHistory(t testing.TB) []history.Op {
	return edn(t, cat(
		whole(0, "write", "1", "1"),
		whole(1, "read", "nil", "1"),
		whole(0, "write", "2", "2"),
		whole(2, "write", "3", "3"),
		whole(1, "read", "nil", "3"),
		[]string{op(0, "invoke", "write", "4"), op(1, "invoke", "read", "nil"), op(0, "ok", "write", "4"), op(1, "ok", "read", "3")},
		whole(2, "read", "nil", "4"),
	)...)
}

// listAppendHistory is a valid list-append history of three keys in which
// reads overlap appends, so every list-append kind has a certain mutant.
func listAppendHistory(t testing.TB) []history.Op {
	return edn(t, cat(
		whole(0, "txn", "[[:append :x 1] [:append :y 1]]", "[[:append :x 1] [:append :y 1]]"),
		[]string{
			op(1, "invoke", "txn", "[[:append :x 2]]"),
			op(2, "invoke", "txn", "[[:r :x nil] [:r :y nil]]"),
			op(1, "ok", "txn", "[[:append :x 2]]"),
			op(2, "ok", "txn", "[[:r :x [1 2]] [:r :y [1]]]"),
		},
		whole(0, "txn", "[[:append :x 3] [:append :y 2]]", "[[:append :x 3] [:append :y 2]]"),
		whole(1, "txn", "[[:r :x nil] [:r :y nil]]", "[[:r :x [1 2 3]] [:r :y [1 2]]]"),
		whole(2, "txn", "[[:r :x nil]]", "[[:r :x [1 2 3]]]"),
	)...)
}

// clone deep-copies a history, so tests can prove the original was not edited.
func clone(h []history.Op) []history.Op {
	if h == nil {
		return nil
	}
	out := make([]history.Op, len(h))
	for i, o := range h {
		o.Value = cloneValue(o.Value)
		out[i] = o
	}
	return out
}

func cloneValue(x any) any {
	switch y := x.(type) {
	case []any:
		out := make([]any, len(y))
		for i, e := range y {
			out[i] = cloneValue(e)
		}
		return out
	case history.Set:
		return history.Set(cloneValue([]any(y)).([]any))
	}
	return x
}

// unchanged fails the test if h differs from its earlier deep copy.
func unchanged(t testing.TB, before, h []history.Op) {
	t.Helper()
	if !reflect.DeepEqual(before, h) {
		t.Fatalf("the input history was modified")
	}
}

// must fails the test on a checker constructor's error.
func must(t testing.TB) func(check.Checker, error) check.Checker {
	return func(c check.Checker, err error) check.Checker {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
}

// genRegister is a valid register history of about n ops: processes write
// unique values and read, with pairs of ops overlapping; each takes effect in
// invocation order, so reads return the value at their invocation.
func genRegister(n int, seed uint64) []history.Op {
	rng := rand.New(rand.NewPCG(seed, seed^0x5bd1e995))
	var ops []history.Op
	var state any
	next := int64(1)
	mk := func(p int, typ history.Type, f string, v any) {
		ops = append(ops, history.Op{Index: int64(len(ops)), Time: int64(len(ops)) * 1000, Process: p, Type: typ, F: f, Value: v})
	}
	for len(ops) < n {
		p, q := rng.IntN(5), 5+rng.IntN(5)
		// p's op takes effect first, then q's; their records overlap.
		fp, vp := "read", any(nil)
		if rng.IntN(2) == 0 {
			fp, vp = "write", next
			next++
		}
		fq, vq := "read", any(nil)
		if rng.IntN(2) == 0 {
			fq, vq = "write", next
			next++
		}
		mk(p, history.Invoke, fp, vp)
		mk(q, history.Invoke, fq, vq)
		if fp == "write" {
			state = vp
		}
		rp := state
		if fq == "write" {
			state = vq
		}
		rq := state
		if fp == "read" {
			vp = rp
		}
		if fq == "read" {
			vq = rq
		}
		mk(p, history.OK, fp, vp)
		mk(q, history.OK, fq, vq)
	}
	return ops
}

// lenient is an oracle that accepts every history. Named like a real oracle,
// it gets that oracle's mutants from the audit and lets every one escape.
type lenient struct{ name string }

func (l lenient) Name() string { return l.name }

func (l lenient) Check(context.Context, []history.Op, check.Env) check.Result {
	return check.Result{Checker: l.name, Valid: check.Valid, Summary: "accepts any history", Consumed: check.Consumed{Ops: 1}}
}
