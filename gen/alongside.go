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
//
// After the nemesis's last step (its last heal) the load runs on for at
// least quiet, so the run always ends with a stretch of load on a healed
// system in which recovery can be measured, however late the schedule put
// its last fault; when the nemesis finished earlier than quiet before the
// load's end, nothing changes. A run whose nemesis took no step gets no
// tail.
func Alongside(d, quiet time.Duration, load, nemesis Generator) Generator {
	return &alongsideGen{d: int64(d), quiet: int64(quiet), load: load, nem: nemesis}
}

type alongsideGen struct {
	d, quiet  int64
	deadline  int64 // valid once started
	started   bool
	stepped   bool      // a nemesis step has completed
	lastStep  int64     // when the last one completed (valid once stepped)
	load, nem Generator // nil once exhausted
}

// end is when the load may stop: its time on the schedule's clock (lag is
// the nemesis's time so far), and quiet after the nemesis's last step.
func (a *alongsideGen) end(deadline, lag int64) int64 {
	e := deadline + lag
	if a.stepped {
		e = max(e, a.lastStep+a.quiet)
	}
	return e
}

// nemesisIdle reports whether the nemesis thread (if the run has one) has
// no op in flight.
func nemesisIdle(ctx *Context) bool {
	s, ok := ctx.slotOf(NemesisThread)
	return !ok || hasBit(ctx.free, s)
}

func (a *alongsideGen) Op(ctx *Context) (history.Op, Generator, Status) {
	lag := int64(ctx.NemesisTime())
	if a.started && a.nem == nil && nemesisIdle(ctx) && ctx.Time >= a.end(a.deadline, lag) {
		ctx.coveredUntil(a.end(a.deadline, lag))
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
	if op.Process != history.NemesisProcess && succ.nem == nil && nemesisIdle(ctx) && op.Time >= succ.end(deadline, lag) {
		// The load's time is up, the nemesis has nothing left to do and
		// the quiet tail after its last step has passed.
		ctx.coveredUntil(succ.end(deadline, lag))
		return history.Op{}, nil, Exhausted
	}
	succ.deadline, succ.started = deadline, true
	return op, succ, Ready
}

func (a *alongsideGen) Update(ctx *Context, ev history.Op) Generator {
	both := &anyGen{gens: []Generator{a.load, a.nem}}
	n := a.with(both, both.Update(ctx, ev)) // a copy
	if ev.Process == history.NemesisProcess && ev.Type != history.Invoke {
		n.stepped, n.lastStep = true, max(n.lastStep, ev.Time)
	}
	return n
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
