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

// timeline runs fault cycles on the nemesis thread at their times since the
// run started, so composed faults keep the times the plan gave each ("at
// T+14s") rather than queueing behind one another's waits. When two are
// due together, a step runs as soon as the thread is free; order follows
// due time.
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

// Op returns the earliest step due, timed at its due time.
func (t *timeline) Op(ctx *gen.Context) (history.Op, gen.Generator, gen.Status) {
	i := -1
	for j, d := range t.due {
		past := t.healed[j] && t.until > 0 && d >= t.until // an inject past the horizon
		if d != done && !past && (i < 0 || d < t.due[i]) {
			i = j
		}
	}
	if i < 0 {
		return history.Op{}, nil, gen.Exhausted
	}
	c := t.cycles[i]
	f, v, wait := c.inject, c.value, c.tm.Hold
	if !t.healed[i] {
		f, v, wait = c.heal, stopValue(c.value), c.tm.Interval
	}
	op, _, st := gen.Op(history.Op{Process: history.NemesisProcess, Type: history.Invoke, F: f, Value: v}).Op(ctx)
	if st != gen.Ready {
		return op, t, st
	}
	op.Time = max(op.Time, t.due[i]+int64(ctx.NemesisTime()))
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
	return op, next, gen.Ready
}

// Update ignores events: the schedule is fixed on its own clock.
func (t *timeline) Update(*gen.Context, history.Op) gen.Generator { return t }
