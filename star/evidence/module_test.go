package evidence

import (
	"testing"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"

	"github.com/faultline/faultline/nemesis"
)

// eval runs a Starlark expression with the evidence module.
func eval(t *testing.T, expr string) (starlark.Value, error) {
	t.Helper()
	return starlark.EvalOptions(&syntax.FileOptions{}, &starlark.Thread{Name: "test"}, "test.star", expr,
		starlark.StringDict{"evidence": Module})
}

func TestModuleErrors(t *testing.T) {
	for _, expr := range []string{
		`evidence.iptables_drops(min=-1)`,
		`evidence.process_state(state="")`,
		`evidence.landed(min=1)`,
	} {
		if _, err := eval(t, expr); err == nil {
			t.Errorf("%s: want an error", expr)
		}
	}
}

// TestDecls: each builtin declares what nemesis.Evaluate judges, and
// landing= takes one declaration, a list of them or None.
func TestDecls(t *testing.T) {
	v, err := eval(t, `[evidence.landed(), evidence.iptables_drops(min=3), evidence.op_errors(during_fault=False), evidence.process_state(state="gone")]`)
	if err != nil {
		t.Fatal(err)
	}
	ds, err := DeclsFromStarlark(v)
	if err != nil {
		t.Fatal(err)
	}
	want := []nemesis.Decl{
		{Kind: "landed", Min: 1},
		{Kind: "iptables_drops", Min: 3},
		{Kind: "op_errors", Min: 1},
		{Kind: "process_state", Min: 1, State: "gone"},
	}
	if len(ds) != len(want) {
		t.Fatalf("decls %v, want %v", ds, want)
	}
	for i, d := range ds {
		if *d != want[i] {
			t.Errorf("decl %d: %+v, want %+v", i, *d, want[i])
		}
	}
	if got := ds[1].String(); got != "evidence.iptables_drops(min=3)" {
		t.Errorf("String: %q", got)
	}
	one, _ := eval(t, `evidence.landed()`)
	if ds, err := DeclsFromStarlark(one); err != nil || len(ds) != 1 {
		t.Errorf("one declaration: %v %v", ds, err)
	}
	if ds, err := DeclsFromStarlark(starlark.None); err != nil || ds != nil {
		t.Errorf("None: %v %v", ds, err)
	}
	for _, bad := range []string{`[1]`, `"landed"`} {
		v, _ := eval(t, bad)
		if _, err := DeclsFromStarlark(v); err == nil {
			t.Errorf("%s: want an error", bad)
		}
	}
}
