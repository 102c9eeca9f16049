package gen

import "github.com/faultline/faultline/history"

// Any offers the soonest op of any of gens (ties go to the earliest listed).
// Updates go to all of them. It is exhausted when all of them are.
func Any(gens ...Generator) Generator {
	return &anyGen{gens: gens}
}

type anyGen struct{ gens []Generator }

func (a *anyGen) Op(ctx *Context) (history.Op, Generator, Status) {
	var (
		best     history.Op
		bestI    = -1
		bestNext Generator
		pending  bool
		succ     = cow{orig: a.gens, n: len(a.gens)}
	)
	for i, g := range a.gens {
		if g == nil {
			continue
		}
		op, next, st := step(ctx, g)
		switch st {
		case Ready:
			// Unless chosen, a ready child's op is dropped and its old state
			// kept.
			if soonest(bestI >= 0, &best, &op) {
				best, bestI, bestNext = op, i, next
			}
		case Pending:
			pending = true
			succ.keep(i, g, next)
		case Exhausted:
			succ.set(i, nil)
		}
	}
	if bestI < 0 && !pending {
		return history.Op{}, nil, Exhausted
	}
	if bestI >= 0 && pending && best.Time > ctx.Time && !ctx.AllFree() {
		// A busy sibling may offer an earlier op once a thread frees: hold
		// the future op back rather than let it look like the next one
		// (a time limit would end the run at it, cutting the load short).
		bestI = -1
	}
	if bestI >= 0 {
		succ.keep(bestI, a.gens[bestI], bestNext)
	}
	var next Generator = a
	if succ.gens != nil {
		next = &anyGen{gens: succ.gens}
	}
	if bestI < 0 {
		return history.Op{}, next, Pending
	}
	return best, next, Ready
}

func (a *anyGen) Update(ctx *Context, ev history.Op) Generator {
	succ := cow{orig: a.gens, n: len(a.gens)}
	for i, g := range a.gens {
		succ.keep(i, g, tell(ctx, g, ev))
	}
	if succ.gens == nil {
		return a
	}
	return &anyGen{gens: succ.gens}
}

// Mix picks one of gens uniformly at random (from ctx.Rand) for each op,
// dropping those that are exhausted. Like Jepsen's mix it ignores updates.
func Mix(gens ...Generator) Generator {
	if len(gens) == 0 {
		return nil
	}
	return &mixGen{gens: gens}
}

type mixGen struct{ gens []Generator }

func (m *mixGen) Op(ctx *Context) (history.Op, Generator, Status) {
	gens := m.gens
	owned := false // whether gens is our own copy yet
	for len(gens) > 0 {
		i := ctx.Rand.IntN(len(gens))
		op, next, st := step(ctx, gens[i])
		if st == Exhausted {
			if !owned {
				gens, owned = append([]Generator(nil), gens...), true
			}
			gens = append(gens[:i], gens[i+1:]...)
			continue
		}
		if !owned && same(next, gens[i]) {
			return op, m, st
		}
		if !owned {
			gens = append([]Generator(nil), gens...)
		}
		gens[i] = next
		return op, &mixGen{gens: gens}, st
	}
	return history.Op{}, nil, Exhausted
}

func (m *mixGen) Update(*Context, history.Op) Generator { return m }

// cow builds a successor's child list copy-on-write: nothing is allocated
// unless some child actually changed.
type cow struct {
	orig []Generator
	n    int         // length of the copy (orig may be shorter, or nil)
	gens []Generator // the copy, once made
}

func (c *cow) set(i int, g Generator) {
	if c.gens == nil {
		if i < len(c.orig) && same(c.orig[i], g) {
			return
		}
		c.gens = make([]Generator, c.n)
		copy(c.gens, c.orig)
	}
	c.gens[i] = g
}

// keep records next as the new state of child i, whose old state was old.
func (c *cow) keep(i int, old, next Generator) {
	if c.gens == nil && same(old, next) {
		return
	}
	c.set(i, next)
}
