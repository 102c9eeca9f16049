package gen

import "github.com/faultline/faultline/history"

// Limit passes through at most n ops of g.
func Limit(n int64, g Generator) Generator {
	if n <= 0 {
		return nil
	}
	return &limitGen{left: n, g: g}
}

// Once passes through the first op of g.
func Once(g Generator) Generator { return Limit(1, g) }

type limitGen struct {
	left int64
	g    Generator
}

func (l *limitGen) Op(ctx *Context) (history.Op, Generator, Status) {
	op, next, st := step(ctx, l.g)
	switch st {
	case Exhausted:
		return op, nil, st
	case Pending:
		if same(next, l.g) {
			return op, l, st
		}
		return op, &limitGen{left: l.left, g: next}, st
	}
	if l.left == 1 {
		return op, nil, Ready
	}
	return op, &limitGen{left: l.left - 1, g: next}, Ready
}

func (l *limitGen) Update(ctx *Context, ev history.Op) Generator {
	next := tell(ctx, l.g, ev)
	if same(next, l.g) {
		return l
	}
	return &limitGen{left: l.left, g: next}
}

// Repeat asks g for an op over and over without ever advancing it, so each op
// comes from g's current state: Repeat(Op(t)) is an endless stream of t, and a
// callable is called afresh each time. Updates do reach g.
func Repeat(g Generator) Generator { return &repeatGen{left: -1, g: g} }

// RepeatN is Repeat limited to n ops.
func RepeatN(n int64, g Generator) Generator {
	if n <= 0 {
		return nil
	}
	return &repeatGen{left: n, g: g}
}

type repeatGen struct {
	left int64 // ops still to give; -1 = endless
	g    Generator
}

func (r *repeatGen) Op(ctx *Context) (history.Op, Generator, Status) {
	op, next, st := step(ctx, r.g)
	switch st {
	case Exhausted:
		return op, nil, st
	case Pending:
		// A pending answer may carry state worth keeping (a callable that was
		// called); it has not produced an op yet, so keep it.
		if same(next, r.g) {
			return op, r, st
		}
		return op, &repeatGen{left: r.left, g: next}, st
	}
	switch r.left {
	case -1:
		return op, r, Ready
	case 1:
		return op, nil, Ready
	}
	return op, &repeatGen{left: r.left - 1, g: r.g}, Ready
}

func (r *repeatGen) Update(ctx *Context, ev history.Op) Generator {
	next := tell(ctx, r.g, ev)
	if same(next, r.g) {
		return r
	}
	return &repeatGen{left: r.left, g: next}
}

// Cycle runs g to exhaustion, then starts it again from the beginning, for
// ever. A g that is exhausted right after a restart ends the cycle, so an
// empty g cannot spin the loop.
func Cycle(g Generator) Generator { return &cycleGen{left: -1, orig: g, cur: g} }

// CycleN is Cycle limited to n runs of g.
func CycleN(n int64, g Generator) Generator {
	if n <= 0 {
		return nil
	}
	return &cycleGen{left: n, orig: g, cur: g}
}

type cycleGen struct {
	left      int64 // runs still to make, counting the current one; -1 = endless
	orig, cur Generator
}

func (c *cycleGen) Op(ctx *Context) (history.Op, Generator, Status) {
	left, cur := c.left, c.cur
	for restarted := false; ; restarted = true {
		op, next, st := step(ctx, cur)
		if st != Exhausted {
			if left == c.left && same(next, c.cur) {
				return op, c, st
			}
			return op, &cycleGen{left: left, orig: c.orig, cur: next}, st
		}
		if restarted || left == 1 {
			return op, nil, Exhausted
		}
		if left > 0 {
			left--
		}
		cur = c.orig
	}
}

func (c *cycleGen) Update(ctx *Context, ev history.Op) Generator {
	next := tell(ctx, c.cur, ev)
	if same(next, c.cur) {
		return c
	}
	return &cycleGen{left: c.left, orig: c.orig, cur: next}
}
