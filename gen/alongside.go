package gen

import (
	"time"

	"github.com/faultline/faultline/history"
)

// Alongside runs a workload and a nemesis schedule side by side for a
// workload of d, on the schedule's clock, which stands still while the
// nemesis runs a step (Context.NemesisTime): the load runs for d plus the
// time the nemesis spent in its steps, and on for as long as the nemesis
// still has a step to issue or one in flight. So every fault the schedule
// issues is injected, held and healed under load, with the load the plan
// gave before and after it, even on nodes slow to apply faults (emulated
// VMs), where a fixed time limit would end the load before the faults
// landed. The nemesis bounds itself (nemesis.Package.Within).
func Alongside(d time.Duration, load, nemesis Generator) Generator {
	return &alongsideGen{d: int64(d), load: load, nem: nemesis}
}

type alongsideGen struct {
	d         int64
	deadline  int64 // valid once started
	started   bool
	load, nem Generator // nil once exhausted
}

// nemesisIdle reports whether the nemesis thread (if the run has one) has
// no op in flight.
func nemesisIdle(ctx *Context) bool {
	s, ok := ctx.slotOf(NemesisThread)
	return !ok || hasBit(ctx.free, s)
}

func (a *alongsideGen) Op(ctx *Context) (history.Op, Generator, Status) {
	lag := int64(ctx.NemesisTime())
	if a.started && ctx.Time >= a.deadline+lag && a.nem == nil && nemesisIdle(ctx) {
		ctx.coveredUntil(a.deadline + lag)
		return history.Op{}, nil, Exhausted
	}
	both := &anyGen{gens: []Generator{a.load, a.nem}}
	op, next, st := both.Op(ctx)
	succ := a.with(both, next)
	switch st {
	case Exhausted:
		return op, nil, st
	case Pending:
		return op, succ, st
	}
	deadline := a.deadline
	if !a.started {
		deadline = op.Time + a.d
	}
	if op.Process != history.NemesisProcess && op.Time >= deadline+lag && succ.nem == nil && nemesisIdle(ctx) {
		// The load's time is up and the nemesis has nothing left to do.
		ctx.coveredUntil(deadline + lag)
		return history.Op{}, nil, Exhausted
	}
	succ.deadline, succ.started = deadline, true
	return op, succ, Ready
}

func (a *alongsideGen) Update(ctx *Context, ev history.Op) Generator {
	both := &anyGen{gens: []Generator{a.load, a.nem}}
	return a.with(both, both.Update(ctx, ev))
}

// with returns a's successor holding next's children (both itself when
// nothing changed).
func (a *alongsideGen) with(both *anyGen, next Generator) *alongsideGen {
	n := *a
	if next != Generator(both) {
		if g, ok := next.(*anyGen); ok {
			n.load, n.nem = g.gens[0], g.gens[1]
		}
	}
	return &n
}
