package gen

import (
	"fmt"
	"math/rand/v2"

	"github.com/faultline/faultline/history"
)

// Env is the environment a run's callback generators (Unfold, MapContext,
// FilterContext, OnThreadsContext) call back into when their callbacks run
// code of a host language: the Starlark adapter (package star/gen) keeps its
// loop-owned thread in one. Run hands Config.Env to every generator as
// Context.Env and calls Start once, before asking for the first op, with the
// generators' seeded stream (Context.Rand), so callbacks that draw randomness
// share the stream the combinators draw from and a run replays with its seed.
type Env interface {
	Start(r *rand.Rand)
}

// maxEmptyCalls bounds how many times in a row an Unfold callback may return
// something that is immediately exhausted (say, an empty list) before the run
// fails, rather than spinning for ever.
const maxEmptyCalls = 1000

// Unfold returns a generator that calls next whenever the generator it last
// returned is exhausted, runs what it returns, and ends once next reports
// done. Like any other generator it is asked lazily, so next is first called
// for the first op, never at construction.
//
// A nil result counts as an exhausted generator; 1000 of those in a row fail
// the run rather than spin for ever. An error from next fails the run as it
// is, so next should say which callback failed; name describes next in the
// errors Unfold makes itself (the Starlark adapter passes "generator function
// f").
func Unfold(name string, next func(ctx *Context) (g Generator, done bool, err error)) Generator {
	return &unfoldGen{name: name, next: next}
}

type unfoldGen struct {
	name string
	next func(*Context) (Generator, bool, error)
	cur  Generator // the result of the last call, while it lasts
	live bool      // cur came from a call and is not yet exhausted
}

func (u *unfoldGen) Op(ctx *Context) (history.Op, Generator, Status) {
	if isEmpty(ctx.allowed) {
		return history.Op{}, nil, Exhausted // no thread could ever run its ops
	}
	cur, live := u.cur, u.live
	for empty := 0; ; {
		fresh := false
		if !live {
			g, done, err := u.next(ctx)
			if err != nil {
				ctx.Fail(err)
				return history.Op{}, nil, Exhausted
			}
			if done {
				return history.Op{}, nil, Exhausted
			}
			cur, live, fresh = g, true, true
		}
		op, next, st := step(ctx, cur)
		if st != Exhausted {
			return op, u.with(next), st
		}
		if ctx.err != nil {
			return history.Op{}, nil, Exhausted
		}
		live = false
		if fresh {
			if empty++; empty == maxEmptyCalls {
				ctx.Fail(fmt.Errorf("%s returned %d exhausted generators in a row", u.name, empty))
				return history.Op{}, nil, Exhausted
			}
		}
	}
}

func (u *unfoldGen) Update(ctx *Context, ev history.Op) Generator {
	if !u.live {
		return u
	}
	next := tell(ctx, u.cur, ev)
	if same(next, u.cur) {
		return u
	}
	return u.with(next)
}

// with is u running cur, a live result of its callback.
func (u *unfoldGen) with(cur Generator) *unfoldGen {
	return &unfoldGen{name: u.name, next: u.next, cur: cur, live: true}
}
