package gen

import (
	"fmt"
	"slices"
	"time"

	"github.com/faultline/faultline/history"
)

// Scheduled is one recorded invocation for Schedule to replay.
type Scheduled struct {
	At     time.Duration // since the run started
	Thread int           // client thread, or NemesisThread
	// Op is the template: F, Key and Value (for the nemesis, the resolved
	// value). Process and Time are filled in when it is emitted.
	Op history.Op
}

// ScheduleOptions tune Schedule.
type ScheduleOptions struct {
	// AsFastAsPossible ignores the recorded times: each thread runs its ops
	// back to back, and threads interleave in recorded order as far as they
	// are free.
	AsFastAsPossible bool
}

// Schedule replays recorded invocations without any randomness: each op goes
// to its recorded thread (on whatever process that thread runs now) at its
// recorded time. Ops of one thread keep their order: if the thread is still
// busy when its next op falls due, that op waits for it, and ops of other
// threads go on meanwhile. Events must be in recorded order; a thread the run
// lacks (say, the nemesis in a run without one) fails the run.
func Schedule(events []Scheduled, o ScheduleOptions) Generator {
	s := &schedule{events: events, fast: o.AsFastAsPossible}
	slot := map[int]int{} // thread -> index into queues
	for i, e := range events {
		q, ok := slot[e.Thread]
		if !ok {
			q = len(s.queues)
			slot[e.Thread] = q
			s.threads = append(s.threads, e.Thread)
			s.queues = append(s.queues, nil)
		}
		s.queues[q] = append(s.queues[q], int32(i))
	}
	if len(events) == 0 {
		return nil
	}
	return &scheduleGen{s: s, next: make([]int32, len(s.queues))}
}

// schedule is the immutable part shared by every state of a replay.
type schedule struct {
	events  []Scheduled
	fast    bool
	threads []int     // distinct threads, in order of first use
	queues  [][]int32 // per thread: indexes of its events, in order
}

type scheduleGen struct {
	s    *schedule
	next []int32 // per thread: how many of its events were emitted
}

func (g *scheduleGen) Op(ctx *Context) (history.Op, Generator, Status) {
	best, bestAt, live := -1, int64(0), false
	for q, thread := range g.s.threads {
		k := g.next[q]
		if int(k) == len(g.s.queues[q]) {
			continue
		}
		if !ctx.Allowed(thread) {
			ctx.Fail(fmt.Errorf("schedule: event %d is for thread %d, which this run does not have", g.s.queues[q][k], thread))
			return history.Op{}, nil, Exhausted
		}
		live = true
		if !ctx.IsFree(thread) {
			continue
		}
		at := ctx.Time
		if !g.s.fast {
			at = max(at, int64(g.s.events[g.s.queues[q][k]].At))
		}
		// Soonest first; equal times (always, when fast) go in recorded order.
		if best < 0 || at < bestAt || (at == bestAt && g.s.queues[q][k] < g.s.queues[best][g.next[best]]) {
			best, bestAt = q, at
		}
	}
	switch {
	case !live:
		return history.Op{}, nil, Exhausted
	case best < 0:
		return history.Op{}, g, Pending
	}
	e := &g.s.events[g.s.queues[best][g.next[best]]]
	op := e.Op
	op.Process, _ = ctx.ProcessOf(e.Thread)
	op.Type, op.Time = history.Invoke, bestAt
	next := slices.Clone(g.next)
	next[best]++
	return op, &scheduleGen{s: g.s, next: next}, Ready
}

// Update needs nothing: which threads are busy comes from ctx.
func (g *scheduleGen) Update(*Context, history.Op) Generator { return g }
