package plans

import (
	"strings"
	"testing"

	"go.starlark.net/syntax"

	"github.com/faultline/faultline/internal/hostile"
	"github.com/faultline/faultline/star/dialect"
)

// TestHostileCorpusInPlans feeds every input of the hostile corpus through
// a plan: as its file name, its scenario's heading, and its workload,
// faults and oracle text. Parse, Lint and Compile never panic; every
// compiled file parses (or compile reports it unparsable, an error); and
// no plan text becomes a call in the compiled Starlark.
func TestHostileCorpusInPlans(t *testing.T) {
	// The check itself finds an injected call.
	if f, err := dialect.Options.Parse("x.star", "x = \"a\"\nfail(\"pwned\")\n", 0); err != nil || injectedCall(f) == "" {
		t.Fatalf("injectedCall misses fail(\"pwned\") (%v)", err)
	}
	marker := hostile.Marker(t)
	for _, in := range hostile.Inputs(t, marker) {
		t.Run(in.Name, func(t *testing.T) {
			cases := map[string]struct {
				file string
				src  string
			}{
				"file name": {in.Value + ".md", unitPlan{}.source()},
				"heading":   {"plan.md", strings.Replace(unitPlan{}.source(), "### Scenario S1: unit", "### Scenario S1: unit "+in.Value, 1)},
				"workload":  {"plan.md", unitPlan{workload: "register " + in.Value}.source()},
				"faults":    {"plan.md", unitPlan{faults: "partition " + in.Value}.source()},
				"oracle":    {"plan.md", unitPlan{oracle: "linearizable " + in.Value}.source()},
			}
			for where, c := range cases {
				p, _ := Parse(c.file, []byte(c.src))
				Lint(p)
				cs, ds := Compile(p, CompileOptions{Source: []byte(c.src)})
				for _, sc := range cs {
					f, err := dialect.Options.Parse(sc.File, sc.Source, 0)
					if err != nil {
						if !unparsableReported(ds, sc.ID) {
							t.Errorf("%s: %s does not parse and compile did not say so: %v", where, sc.File, err)
						}
						continue
					}
					if call := injectedCall(f); call != "" {
						t.Errorf("%s: plan text became code in %s: %s", where, sc.File, call)
					}
				}
			}
		})
	}
}

// injectedCall returns the first call in f of a function a corpus payload
// names (fail, or touch as a Starlark name), or "".
func injectedCall(f *syntax.File) string {
	found := ""
	syntax.Walk(f, func(n syntax.Node) bool {
		if c, ok := n.(*syntax.CallExpr); ok && found == "" {
			if id, ok := c.Fn.(*syntax.Ident); ok && (id.Name == "fail" || id.Name == "touch") {
				for _, a := range c.Args {
					if lit, ok := a.(*syntax.Literal); ok && lit.Value == "pwned" {
						found = id.Name + "(\"pwned\")"
					}
				}
			}
		}
		return found == ""
	})
	return found
}
