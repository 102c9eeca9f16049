package gen

import (
	"time"

	"github.com/faultline/faultline/history"
)

// Op returns a generator of exactly one op, a copy of template invoked on a
// free process. Reference values in the template (Value, Key, Extra) are
// shared by every op made from it and must not be mutated.
func Op(template history.Op) Generator { return &opGen{op: template} }

type opGen struct{ op history.Op }

func (g *opGen) Op(ctx *Context) (history.Op, Generator, Status) {
	op, st := ctx.fill(g.op)
	if st != Ready {
		return op, g, st
	}
	return op, nil, Ready
}

func (g *opGen) Update(*Context, history.Op) Generator { return g }

// FromFunc returns an endless generator that calls fn for each op and invokes
// the result on a free process. It is the cheap Go-native op source for
// workloads and benchmarks; bound it with Limit or TimeLimit.
func FromFunc(fn func(ctx *Context) history.Op) Generator { return &funcGen{fn: fn} }

type funcGen struct {
	fn func(*Context) history.Op
}

func (g *funcGen) Op(ctx *Context) (history.Op, Generator, Status) {
	// Check for a free thread first so fn (which may draw randomness) is only
	// called when its op can be used.
	if _, ok := ctx.someFreeSlot(); !ok {
		_, st := ctx.fill(history.Op{})
		return history.Op{}, g, st
	}
	op, st := ctx.fill(g.fn(ctx))
	return op, g, st
}

func (g *funcGen) Update(*Context, history.Op) Generator { return g }

// Seq runs each generator in turn until it is exhausted. Updates go to the
// generator currently running.
func Seq(gens ...Generator) Generator {
	if len(gens) == 0 {
		return nil
	}
	return &seqGen{gens: gens, cur: gens[0]}
}

type seqGen struct {
	gens []Generator // shared, never modified
	i    int         // index of the running generator
	cur  Generator   // its current state
}

func (g *seqGen) Op(ctx *Context) (history.Op, Generator, Status) {
	i, cur := g.i, g.cur
	for {
		op, next, st := step(ctx, cur)
		if st != Exhausted {
			if i == g.i && same(next, g.cur) {
				return op, g, st
			}
			return op, &seqGen{gens: g.gens, i: i, cur: next}, st
		}
		if i++; i >= len(g.gens) {
			return history.Op{}, nil, Exhausted
		}
		cur = g.gens[i]
	}
}

func (g *seqGen) Update(ctx *Context, ev history.Op) Generator {
	next := tell(ctx, g.cur, ev)
	if same(next, g.cur) {
		return g
	}
	return &seqGen{gens: g.gens, i: g.i, cur: next}
}

// Sleep returns a generator of one special op that keeps a free thread idle
// for d. The op is handled by the interpreter and not recorded.
func Sleep(d time.Duration) Generator {
	return Op(history.Op{Type: TypeSleep, F: "sleep", Value: int64(d)})
}

// Log returns a generator of one special op that passes msg to Config.Log. It
// needs no free thread and is not recorded.
func Log(msg string) Generator { return &logGen{msg: msg} }

type logGen struct{ msg string }

func (g *logGen) Op(ctx *Context) (history.Op, Generator, Status) {
	return history.Op{Type: TypeLog, F: "log", Value: g.msg, Time: ctx.Time}, nil, Ready
}

func (g *logGen) Update(*Context, history.Op) Generator { return g }
