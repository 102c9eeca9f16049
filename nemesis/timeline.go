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
// due together, or the thread is still busy with an earlier step, a step
// runs as soon as the thread is free; order follows due time.
type timeline struct {
	cycles []faultCycle
	due    []int64 // next step of each cycle, ns since the run started
	healed []bool  // whether that step is an inject (true) or a heal (false)
}

func newTimeline(cycles []faultCycle) *timeline {
	t := &timeline{cycles: cycles, due: make([]int64, len(cycles)), healed: make([]bool, len(cycles))}
	for i, c := range cycles {
		t.due[i], t.healed[i] = int64(c.tm.Start), true
	}
	return t
}

var _ gen.Generator = (*timeline)(nil)

// done marks a cycle that will not act again (a fault that happens once).
const done = -1

// Op returns the earliest step due, timed at its due time.
func (t *timeline) Op(ctx *gen.Context) (history.Op, gen.Generator, gen.Status) {
	i := -1
	for j := range t.due {
		if t.due[j] != done && (i < 0 || t.due[j] < t.due[i]) {
			i = j
		}
	}
	if i < 0 {
		return history.Op{}, nil, gen.Exhausted
	}
	c := t.cycles[i]
	f, v, wait := c.inject, c.value, time.Duration(c.tm.Hold)
	if !t.healed[i] {
		f, v, wait = c.heal, stopValue(c.value), time.Duration(c.tm.Interval)
	}
	op, _, st := gen.Op(history.Op{Process: history.NemesisProcess, Type: history.Invoke, F: f, Value: v}).Op(ctx)
	if st != gen.Ready {
		return op, t, st
	}
	op.Time = max(op.Time, t.due[i])
	next := &timeline{cycles: t.cycles, due: append([]int64(nil), t.due...), healed: append([]bool(nil), t.healed...)}
	// The next step counts from when this one is issued, so a late step
	// still holds its fault for the whole hold.
	next.due[i], next.healed[i] = op.Time+int64(wait), !t.healed[i]
	if c.heal == "" {
		// A fault with no heal (file corruption): the next one, if any,
		// comes an interval later.
		next.due[i], next.healed[i] = op.Time+int64(c.tm.Interval), true
	}
	if (!t.healed[i] || c.heal == "") && !c.tm.Repeat {
		next.due[i] = done // over, and it happens once
	}
	return op, next, gen.Ready
}

// Update ignores events: the schedule is fixed in run time.
func (t *timeline) Update(*gen.Context, history.Op) gen.Generator { return t }
