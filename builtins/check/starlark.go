package check

import (
	"fmt"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"

	"github.com/faultline/faultline/builtins/starval"
)

// Module is the Starlark "check" module: checker constructors for scenarios.
//
//	check.linearizable(model="cas-register", init=None)
//	check.stats()
//	check.transactional(workload="list-append", consistency_models=["serializable"])
//	check.compose([check.linearizable(), check.stats()])
var Module = &starlarkstruct.Module{
	Name: "check",
	Members: starlark.StringDict{
		"linearizable":  starlark.NewBuiltin("check.linearizable", starLinearizable),
		"stats":         starlark.NewBuiltin("check.stats", starStats),
		"transactional": starlark.NewBuiltin("check.transactional", starTransactional),
		"compose":       starlark.NewBuiltin("check.compose", starCompose),
	},
}

// CheckerValue is the Starlark value (type "checker") that carries a Checker from a
// script to the Go side. It is immutable, so it is safe to share once frozen.
type CheckerValue struct{ c Checker }

var _ starlark.Value = CheckerValue{}

// String implements starlark.Value.
func (v CheckerValue) String() string {
	if s, ok := v.c.(fmt.Stringer); ok {
		return s.String()
	}
	return "check." + v.c.Name() + "()"
}

// Type implements starlark.Value.
func (v CheckerValue) Type() string { return "checker" }

// Freeze implements starlark.Value; a checker has no mutable state.
func (v CheckerValue) Freeze() {}

// Truth implements starlark.Value.
func (v CheckerValue) Truth() starlark.Bool { return starlark.True }

// Hash implements starlark.Value; checkers are not dict keys.
func (v CheckerValue) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable type: checker") }

// Checker returns the Go checker the value wraps.
func (v CheckerValue) Checker() Checker { return v.c }

// FromStarlark returns the Checker behind a Starlark value made by the check module.
func FromStarlark(v starlark.Value) (Checker, error) {
	cv, ok := v.(CheckerValue)
	if !ok {
		return nil, fmt.Errorf("want a checker (from check.linearizable, check.stats or check.compose), got %s", v.Type())
	}
	return cv.c, nil
}

// starLinearizable is check.linearizable(model="cas-register", init=None).
func starLinearizable(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	model := "cas-register"
	var init starlark.Value = starlark.None
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "model?", &model, "init?", &init); err != nil {
		return nil, err
	}
	iv, err := starval.ToGo(init)
	if err != nil {
		return nil, fmt.Errorf("%s: init: %w", b.Name(), err)
	}
	c, err := Linearizable(LinearizableOptions{Model: model, Init: iv})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	return CheckerValue{c}, nil
}

// starTransactional is check.transactional(workload, consistency_models=[]).
func starTransactional(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var workload string
	var models *starlark.List
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "workload", &workload, "consistency_models?", &models); err != nil {
		return nil, err
	}
	o := TransactionalOptions{Workload: workload}
	for i := 0; models != nil && i < models.Len(); i++ {
		m, ok := starlark.AsString(models.Index(i))
		if !ok {
			return nil, fmt.Errorf("%s: consistency_models[%d] is a %s, want a string", b.Name(), i, models.Index(i).Type())
		}
		o.ConsistencyModels = append(o.ConsistencyModels, m)
	}
	c, err := Transactional(o)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	return CheckerValue{c}, nil
}

// starStats is check.stats().
func starStats(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
		return nil, err
	}
	return CheckerValue{Stats()}, nil
}

// starCompose is check.compose([checker, ...]).
func starCompose(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var list starlark.Iterable
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "checkers", &list); err != nil {
		return nil, err
	}
	var cs []Checker
	it := list.Iterate()
	defer it.Done()
	var x starlark.Value
	for i := 0; it.Next(&x); i++ {
		c, err := FromStarlark(x)
		if err != nil {
			return nil, fmt.Errorf("%s: element %d: %w", b.Name(), i, err)
		}
		cs = append(cs, c)
	}
	if len(cs) == 0 {
		return nil, fmt.Errorf("%s: give at least one checker", b.Name())
	}
	return CheckerValue{Compose(cs...)}, nil
}
