package plans

import (
	"slices"
	"strings"
	"testing"

	"go.starlark.net/syntax"

	"github.com/faultline/faultline/stdlib"
)

// TestWorkloadArgsExist: every argument the compiler writes into a
// workload call is a parameter of that @stdlib//workloads.star function,
// so a compiled plan loads (list_append once got keys = N, which it does
// not take).
func TestWorkloadArgsExist(t *testing.T) {
	src, err := stdlib.FS.ReadFile("workloads.star")
	if err != nil {
		t.Fatal(err)
	}
	f, err := syntax.LegacyFileOptions().Parse("workloads.star", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	params := map[string][]string{}
	for _, st := range f.Stmts {
		def, ok := st.(*syntax.DefStmt)
		if !ok {
			continue
		}
		params[def.Name.Name] = []string{}
		for _, p := range def.Params {
			switch p := p.(type) {
			case *syntax.Ident:
				params[def.Name.Name] = append(params[def.Name.Name], p.Name)
			case *syntax.BinaryExpr:
				params[def.Name.Name] = append(params[def.Name.Name], p.X.(*syntax.Ident).Name)
			}
		}
	}
	for _, m := range workloadModels {
		if _, ok := params[m.fn]; !ok {
			t.Errorf("model %s: no function %s in workloads.star", m.model, m.fn)
		}
	}
	for fn, arg := range keyArgs {
		if !slices.Contains(params[fn], arg) {
			t.Errorf("%s takes no %s (it takes %s)", fn, arg, strings.Join(params[fn], ", "))
		}
	}
	for fn := range opsPerKey {
		if !slices.Contains(params[fn], "ops_per_key") {
			t.Errorf("%s takes no ops_per_key", fn)
		}
	}
}

// TestWorkloadParamNotTaken: a number of keys or ops per key given to a
// workload without such a parameter is a warning naming it, and the call
// stays loadable.
func TestWorkloadParamNotTaken(t *testing.T) {
	for _, text := range []string{"bank transfers over 5 keys", "list-append over 4 keys, 30 ops per key"} {
		t.Run(text, func(t *testing.T) {
			c, ds := compileUnit(t, unitPlan{workload: text, oracle: "set checker, counter checker"})
			if strings.Contains(c.Source, "keys = 5") || strings.Contains(c.Source, "ops_per_key") {
				t.Errorf("generated a parameter the workload does not take:\n%s", c.Source)
			}
			warned := false
			for _, d := range ds {
				warned = warned || (d.Field == FieldWorkload && d.Severity == Warning && strings.Contains(d.Msg, "ignored"))
			}
			if !warned {
				t.Errorf("no warning: %v", ds)
			}
		})
	}
}
