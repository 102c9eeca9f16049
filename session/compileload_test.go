package session

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faultline/faultline/plans"
)

// TestExamplePlansCompileToLoadableScripts compiles every example plan with
// the suite a run would use and loads each compiled scenario as run does:
// a plan the compiler maps must give Starlark that loads, not only parses
// (list-append's key count once compiled to an argument it does not take).
func TestExamplePlansCompileToLoadableScripts(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join("..", "examples", "*", "plan.md"))
	more, _ := filepath.Glob(filepath.Join("..", "examples", "plans", "*.md"))
	paths = append(paths, more...)
	if len(paths) < 5 {
		t.Fatalf("found only %v", paths)
	}
	// Plans whose suite is not beside them: the suites their tests run with.
	suites := map[string]string{
		"etcd-register.md": filepath.Join("..", "examples", "plans", "etcd.star"),
		"boundary-arms.md": filepath.Join("..", "examples", "inprocess", "faultline.star"),
	}
	for _, path := range paths {
		t.Run(filepath.Base(filepath.Dir(path))+"/"+filepath.Base(path), func(t *testing.T) {
			p, ds, err := plans.Load(path)
			if err != nil || plans.HasErrors(ds) {
				t.Skipf("does not lint (%v %v): the lint tests judge it", err, ds)
			}
			suite, err := PlanSuite(suites[filepath.Base(path)], path, p)
			if err != nil {
				t.Fatalf("suite: %v", err)
			}
			out := t.TempDir()
			load, err := SuiteLoadPath(out, suite)
			if err != nil {
				t.Fatal(err)
			}
			err = CompilePlan(context.Background(), io.Discard, path, out, plans.CompileOptions{Tier: "smoke", Suite: load}, nil)
			if err != nil && !strings.Contains(err.Error(), "could not be mapped") {
				t.Fatalf("compile: %v", err)
			}
			// A field the compiler could not map is marked UNMAPPED in its
			// file, which is meant not to load: the others must.
			var files []string
			all, _ := filepath.Glob(filepath.Join(out, "*.star"))
			for _, f := range all {
				if src, _ := os.ReadFile(f); !strings.Contains(string(src), "UNMAPPED") {
					files = append(files, f)
				}
			}
			if len(files) == 0 {
				t.Fatal("no mapped scenario file written")
			}
			if err := CheckLoads(context.Background(), io.Discard, files, nil); err != nil {
				t.Fatalf("a compiled scenario does not load: %v", err)
			}
		})
	}
}
