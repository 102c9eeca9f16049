// Package gen is faultline's generator algebra and the worker-pool interpreter
// that runs it.
//
// A Generator is an immutable value in the style of Jepsen's: asked for an
// operation it returns the op and its successor, and told of an invocation or
// completion it returns the generator that knows about it. Nothing is mutated,
// so the interpreter can ask, look at the answer (an op due in the future, say)
// and ask again later. Combinators (Limit, Mix, Stagger, Phases, ...) wrap
// generators; package star/gen exposes them to Starlark as gen.limit,
// gen.mix, ... Nothing here depends on Starlark: a Go program builds and runs
// generators directly (see the example).
//
// Run drives a generator against a pool of workers, one per client thread plus
// one for the nemesis, in real time or in deterministic simulated time.
package gen

import (
	"reflect"

	"github.com/faultline/faultline/history"
)

// NemesisThread is the thread number of the nemesis; client threads are
// 0..Concurrency-1.
const NemesisThread = -1

// Status says what a generator's answer to Op means.
type Status int

const (
	// Ready means the returned op should be invoked (at its Time, which may lie
	// in the future).
	Ready Status = iota
	// Pending means no op can be given now (for example every thread it may use
	// is busy); ask again after the next completion. The returned generator
	// replaces the one asked.
	Pending
	// Exhausted means the generator will never give another op.
	Exhausted
)

// String names the status for logs and test failures.
func (s Status) String() string {
	switch s {
	case Ready:
		return "ready"
	case Pending:
		return "pending"
	case Exhausted:
		return "exhausted"
	}
	return "status(?)"
}

// Special op types handled by the interpreter itself and never recorded.
const (
	// TypeSleep makes the thread of op.Process idle for op.Value nanoseconds
	// (an int64).
	TypeSleep history.Type = "sleep"
	// TypeLog passes op.Value (a string) to Config.Log. It uses no thread.
	TypeLog history.Type = "log"
)

// Generator is an immutable source of operations.
//
// Op returns the next op to invoke and the successor generator. A Ready op has
// Process set to a free process of ctx and Type invoke (or one of the special
// types); its Time is ctx.Time or a later instant. Update is told of every
// recorded invocation and completion and returns the generator that has seen
// it. Implementations never mutate themselves, never retain ctx after
// returning, and report failures through ctx.Fail rather than panicking.
//
// A nil Generator is valid everywhere and is exhausted.
type Generator interface {
	Op(ctx *Context) (op history.Op, next Generator, st Status)
	Update(ctx *Context, ev history.Op) Generator
}

// step asks g for an op, treating nil as exhausted.
func step(ctx *Context, g Generator) (history.Op, Generator, Status) {
	if g == nil || ctx.err != nil {
		return history.Op{}, nil, Exhausted
	}
	return g.Op(ctx)
}

// tell updates g, treating nil as exhausted.
func tell(ctx *Context, g Generator, ev history.Op) Generator {
	if g == nil || ctx.err != nil {
		return g
	}
	return g.Update(ctx, ev)
}

// same reports whether two generators are the same value, so a combinator can
// return itself instead of allocating when a child did not change. Only
// pointers are compared: comparing other interface values can panic.
func same(a, b Generator) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return reflect.TypeOf(a).Kind() == reflect.Pointer && a == b
}

// soonest reports whether a candidate op should replace the best one found so
// far: earlier wins, and ties keep the first found so choices are
// deterministic.
func soonest(found bool, best, cand *history.Op) bool {
	return !found || cand.Time < best.Time
}
