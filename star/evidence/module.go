// Package evidence is the Starlark "evidence" module: declarations of the
// signals a scenario requires to see (nemesis.Decl), judged after the run
// from the recorded history by nemesis.Evaluate. It registers itself with
// package star.
package evidence

import (
	"errors"
	"fmt"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"

	"github.com/faultline/faultline/nemesis"
	"github.com/faultline/faultline/star"
)

func init() { star.Register("evidence", Module) }

// Module is the Starlark "evidence" module.
//
//	evidence.landed()                      every fault op read back as in effect (and there was one)
//	evidence.iptables_drops(min=1)         packets counted by faultline's DROP rules
//	evidence.op_errors(during_fault=True, min=1)  client ops failing or timing out (during a fault)
//	evidence.process_state(state="T", min=1)      processes read back from /proc in state ("gone" for killed)
var Module = &starlarkstruct.Module{
	Name: "evidence",
	Members: starlark.StringDict{
		"landed":         starlark.NewBuiltin("evidence.landed", landedBuiltin),
		"iptables_drops": starlark.NewBuiltin("evidence.iptables_drops", dropsBuiltin),
		"op_errors":      starlark.NewBuiltin("evidence.op_errors", opErrorsBuiltin),
		"process_state":  starlark.NewBuiltin("evidence.process_state", processStateBuiltin),
	},
}

// Value is one declaration as a Starlark value (type "evidence").
type Value struct{ decl *nemesis.Decl }

// Decl returns the declaration v holds.
func (v *Value) Decl() *nemesis.Decl { return v.decl }

// String implements starlark.Value.
func (v *Value) String() string { return v.decl.String() }

// Type implements starlark.Value.
func (v *Value) Type() string { return "evidence" }

// Freeze implements starlark.Value; a declaration is immutable.
func (v *Value) Freeze() {}

// Truth implements starlark.Value.
func (v *Value) Truth() starlark.Bool { return starlark.True }

// Hash implements starlark.Value; declarations are not hashable.
func (v *Value) Hash() (uint32, error) { return 0, errors.New("unhashable type: evidence") }

// DeclsFromStarlark accepts one declaration, a list of them, or None.
func DeclsFromStarlark(v starlark.Value) ([]*nemesis.Decl, error) {
	switch v := v.(type) {
	case nil, starlark.NoneType:
		return nil, nil
	case *Value:
		return []*nemesis.Decl{v.decl}, nil
	case *starlark.List:
		out := make([]*nemesis.Decl, 0, v.Len())
		for i := range v.Len() {
			d, ok := v.Index(i).(*Value)
			if !ok {
				return nil, fmt.Errorf("landing[%d]: want evidence.*(...), got %s", i, v.Index(i).Type())
			}
			out = append(out, d.decl)
		}
		return out, nil
	}
	return nil, fmt.Errorf("landing: want evidence.*(...) or a list of them, got %s", v.Type())
}

func minArg(b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple, extra ...any) (int64, error) {
	var m int64 = 1
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, append([]any{"min?", &m}, extra...)...); err != nil {
		return 0, err
	}
	if m < 0 {
		return 0, fmt.Errorf("%s: min must not be negative", b.Name())
	}
	return m, nil
}

func landedBuiltin(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
		return nil, err
	}
	return &Value{&nemesis.Decl{Kind: "landed", Min: 1}}, nil
}

func dropsBuiltin(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	m, err := minArg(b, args, kwargs)
	if err != nil {
		return nil, err
	}
	return &Value{&nemesis.Decl{Kind: "iptables_drops", Min: m}}, nil
}

func opErrorsBuiltin(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	during := true
	m, err := minArg(b, args, kwargs, "during_fault?", &during)
	if err != nil {
		return nil, err
	}
	return &Value{&nemesis.Decl{Kind: "op_errors", Min: m, DuringFault: during}}, nil
}

func processStateBuiltin(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	state := "T"
	m, err := minArg(b, args, kwargs, "state?", &state)
	if err != nil {
		return nil, err
	}
	if state == "" {
		return nil, fmt.Errorf("%s: empty state", b.Name())
	}
	return &Value{&nemesis.Decl{Kind: "process_state", Min: m, State: state}}, nil
}
