package gen

import (
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"time"

	"go.starlark.net/starlark"

	"github.com/faultline/faultline/gen"
	"github.com/faultline/faultline/history"
	"github.com/faultline/faultline/star"
)

// Value is a Generator as a Starlark value (type "generator"). Generators are
// immutable, so a Value is safe to share between threads once frozen.
type Value struct {
	name string
	g    gen.Generator
}

// NewValue wraps g for Starlark; name (e.g. "limit") appears in its string
// form.
func NewValue(name string, g gen.Generator) *Value { return &Value{name: name, g: g} }

// Generator returns the wrapped generator.
func (v *Value) Generator() gen.Generator { return v.g }

// String implements starlark.Value.
func (v *Value) String() string { return "<generator " + v.name + ">" }

// Type implements starlark.Value.
func (v *Value) Type() string { return "generator" }

// Freeze implements starlark.Value; a generator is already immutable.
func (v *Value) Freeze() {}

// Truth implements starlark.Value.
func (v *Value) Truth() starlark.Bool { return starlark.True }

// Hash implements starlark.Value; generators are not hashable.
func (v *Value) Hash() (uint32, error) { return 0, errors.New("unhashable type: generator") }

// FromStarlark builds a generator from a Starlark value: a gen.* value; a dict
// (one op: f required, value, key, time (ns or a duration string), other keys
// kept as extras); a list or tuple (each element in turn); a callable (called
// with no arguments whenever its previous result is exhausted, returning any
// of these, or None to end); or None (nothing).
func FromStarlark(v starlark.Value) (gen.Generator, error) {
	switch v := v.(type) {
	case *Value:
		return v.g, nil
	case starlark.NoneType:
		return nil, nil
	case *starlark.Dict:
		o, err := parseOpDict(v)
		if err != nil {
			return nil, err
		}
		if o.process != nil {
			return nil, errors.New(`op dict: key "process" is set by the interpreter`)
		}
		return gen.Op(o.op), nil
	case *starlark.List:
		return seqFromStarlark(v)
	case starlark.Tuple:
		return seqFromStarlark(v)
	case starlark.Callable:
		return callGen(v), nil
	}
	return nil, fmt.Errorf("cannot use a %s as a generator (want an op dict, a list, a function or a gen.* value)", v.Type())
}

func seqFromStarlark(s starlark.Indexable) (gen.Generator, error) {
	gens := make([]gen.Generator, 0, s.Len())
	for i := 0; i < s.Len(); i++ {
		g, err := FromStarlark(s.Index(i))
		if err != nil {
			return nil, fmt.Errorf("element %d: %w", i, err)
		}
		if g != nil {
			gens = append(gens, g)
		}
	}
	return gen.Seq(gens...), nil
}

// opDict is a parsed op dict: the op, plus the "process" entry if there was
// one (only a map function may return it, unchanged).
type opDict struct {
	op      history.Op
	process starlark.Value
	hasTime bool
}

// Keys of an op dict that the interpreter owns.
var reservedOpKeys = map[string]string{
	"type":        "use gen.sleep or gen.log for special ops",
	"index":       "",
	"node":        "",
	"fault_epoch": "",
	"error":       "",
}

func parseOpDict(d *starlark.Dict) (opDict, error) {
	var o opDict
	hasF := false
	for _, item := range d.Items() {
		k, ok := item[0].(starlark.String)
		if !ok {
			return o, fmt.Errorf("op dict: key %s is a %s, want a string", item[0], item[0].Type())
		}
		key, v := string(k), item[1]
		if hint, bad := reservedOpKeys[key]; bad {
			msg := fmt.Sprintf("op dict: key %q is set by the interpreter", key)
			if hint != "" {
				msg += " (" + hint + ")"
			}
			return o, errors.New(msg)
		}
		switch key {
		case "f":
			f, ok := v.(starlark.String)
			if !ok || f == "" {
				return o, fmt.Errorf("op dict: f must be a non-empty string, got %s", v)
			}
			o.op.F, hasF = string(f), true
		case "process":
			o.process = v
		case "time":
			t, err := opTime(v)
			if err != nil {
				return o, err
			}
			o.op.Time, o.hasTime = t, true
		default:
			gv, err := star.ToGo(v)
			if err != nil {
				return o, fmt.Errorf("op dict: %s: %w", key, err)
			}
			switch key {
			case "value":
				o.op.Value = gv
			case "key":
				o.op.Key = gv
			default:
				if o.op.Extra == nil {
					o.op.Extra = map[string]any{}
				}
				o.op.Extra[key] = gv
			}
		}
	}
	if !hasF {
		return o, errors.New(`op dict: missing "f"`)
	}
	return o, nil
}

