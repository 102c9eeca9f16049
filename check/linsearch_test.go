package check

import (
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/anishathalye/porcupine"

	"github.com/faultline/faultline/history"
)

// randomRegisterHistory records procs processes doing n ops on one register
// with small values, so reads often match and often do not. Ops overlap (a
// process invokes, others act, then it completes), some end as info and some
// as fail, and a read's value is drawn at random, so the histories are a mix
// of linearizable and not.
func randomRegisterHistory(rng *rand.Rand, procs, n int, cas bool) []history.Op {
	var h []history.Op
	open := map[int]history.Op{} // process -> its invocation
	add := func(op history.Op) {
		op.Index = int64(len(h))
		h = append(h, op)
	}
	for done := 0; done < n || len(open) > 0; {
		p := rng.IntN(procs)
		inv, busy := open[p]
		if !busy {
			if done >= n {
				continue
			}
			done++
			op := history.Op{Process: p, Type: history.Invoke}
			switch k := rng.IntN(3); {
			case k == 0:
				op.F = "read"
			case k == 1 || !cas:
				op.F, op.Value = "write", int64(rng.IntN(3))
			default:
				op.F, op.Value = "cas", []any{int64(rng.IntN(3)), int64(rng.IntN(3))}
			}
			open[p] = op
			add(op)
			continue
		}
		delete(open, p)
		comp := history.Op{Process: p, Type: history.OK, F: inv.F, Value: inv.Value}
		switch r := rng.IntN(10); {
		case r == 0:
			comp.Type = history.Info
		case r == 1 && inv.F != "read":
			comp.Type = history.Fail
		}
		if inv.F == "read" && comp.Type == history.OK {
			comp.Value = int64(rng.IntN(3))
		}
		add(comp)
		if comp.Type == history.Info {
			// A crashed process does not come back: its op stays open for ever.
			open[p] = history.Op{}
			delete(open, p)
			procs++ // a fresh process takes its place, as Jepsen does
		}
	}
	return h
}

// TestLinCheckMatchesPorcupine is the exactness property: on small random
// register and cas-register histories (with info and failed ops, so cuts
// carry pending ops), the segmented search answers exactly what porcupine's
// unsplit search answers, and its prefix for an illegal history is a real
// partial linearization.
func TestLinCheckMatchesPorcupine(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	counts := map[porcupine.CheckResult]int{}
	cutCases, carried := 0, 0 // histories cut at least once; those with an info op too
	for iter := range 3000 {
		cas := iter%2 == 1
		model := "register"
		if cas {
			model = "cas-register"
		}
		h := randomRegisterHistory(rng, 2+rng.IntN(3), 4+rng.IntN(14), cas)
		s := mustLinearizable(t, model, int64(0)).(*linearizable).s
		p, err := s.prepare(h)
		if err != nil {
			t.Fatalf("prepare: %v", err)
		}
		if p.ops() == 0 {
			continue
		}
		ops := p.parts[0].ops
		if ids := seqIDs(len(ops)); len(cutSegments(ops, ids)) > 1 {
			cutCases++
			for _, o := range ops {
				if o.Return == infinity {
					carried++
					break
				}
			}
		}
		want := porcupine.CheckOperations(s.porcupineModel(h, new(atomic.Bool)), ops)
		got := s.linCheckCut(ops, new(atomic.Bool), 0, true)
		counts[got.verdict]++
		if (got.verdict == porcupine.Ok) != want || got.verdict == porcupine.Unknown {
			t.Fatalf("iteration %d (%s): cut search %v, porcupine linearizable=%v\n%s", iter, model, got.verdict, want, history.FormatEDN(h))
		}
		if one := s.linCheckCut(ops, new(atomic.Bool), 0, false); one.verdict != got.verdict {
			t.Fatalf("iteration %d (%s): uncut search %v, cut search %v\n%s", iter, model, one.verdict, got.verdict, history.FormatEDN(h))
		}
		if got.verdict == porcupine.Illegal {
			state := s.initial()
			for _, id := range got.best {
				ok, next := s.step(state, opIn(ops[id]), opOut(ops[id]))
				if !ok {
					t.Fatalf("iteration %d: the prefix %v does not replay at op %d", iter, got.best, id)
				}
				state = next
			}
		}
	}
	if counts[porcupine.Ok] < 300 || counts[porcupine.Illegal] < 300 || cutCases < 300 || carried < 100 {
		t.Fatalf("the generator is lopsided: %v, %d cut, %d cut with an info op", counts, cutCases, carried)
	}
	t.Logf("verdicts: %d linearizable, %d not; %d cut at a quiescent point, %d of them with an info op", counts[porcupine.Ok], counts[porcupine.Illegal], cutCases, carried)
}

// seqIDs is 0..n-1: prepare's ops are already in call order.
func seqIDs(n int) []int {
	ids := make([]int, n)
	for i := range ids {
		ids[i] = i
	}
	return ids
}

// longRegisterHistory simulates procs clients on one linearizable register:
// each op is invoked, takes effect at a random later moment, then completes,
// so the history is linearizable by construction and clients overlap. With
// bad, one read in the middle returns 99, a value nobody writes.
func longRegisterHistory(seed uint64, procs, n int, bad bool) []history.Op {
	rng := rand.New(rand.NewPCG(seed, 7))
	h := make([]history.Op, 0, 2*n)
	const (
		idle = iota
		invoked
		applied
	)
	phase := make([]int, procs)
	cur := make([]history.Op, procs) // each process's invocation, then its result
	var reg int64
	planted := !bad
	for done, open := 0, 0; done < n || open > 0; {
		p := rng.IntN(procs)
		switch phase[p] {
		case idle:
			if done >= n {
				continue
			}
			done++
			open++
			op := history.Op{Process: p, Type: history.Invoke, F: "read"}
			if rng.IntN(2) == 0 {
				op.F, op.Value = "write", int64(rng.IntN(10))
			}
			op.Index = int64(len(h))
			h = append(h, op)
			cur[p], phase[p] = op, invoked
		case invoked:
			if cur[p].F == "write" {
				reg = cur[p].Value.(int64)
			} else {
				cur[p].Value = reg
				if !planted && done > n/2 {
					cur[p].Value, planted = int64(99), true
				}
			}
			phase[p] = applied
		case applied:
			op := cur[p]
			op.Type, op.Index = history.OK, int64(len(h))
			h = append(h, op)
			phase[p] = idle
			open--
		}
	}
	return h
}

// TestLongRegisterCut checks a history long enough to be cut at quiescent
// points: valid as generated, invalid with one impossible read, and the
// explanation's prefix reaches the planted read.
func TestLongRegisterCut(t *testing.T) {
	n := segmentMinOps + 5000
	c := mustLinearizable(t, "register", int64(0))
	if res := run(t, c, longRegisterHistory(3, 4, n, false)); res.Valid != Valid {
		t.Fatalf("valid history: got %s: %s", res.Valid, res.Summary)
	}
	h := longRegisterHistory(3, 4, n, true)
	res := run(t, c, h)
	if res.Valid != Invalid {
		t.Fatalf("history with a read of 99: got %s: %s", res.Valid, res.Summary)
	}
	if !strings.Contains(res.Summary, "read -> 99") {
		t.Fatalf("the summary does not name the impossible read: %s", res.Summary)
	}
	if got := res.Details["prefix_ops"].(int); got < n/2-10 {
		t.Fatalf("the prefix has %d ops; the planted read is past op %d", got, n/2)
	}
}
