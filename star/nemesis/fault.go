package nemesis

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"

	"github.com/faultline/faultline/control"
	"github.com/faultline/faultline/nemesis"
	"github.com/faultline/faultline/star"
	starcontrol "github.com/faultline/faultline/star/control"
)

// scriptedLocal is the thread-local key of the faults the script being
// loaded defines; loads share their thread, so a suite and the files it
// loads are one scope, and another script (another thread) is another.
const scriptedLocal = "faultline.nemesis.scripted"

// scripted returns the thread's script-defined faults, making the set on
// first use.
func scripted(thread *starlark.Thread) *nemesis.Scripted {
	s, ok := thread.Local(scriptedLocal).(*nemesis.Scripted)
	if !ok {
		s = &nemesis.Scripted{}
		thread.SetLocal(scriptedLocal, s)
	}
	return s
}

// faultBuiltin is nemesis.fault(name, start, stop=None, verify=None,
// heal=None): a fault written in Starlark. Each function gets the list of
// victim node values (heal: every node). It returns a FaultValue, which a
// scenario calls like a built-in fault builtin to schedule it.
func faultBuiltin(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var name string
	var start starlark.Callable
	var stop, verify, heal starlark.Value = starlark.None, starlark.None, starlark.None
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "name", &name, "start", &start, "stop?", &stop, "verify?", &verify, "heal?", &heal); err != nil {
		return nil, err
	}
	pos := thread.CallFrame(1).Pos.String()
	f := &nemesis.ScriptFault{Name: name, Pos: pos, Start: action(thread, name, "start", start)}
	for _, fn := range []struct {
		arg  string
		v    starlark.Value
		into *nemesis.Action
	}{{"stop", stop, &f.Stop}, {"verify", verify, &f.Verify}, {"heal", heal, &f.Heal}} {
		if fn.v == starlark.None {
			continue
		}
		c, ok := fn.v.(starlark.Callable)
		if !ok {
			return nil, fmt.Errorf("%s: %s must be a function of the nodes, or None; got %s", b.Name(), fn.arg, fn.v.Type())
		}
		*fn.into = action(thread, name, fn.arg, c)
	}
	if err := scripted(thread).Define(f); err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	return &FaultValue{fault: f}, nil
}

// action wraps a script function as a fault step: each call runs it on a
// new thread with the run's pool and context, given the victims as node
// values. The function and its module are frozen at the first call (the
// script has finished loading by then), since the nemesis and the heal
// on the way out may call it from different goroutines.
func action(def *starlark.Thread, fault, step string, fn starlark.Callable) nemesis.Action {
	print := def.Print
	var freeze sync.Once
	return func(ctx context.Context, pool *control.Pool, nodes []string) (any, error) {
		freeze.Do(func() { freezeCallable(fn) })
		list := make([]starlark.Value, 0, len(nodes))
		for _, n := range nodes {
			nv, err := starcontrol.NewNodeValue(pool, n)
			if err != nil {
				return nil, err
			}
			list = append(list, nv)
		}
		thread := &starlark.Thread{Name: "nemesis.fault " + fault + " " + step, Print: print}
		star.SetContext(thread, ctx)
		star.SetPool(thread, pool)
		stopCancel := context.AfterFunc(ctx, func() { thread.Cancel(context.Cause(ctx).Error()) })
		defer stopCancel()
		v, err := starlark.Call(thread, fn, starlark.Tuple{starlark.NewList(list)}, nil)
		if err != nil {
			return nil, errors.New(scriptMessage(err))
		}
		if step != "verify" {
			return nil, nil // what start, stop and heal return is not evidence
		}
		got, err := evidenceToGo(v)
		if err != nil {
			return nil, fmt.Errorf("verify returned %s: %w", v.Type(), err)
		}
		return got, nil
	}
}

// evidenceToGo converts what verify returned for the history; a struct
// becomes a dict of its fields.
func evidenceToGo(v starlark.Value) (any, error) {
	if s, ok := v.(*starlarkstruct.Struct); ok {
		d := starlark.NewDict(len(s.AttrNames()))
		for _, k := range s.AttrNames() {
			x, _ := s.Attr(k)
			if sx, ok := x.(*starlarkstruct.Struct); ok {
				g, err := evidenceToGo(sx)
				if err != nil {
					return nil, err
				}
				if x, err = star.FromGo(g); err != nil {
					return nil, err
				}
			}
			if err := d.SetKey(starlark.String(k), x); err != nil {
				return nil, err
			}
		}
		v = d
	}
	return star.ToGo(v)
}

// scriptMessage is err's message led by the innermost script position, so
// a failing step names the line that raised it.
func scriptMessage(err error) string {
	var ee *starlark.EvalError
	if !errors.As(err, &ee) {
		return err.Error()
	}
	for i := len(ee.CallStack) - 1; i >= 0; i-- {
		if pos := ee.CallStack[i].Pos; pos.IsValid() && pos.Filename() != "<builtin>" {
			return fmt.Sprintf("%s: %s", pos, ee.Msg)
		}
	}
	return ee.Msg
}

// freezeCallable freezes fn and, for a Starlark function, its module's
// globals, which it could otherwise mutate from several threads at once.
func freezeCallable(fn starlark.Callable) {
	fn.Freeze()
	if f, ok := fn.(*starlark.Function); ok {
		for _, v := range f.Globals() {
			v.Freeze()
		}
	}
}

// FaultValue is a script-defined fault as a Starlark value (type
// "nemesis.fault"). Calling it schedules it like a built-in fault:
//
//	marker = nemesis.fault("marker", start = put, stop = remove, verify = look, heal = remove)
//	scenario(..., nemesis = marker(nodes = "one", interval = "5s", hold = "5s"))
type FaultValue struct{ fault *nemesis.ScriptFault }

var _ starlark.Callable = (*FaultValue)(nil)

// Name implements starlark.Callable.
func (f *FaultValue) Name() string { return "nemesis.fault " + f.fault.Name }

// String implements starlark.Value.
func (f *FaultValue) String() string { return fmt.Sprintf("<nemesis.fault %s>", f.fault.Name) }

// Type implements starlark.Value.
func (f *FaultValue) Type() string { return "nemesis.fault" }

// Freeze implements starlark.Value; the fault is immutable.
func (f *FaultValue) Freeze() {}

// Truth implements starlark.Value.
func (f *FaultValue) Truth() starlark.Bool { return starlark.True }

// Hash implements starlark.Value.
func (f *FaultValue) Hash() (uint32, error) { return starlark.String(f.fault.Name).Hash() }

// CallInternal builds the fault's package: nodes (a node spec or a list
// of node names, default "one"), and the cycle timing every fault takes.
func (f *FaultValue) CallInternal(_ *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var nodes starlark.Value = starlark.String("one")
	tm := defaultTiming()
	if err := starlark.UnpackArgs(f.Name(), args, kwargs, "nodes?", &nodes, "interval?", &tm.interval, "hold?", &tm.hold, "start?", &tm.start, "repeat?", &tm.repeat); err != nil {
		return nil, err
	}
	spec, err := star.ToGo(nodes)
	if err != nil {
		return nil, fmt.Errorf("%s: nodes: %w", f.Name(), err)
	}
	p, err := nemesis.ScriptCycle(f.fault, map[string]any{"nodes": spec}, nemesis.Timing{
		Start: time.Duration(tm.start), Interval: time.Duration(tm.interval), Hold: time.Duration(tm.hold), Repeat: tm.repeat})
	if err != nil {
		return nil, err
	}
	return NewValue(p), nil
}
