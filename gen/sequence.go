package gen

import "github.com/faultline/faultline/history"

// Synchronize waits until every thread g may use is idle, then becomes g.
func Synchronize(g Generator) Generator { return &syncGen{g: g} }

type syncGen struct{ g Generator }

func (s *syncGen) Op(ctx *Context) (history.Op, Generator, Status) {
	if !ctx.AllFree() {
		return history.Op{}, s, Pending
	}
	// Once every thread has been idle the barrier is passed for good: the
	// answer, whatever it is, comes from g itself.
	return step(ctx, s.g)
}

func (s *syncGen) Update(ctx *Context, ev history.Op) Generator {
	next := tell(ctx, s.g, ev)
	if same(next, s.g) {
		return s
	}
	return &syncGen{g: next}
}

// Phases runs each generator in turn, waiting before each one (the first
// included) until every thread is idle, so phases never overlap.
func Phases(gens ...Generator) Generator {
	synced := make([]Generator, len(gens))
	for i, g := range gens {
		synced[i] = Synchronize(g)
	}
	return Seq(synced...)
}

// Then runs a, waits until every thread is idle, then runs b. Note the order:
// Jepsen's (then a b) runs b first because it is meant for ->> threading;
// here the arguments read in the order they run.
func Then(a, b Generator) Generator { return Seq(a, Synchronize(b)) }

// UntilOK passes through g's ops until one of them completes ok.
func UntilOK(g Generator) Generator { return &untilOKGen{g: g} }

type untilOKGen struct {
	g      Generator
	active procSet // processes running an op from g
}

func (u *untilOKGen) Op(ctx *Context) (history.Op, Generator, Status) {
	op, next, st := step(ctx, u.g)
	switch st {
	case Exhausted:
		return op, nil, st
	case Pending:
		if same(next, u.g) {
			return op, u, st
		}
		return op, &untilOKGen{g: next, active: u.active}, st
	}
	active := u.active
	if op.Type == history.Invoke {
		active = active.with(op.Process)
	}
	return op, &untilOKGen{g: next, active: active}, Ready
}

func (u *untilOKGen) Update(ctx *Context, ev history.Op) Generator {
	if ev.Type != history.Invoke && u.active.has(ev.Process) {
		if ev.Type == history.OK {
			return nil
		}
		return &untilOKGen{g: tell(ctx, u.g, ev), active: u.active.without(ev.Process)}
	}
	next := tell(ctx, u.g, ev)
	if same(next, u.g) {
		return u
	}
	return &untilOKGen{g: next, active: u.active}
}

// FlipFlop alternates between the ops of a and b, starting with a, and ends
// as soon as the one whose turn it is is exhausted. Updates go to both.
func FlipFlop(a, b Generator) Generator { return &flipFlopGen{gens: [2]Generator{a, b}} }

type flipFlopGen struct {
	gens [2]Generator
	turn int
}

func (f *flipFlopGen) Op(ctx *Context) (history.Op, Generator, Status) {
	op, next, st := step(ctx, f.gens[f.turn])
	switch st {
	case Exhausted:
		return op, nil, st
	case Pending:
		if same(next, f.gens[f.turn]) {
			return op, f, st
		}
		succ := &flipFlopGen{gens: f.gens, turn: f.turn}
		succ.gens[f.turn] = next
		return op, succ, st
	}
	succ := &flipFlopGen{gens: f.gens, turn: 1 - f.turn}
	succ.gens[f.turn] = next
	return op, succ, Ready
}

func (f *flipFlopGen) Update(ctx *Context, ev history.Op) Generator {
	a, b := tell(ctx, f.gens[0], ev), tell(ctx, f.gens[1], ev)
	if same(a, f.gens[0]) && same(b, f.gens[1]) {
		return f
	}
	return &flipFlopGen{gens: [2]Generator{a, b}, turn: f.turn}
}
