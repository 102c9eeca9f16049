package gen

import (
	"time"

	"github.com/faultline/faultline/history"
)

// TimeLimit passes through g's ops until d has passed since g's first op; an
// op due at or after that instant ends it.
func TimeLimit(d time.Duration, g Generator) Generator {
	return &timeLimitGen{d: int64(d), g: g}
}

type timeLimitGen struct {
	d        int64
	deadline int64 // valid once started
	started  bool
	g        Generator
}

func (t *timeLimitGen) Op(ctx *Context) (history.Op, Generator, Status) {
	if t.started && ctx.Time >= t.deadline {
		ctx.coveredUntil(t.deadline)
		return history.Op{}, nil, Exhausted
	}
	op, next, st := step(ctx, t.g)
	switch st {
	case Exhausted:
		return op, nil, st
	case Pending:
		if same(next, t.g) {
			return op, t, st
		}
		return op, &timeLimitGen{d: t.d, deadline: t.deadline, started: t.started, g: next}, st
	}
	deadline := t.deadline
	if !t.started {
		deadline = op.Time + t.d
	}
	if op.Time >= deadline {
		ctx.coveredUntil(deadline)
		return history.Op{}, nil, Exhausted
	}
	return op, &timeLimitGen{d: t.d, deadline: deadline, started: true, g: next}, Ready
}

func (t *timeLimitGen) Update(ctx *Context, ev history.Op) Generator {
	next := tell(ctx, t.g, ev)
	if same(next, t.g) {
		return t
	}
	return &timeLimitGen{d: t.d, deadline: t.deadline, started: t.started, g: next}
}

// Stagger spaces g's ops by a random interval, uniform in [0, 2d), so they
// arrive at a mean rate of one per d across all threads (a global rate, not a
// per-thread one). When the workers fall behind, ops go out as fast as
// threads free up until the schedule is met again.
func Stagger(d time.Duration, g Generator) Generator {
	return &spaceGen{d: int64(d), random: true, g: g}
}

// Delay spaces g's ops exactly d apart on a fixed grid that starts at the
// first op; when behind it catches up by issuing ops as soon as possible.
func Delay(d time.Duration, g Generator) Generator {
	return &spaceGen{d: int64(d), g: g}
}

type spaceGen struct {
	d       int64
	random  bool  // Stagger (uniform [0, 2d)) rather than Delay (exactly d)
	next    int64 // earliest time of the next op, once started
	started bool
	g       Generator
}

func (s *spaceGen) Op(ctx *Context) (history.Op, Generator, Status) {
	op, next, st := step(ctx, s.g)
	switch st {
	case Exhausted:
		return op, nil, st
	case Pending:
		if same(next, s.g) {
			return op, s, st
		}
		return op, &spaceGen{d: s.d, random: s.random, next: s.next, started: s.started, g: next}, st
	}
	due := s.next
	if !s.started {
		due = op.Time
	}
	if op.Time < due {
		op.Time = due
	}
	gap := s.d
	if s.random {
		gap = 0
		if s.d > 0 {
			gap = ctx.Rand.Int64N(2 * s.d)
		}
	}
	return op, &spaceGen{d: s.d, random: s.random, next: due + gap, started: true, g: next}, Ready
}

func (s *spaceGen) Update(ctx *Context, ev history.Op) Generator {
	next := tell(ctx, s.g, ev)
	if same(next, s.g) {
		return s
	}
	return &spaceGen{d: s.d, random: s.random, next: s.next, started: s.started, g: next}
}