// opTime reads an op time: integer nanoseconds since the start of the run, or
// a duration string such as "1.5s".
func opTime(v starlark.Value) (int64, error) {
	switch v := v.(type) {
	case starlark.Int:
		t, ok := v.Int64()
		if !ok || t < 0 {
			return 0, fmt.Errorf("op dict: time %s is not a non-negative 64-bit nanosecond count", v)
		}
		return t, nil
	case starlark.String:
		d, err := time.ParseDuration(string(v))
		if err != nil || d < 0 {
			return 0, fmt.Errorf("op dict: time %s: want nanoseconds or a duration like \"1.5s\"", v)
		}
		return int64(d), nil
	}
	return 0, fmt.Errorf("op dict: time is a %s, want nanoseconds or a duration string", v.Type())
}

// opToDict is the dict a map or filter function sees: f, value, key (if any),
// process, time, and the extras.
func opToDict(op history.Op) (*starlark.Dict, error) {
	d := starlark.NewDict(5 + len(op.Extra))
	put := func(k string, v any) error {
		sv, err := star.FromGo(v)
		if err != nil {
			return fmt.Errorf("op field %s: %w", k, err)
		}
		return d.SetKey(starlark.String(k), sv)
	}
	if err := put("f", op.F); err != nil {
		return nil, err
	}
	if err := put("value", op.Value); err != nil {
		return nil, err
	}
	if op.Key != nil {
		if err := put("key", op.Key); err != nil {
			return nil, err
		}
	}
	if err := put("process", op.Process); err != nil {
		return nil, err
	}
	if err := put("time", op.Time); err != nil {
		return nil, err
	}
	// Sorted, so a function that iterates the dict sees the same order on
	// every run.
	for _, k := range slices.Sorted(maps.Keys(op.Extra)) {
		if err := put(k, op.Extra[k]); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// Env runs a scenario's Starlark functions (generator functions, map,
// filter and on_threads callbacks) on the run's loop-owned thread: pass
// NewEnv(thread) as gen.Config.Env. The generator loop is single-threaded,
// so one thread serves every callback of the run.
//
// Steps: a run's callbacks together may take as many Starlark steps as the
// run lasts (an hour at the engine's full rate is billions), so by default
// no limit applies to the run as a whole; each callback gets its own budget
// of CallSteps, which only a callback that never returns (an infinite loop)
// exhausts. SetRunSteps adds a limit on the run's total, as a scenario's
// budget(steps=...) asks. Either limit ends the generator with a
// *StepLimitError.
type Env struct {
	thread    *starlark.Thread
	runSteps  uint64 // total steps the run's callbacks may take; 0: no limit
	callSteps uint64 // steps one callback may take; 0: CallSteps
}

// CallSteps bounds the Starlark steps of one callback (a generator
// function, map, filter, on_threads): far beyond any honest callback
// (which issues one op or a few), reached in seconds by an endless loop.
const CallSteps = 50_000_000

// NewEnv returns the Env that calls Starlark functions on thread.
func NewEnv(thread *starlark.Thread) *Env { return &Env{thread: thread} }

// SetRunSteps limits the steps all the run's callbacks take together
// (0: no limit).
func (e *Env) SetRunSteps(n uint64) { e.runSteps = n }

// StepLimitError is a callback stopped by a Starlark step limit: the run's
// total (budget(steps=...)) or one callback's CallSteps.
type StepLimitError struct {
	Limit   uint64 // the limit hit
	PerCall bool   // CallSteps for one callback, not the run's total
	Err     error  // the Starlark error, with its backtrace
}

func (e *StepLimitError) Error() string {
	if e.PerCall {
		return fmt.Sprintf("one callback took more than %d Starlark steps (an endless loop?): %v", e.Limit, e.Err)
	}
	return fmt.Sprintf("the run's callbacks took their budget of %d Starlark steps (budget(steps=...)): %v", e.Limit, e.Err)
}

func (e *StepLimitError) Unwrap() error { return e.Err }

// limitCall sets th's step limit for one more callback and returns a func
// that turns an error the call returns into a *StepLimitError when a limit
// stopped it.
func (e *Env) limitCall(th *starlark.Thread) func(error) error {
	per := e.callSteps
	if per == 0 {
		per = CallSteps
	}
	start := th.ExecutionSteps()
	max, perCall := start+per, true
	if e.runSteps > 0 && e.runSteps <= max {
		max, perCall = e.runSteps, false
	}
	th.SetMaxExecutionSteps(max)
	return func(err error) error {
		if err == nil || th.ExecutionSteps() < max {
			return err
		}
		limit := max
		if perCall {
			limit = per
		}
		return &StepLimitError{Limit: limit, PerCall: perCall, Err: err}
	}
}

// Start implements gen.Env: the thread's rand module draws from the
// generators' seeded stream, so a scenario's randomness replays with its seed.
func (e *Env) Start(r *rand.Rand) { star.SetRand(e.thread, r) }

// starEnv returns the run's Env, or an error naming what needed it.
func starEnv(ctx *gen.Context, what string) (*Env, error) {
	e, ok := ctx.Env.(*Env)
	if !ok || e == nil || e.thread == nil {
		return nil, fmt.Errorf("%s: calling a Starlark function needs a Starlark thread (Config.Env = NewEnv(thread))", what)
	}
	return e, nil
}

// call calls fn on the run's thread, within the step limits, naming the
// generator in any error.
func call(ctx *gen.Context, what string, fn starlark.Callable, args ...starlark.Value) (starlark.Value, error) {
	e, err := starEnv(ctx, what)
	if err != nil {
		return nil, err
	}
	th := e.thread
	limited := e.limitCall(th)
	v, err := starlark.Call(th, fn, args, nil)
	if err = limited(err); err != nil {
		return nil, fmt.Errorf("%s: %s: %w", what, fn.Name(), err)
	}
	return v, nil
}

// callGen is a Starlark callable used as a generator: called with no
// arguments whenever its previous result is exhausted; None ends it.
func callGen(fn starlark.Callable) gen.Generator {
	return gen.Unfold("generator function "+fn.Name(), func(ctx *gen.Context) (gen.Generator, bool, error) {
		v, err := call(ctx, "generator function", fn)
		if err != nil {
			return nil, false, err
		}
		if v == starlark.None {
			return nil, true, nil
		}
		g, err := FromStarlark(v)
		if err != nil {
			return nil, false, fmt.Errorf("generator function %s returned %s: %w", fn.Name(), v.Type(), err)
		}
		return g, false, nil
	})
}

// starMap adapts a Starlark function from op dict to op dict for mapGen.
func starMap(what string, fn starlark.Callable) func(*gen.Context, history.Op) (history.Op, error) {
	return func(ctx *gen.Context, op history.Op) (history.Op, error) {
		d, err := opToDict(op)
		if err != nil {
			return op, fmt.Errorf("%s: %w", what, err)
		}
		v, err := call(ctx, what, fn, d)
		if err != nil {
			return op, err
		}
		rd, ok := v.(*starlark.Dict)
		if !ok {
			return op, fmt.Errorf("%s: %s returned a %s, want an op dict", what, fn.Name(), v.Type())
		}
		o, err := parseOpDict(rd)
		if err != nil {
			return op, fmt.Errorf("%s: %s returned a bad op: %w", what, fn.Name(), err)
		}
		if o.process != nil {
			if p, err := starlark.AsInt32(o.process); err != nil || p != op.Process {
				return op, fmt.Errorf("%s: %s changed the op's process; it is chosen by the interpreter", what, fn.Name())
			}
		}
		out := o.op
		out.Process, out.Type = op.Process, op.Type
		if !o.hasTime {
			out.Time = op.Time
		}
		return out, nil
	}
}

// starFilter adapts a Starlark predicate over op dicts for filterGen.
func starFilter(what string, fn starlark.Callable) func(*gen.Context, history.Op) (bool, error) {
	return func(ctx *gen.Context, op history.Op) (bool, error) {
		d, err := opToDict(op)
		if err != nil {
			return false, fmt.Errorf("%s: %w", what, err)
		}
		v, err := call(ctx, what, fn, d)
		if err != nil {
			return false, err
		}
		return bool(v.Truth()), nil
	}
}

// starThreadPred adapts a Starlark predicate over threads (an int, or
// "nemesis") for gen.OnThreadsContext.
func starThreadPred(what string, fn starlark.Callable) func(*gen.Context, int) (bool, error) {
	return func(ctx *gen.Context, t int) (bool, error) {
		var arg starlark.Value = starlark.MakeInt(t)
		if t == gen.NemesisThread {
			arg = starlark.String("nemesis")
		}
		v, err := call(ctx, what, fn, arg)
		if err != nil {
			return false, err
		}
		return bool(v.Truth()), nil
	}
}
