package gen

import (
	"fmt"

	"github.com/faultline/faultline/history"
)

// Map rewrites every op of g with fn. fn sees the filled op (process, time,
// type) and its result is checked by the interpreter like any other op.
func Map(fn func(history.Op) history.Op, g Generator) Generator {
	return &mapGen{fn: func(_ *Context, op history.Op) (history.Op, error) { return fn(op), nil }, g: g}
}

// FMap renames the F of g's ops by mapping; fs not in mapping are kept. It
// lifts a generator written for one nemesis onto a composed nemesis whose ops
// have distinct names.
func FMap(mapping map[string]string, g Generator) Generator {
	m := make(map[string]string, len(mapping))
	for k, v := range mapping {
		m[k] = v
	}
	return &mapGen{fn: func(_ *Context, op history.Op) (history.Op, error) {
		if f, ok := m[op.F]; ok {
			op.F = f
		}
		return op, nil
	}, g: g}
}

// MapContext is Map for an fn that needs the run's context (its Env, say) or
// can fail: an error from fn fails the run.
func MapContext(fn func(ctx *Context, op history.Op) (history.Op, error), g Generator) Generator {
	return &mapGen{fn: fn, g: g}
}

type mapGen struct {
	fn func(*Context, history.Op) (history.Op, error)
	g  Generator
}

func (m *mapGen) Op(ctx *Context) (history.Op, Generator, Status) {
	op, next, st := step(ctx, m.g)
	switch st {
	case Exhausted:
		return op, nil, st
	case Ready:
		var err error
		if op, err = m.fn(ctx, op); err != nil {
			ctx.Fail(err)
			return history.Op{}, nil, Exhausted
		}
	}
	if same(next, m.g) {
		return op, m, st
	}
	return op, &mapGen{fn: m.fn, g: next}, st
}

func (m *mapGen) Update(ctx *Context, ev history.Op) Generator {
	next := tell(ctx, m.g, ev)
	if same(next, m.g) {
		return m
	}
	return &mapGen{fn: m.fn, g: next}
}

// maxFilterSkips bounds how many ops in a row a filter may reject before the
// run fails, so a predicate that never matches an endless generator reports
// an error instead of hanging the run.
const maxFilterSkips = 100_000

// Filter passes through only the ops of g for which pred is true; rejected ops
// are consumed.
func Filter(pred func(history.Op) bool, g Generator) Generator {
	return &filterGen{pred: func(_ *Context, op history.Op) (bool, error) { return pred(op), nil }, g: g}
}

// FilterContext is Filter for a pred that needs the run's context (its Env,
// say) or can fail: an error from pred fails the run.
func FilterContext(pred func(ctx *Context, op history.Op) (bool, error), g Generator) Generator {
	return &filterGen{pred: pred, g: g}
}

type filterGen struct {
	pred func(*Context, history.Op) (bool, error)
	g    Generator
}

func (f *filterGen) Op(ctx *Context) (history.Op, Generator, Status) {
	g := f.g
	for skips := 0; ; skips++ {
		if skips == maxFilterSkips {
			ctx.Fail(fmt.Errorf("filter rejected %d ops in a row", skips))
			return history.Op{}, nil, Exhausted
		}
		op, next, st := step(ctx, g)
		switch st {
		case Exhausted:
			return op, nil, st
		case Pending:
			if same(next, f.g) {
				return op, f, st
			}
			return op, &filterGen{pred: f.pred, g: next}, st
		}
		ok, err := f.pred(ctx, op)
		if err != nil {
			ctx.Fail(err)
			return history.Op{}, nil, Exhausted
		}
		if ok {
			if same(next, f.g) {
				return op, f, Ready
			}
			return op, &filterGen{pred: f.pred, g: next}, Ready
		}
		g = next
	}
}

func (f *filterGen) Update(ctx *Context, ev history.Op) Generator {
	next := tell(ctx, f.g, ev)
	if same(next, f.g) {
		return f
	}
	return &filterGen{pred: f.pred, g: next}
}
