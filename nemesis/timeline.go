package nemesis

import (
	"time"

	"github.com/faultline/faultline/gen"
	"github.com/faultline/faultline/history"
)

// A faultCycle is one fault's schedule in run time: inject at start, heal
// hold later, inject again interval after each heal. A cycle with no heal
// op (file corruption) injects at start and every interval after.
type faultCycle struct {
	inject, heal string
	value        any
	tm           Timing
}

// holds is what the cycle's fault holds while it is in effect (Fault.Holds,
// or its inject op): two cycles that hold the same thing never overlap on a
// timeline. A fault with no heal holds nothing: it is over once injected.
func (c faultCycle) holds() string {
	if c.heal == "" {
		return ""
	}
	if f, ok := ByOp(c.inject); ok && f.Holds != "" {
		return f.Holds
	}
	return c.inject
}

// timeline runs fault cycles on the nemesis thread at their times since the
// run started, so composed faults keep the times the plan gave each ("at
// T+14s") rather than queueing behind one another's waits. When two are
// due together, a step runs as soon as the thread is free; order follows
// due time.
//
// Faults that hold the same thing (faultCycle.holds: a node's process, the
// partition, the qdisc) never overlap: an inject that falls due while
// another cycle holding the same thing is in effect is deferred until that
// one's heal, and its own heal and the cycle's later faults move with it.
// So composed cycles cannot sabotage one another (a pause of a process a
// concurrent kill took down, a second partition refused because one is
// active), whatever their spacing; Planned lists the deferred times.
//
// Due times are on the schedule's own clock, which stands still while the
// nemesis runs a step (gen.Context.NemesisTime): a step is issued at its
// due time plus the time every earlier step took. So a fault is held for
// its whole hold once it has landed, and the faults after it keep the
// spacing the plan gave them, however long the nodes take to apply each
// step (tens of seconds on emulated VMs, longer than a plan's hold).
type timeline struct {
	cycles []faultCycle
	due    []int64 // next step of each cycle, ns on the schedule's clock; or done
	healed []bool  // whether that step is an inject (true) or a heal (false)
	until  int64   // no inject falls due at or after it; 0: no horizon
}

func newTimeline(cycles []faultCycle) *timeline {
	t := &timeline{cycles: cycles, due: make([]int64, len(cycles)), healed: make([]bool, len(cycles))}
	for i, c := range cycles {
		t.due[i], t.healed[i] = int64(c.tm.Start), true
	}
	return t
}

// within returns t with a horizon: no inject falls due at or after d on the
// schedule's clock (so what runs is what Planned lists for a workload of
// d), while every fault injected before it is still held and healed.
func (t *timeline) within(d time.Duration) *timeline {
	n := t.clone()
	n.until = int64(d)
	return n
}

func (t *timeline) clone() *timeline {
	return &timeline{cycles: t.cycles, due: append([]int64(nil), t.due...), healed: append([]bool(nil), t.healed...), until: t.until}
}

var _ gen.Generator = (*timeline)(nil)

// done marks a cycle that will not act again (a fault that happens once).
const done = -1

// next returns the index of the earliest step due, with t's state after
// deferring every inject that falls due while a cycle holding the same
// thing is in effect (the state the step is taken from), or -1 when no
// step is left before the horizon. Heals go before injects due at the same
// time, so a deferred inject follows the heal it waited for.
func (t *timeline) next() (int, *timeline) {
	n := t
	for {
		i := -1
		for j, d := range n.due {
			past := n.healed[j] && n.until > 0 && d >= n.until // an inject past the horizon
			if d == done || past {
				continue
			}
			if i < 0 || d < n.due[i] || (d == n.due[i] && !n.healed[j] && n.healed[i]) {
				i = j
			}
		}
		if i < 0 || !n.healed[i] {
			return i, n
		}
		k := n.heldBy(i)
		if k < 0 {
			return i, n
		}
		if n == t {
			n = t.clone()
		}
		n.due[i] = n.due[k] // after k's heal, which goes first
	}
}

// heldBy returns a cycle other than i in effect (its next step is its
// heal) that holds what cycle i's fault would hold, or -1.
func (t *timeline) heldBy(i int) int {
	h := t.cycles[i].holds()
	if h == "" {
		return -1
	}
	for k := range t.cycles {
		if k != i && t.due[k] != done && !t.healed[k] && t.cycles[k].holds() == h {
			return k
		}
	}
	return -1
}

// advance returns the state after step i is taken.
func (t *timeline) advance(i int) *timeline {
	c := t.cycles[i]
	wait := c.tm.Hold
	if !t.healed[i] {
		wait = c.tm.Interval
	}
	next := t.clone()
	next.due[i], next.healed[i] = t.due[i]+int64(wait), !t.healed[i]
	if c.heal == "" {
		// A fault with no heal (file corruption): the next one, if any,
		// comes an interval later.
		next.due[i], next.healed[i] = t.due[i]+int64(c.tm.Interval), true
	}
	if (!t.healed[i] || c.heal == "") && !c.tm.Repeat {
		next.due[i] = done // over, and it happens once
	}
	return next
}

// Op returns the earliest step due, timed at its due time.
func (t *timeline) Op(ctx *gen.Context) (history.Op, gen.Generator, gen.Status) {
	i, cur := t.next()
	if i < 0 {
		return history.Op{}, nil, gen.Exhausted
	}
	c := cur.cycles[i]
	f, v := c.inject, c.value
	if !cur.healed[i] {
		f, v = c.heal, stopValue(c.value)
	}
	op, _, st := gen.Op(history.Op{Process: history.NemesisProcess, Type: history.Invoke, F: f, Value: v}).Op(ctx)
	if st != gen.Ready {
		return op, t, st
	}
	op.Time = max(op.Time, cur.due[i]+int64(ctx.NemesisTime()))
	return op, cur.advance(i), gen.Ready
}

// Update ignores events: the schedule is fixed on its own clock.
func (t *timeline) Update(*gen.Context, history.Op) gen.Generator { return t }
