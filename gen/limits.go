package gen

import (
	"slices"

	"github.com/faultline/faultline/history"
)

// ConcurrencyLimit lets at most n ops of g be in flight at once.
func ConcurrencyLimit(n int, g Generator) Generator {
	return &concLimitGen{n: n, g: g}
}

type concLimitGen struct {
	n      int
	g      Generator
	active procSet // processes running an op from g
}

func (c *concLimitGen) Op(ctx *Context) (history.Op, Generator, Status) {
	if len(c.active) >= c.n {
		return history.Op{}, c, Pending
	}
	op, next, st := step(ctx, c.g)
	switch st {
	case Exhausted:
		return op, nil, st
	case Pending:
		if same(next, c.g) {
			return op, c, st
		}
		return op, &concLimitGen{n: c.n, g: next, active: c.active}, st
	}
	active := c.active
	if op.Type == history.Invoke {
		active = active.with(op.Process)
	}
	return op, &concLimitGen{n: c.n, g: next, active: active}, Ready
}

func (c *concLimitGen) Update(ctx *Context, ev history.Op) Generator {
	next, active := tell(ctx, c.g, ev), c.active
	if ev.Type != history.Invoke && active.has(ev.Process) {
		active = active.without(ev.Process)
	} else if same(next, c.g) {
		return c
	}
	return &concLimitGen{n: c.n, g: next, active: active}
}

// ProcessLimit lets g's ops run on at most n distinct processes over the whole
// run. Once n are in use, g only sees the threads still running one of them,
// and when all of those have crashed (moved on to new processes) it ends.
// This stops the trickle of ever-new processes that crashes cause.
func ProcessLimit(n int, g Generator) Generator {
	return &procLimitGen{n: n, g: g}
}

type procLimitGen struct {
	n     int
	g     Generator
	procs procSet // processes g has used
}

func (p *procLimitGen) Op(ctx *Context) (history.Op, Generator, Status) {
	if p.n <= 0 {
		return history.Op{}, nil, Exhausted
	}
	var saved []uint64
	full := len(p.procs) >= p.n
	if full {
		buf := ctx.scratch()
		for _, proc := range p.procs {
			if s, ok := ctx.slotOfProcess(proc); ok && ctx.process[s] == proc && hasBit(ctx.allowed, s) {
				setBit(buf, s)
			}
		}
		if isEmpty(buf) {
			return history.Op{}, nil, Exhausted
		}
		saved = ctx.enter(buf)
	}
	op, next, st := step(ctx, p.g)
	if full {
		ctx.leave(saved)
	}
	switch st {
	case Exhausted:
		return op, nil, st
	case Pending:
		if same(next, p.g) {
			return op, p, st
		}
		return op, &procLimitGen{n: p.n, g: next, procs: p.procs}, st
	}
	procs := p.procs
	if op.Type == history.Invoke && !procs.has(op.Process) {
		procs = procs.with(op.Process)
	}
	return op, &procLimitGen{n: p.n, g: next, procs: procs}, Ready
}

func (p *procLimitGen) Update(ctx *Context, ev history.Op) Generator {
	next := tell(ctx, p.g, ev)
	if same(next, p.g) {
		return p
	}
	return &procLimitGen{n: p.n, g: next, procs: p.procs}
}

// procSet is a small sorted set of processes. It is immutable: with and
// without return new sets, so successors can share it.
type procSet []int

func (s procSet) has(p int) bool {
	_, ok := slices.BinarySearch(s, p)
	return ok
}

func (s procSet) with(p int) procSet {
	i, ok := slices.BinarySearch(s, p)
	if ok {
		return s
	}
	out := make(procSet, len(s)+1)
	copy(out, s[:i])
	out[i] = p
	copy(out[i+1:], s[i:])
	return out
}

func (s procSet) without(p int) procSet {
	i, ok := slices.BinarySearch(s, p)
	if !ok {
		return s
	}
	out := make(procSet, 0, len(s)-1)
	return append(append(out, s[:i]...), s[i+1:]...)
}
