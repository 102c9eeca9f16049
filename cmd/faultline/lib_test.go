package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// libPlan lays out examples/byo-http with its client moved into a library:
// the suite loads @kv//kv.star. It returns the plan, the suite, a good
// library and one whose kv.star tries to leave its root.
func libPlan(t *testing.T) (plan, suite, good, bad string) {
	t.Helper()
	dir := t.TempDir()
	src := func(name string) string {
		data, err := os.ReadFile(filepath.Join("..", "..", "examples", "byo-http", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	suiteSrc := src("faultline.star")
	if !strings.Contains(suiteSrc, `load("kv.star", "kv_client")`) {
		t.Fatal("examples/byo-http/faultline.star no longer loads kv.star: update this test")
	}
	files := map[string]string{
		"plan.md":        src("plan.md"),
		"faultline.star": strings.Replace(suiteSrc, `load("kv.star", "kv_client")`, `load("@kv//kv.star", "kv_client")`, 1),
		"kvlib/kv.star":  src("kv.star"),
		"badlib/kv.star": "# reaches for a file outside the library\n" + `load("../secret.star", "x")` + "\n",
		"secret.star":    "x = 1\n",
	}
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "plan.md"), filepath.Join(dir, "faultline.star"), filepath.Join(dir, "kvlib"), filepath.Join(dir, "badlib")
}

// TestCompileWithLib: compile --lib loads every file it wrote with the
// roots given, so a library load that leaves its root is refused there,
// naming the library file and line.
func TestCompileWithLib(t *testing.T) {
	plan, suite, good, bad := libPlan(t)
	out := filepath.Join(filepath.Dir(plan), "harness")
	code, stdout, stderr := runCLI(t, "compile", plan, "--out", out, "--suite", suite, "--lib", "kv="+good)
	if code != 0 || !strings.Contains(stdout, "loads with the --lib roots") {
		t.Fatalf("compile --lib kv=good: exit %d\n%s\n%s", code, stdout, stderr)
	}
	code, stdout, stderr = runCLI(t, "compile", plan, "--out", out, "--suite", suite, "--lib", "kv="+bad)
	if code != exitRejected || !strings.Contains(stdout+stderr, "leaves the library root @kv") || !strings.Contains(stdout+stderr, "kv.star:2") {
		t.Fatalf("compile --lib kv=bad: exit %d, want %d naming kv.star:2 and the escape\n%s\n%s", code, exitRejected, stdout, stderr)
	}
}

// TestProbeWithLib: probe --lib loads the plan's scenarios with its suite
// and the roots given before it prints the capability matrix.
func TestProbeWithLib(t *testing.T) {
	plan, suite, good, bad := libPlan(t)
	code, stdout, stderr := runCLI(t, "probe", plan, "--local", "--suite", suite, "--lib", "kv="+good)
	if code == exitRejected || code == exitUsage || !strings.Contains(stdout, "scenarios load with suite") || !strings.Contains(stdout, "Requirement") {
		t.Fatalf("probe --lib kv=good: exit %d\n%s\n%s", code, stdout, stderr)
	}
	code, stdout, stderr = runCLI(t, "probe", plan, "--local", "--suite", suite, "--lib", "kv="+bad)
	if code != exitRejected || !strings.Contains(stdout+stderr, "leaves the library root @kv") {
		t.Fatalf("probe --lib kv=bad: exit %d, want %d and the escape named\n%s\n%s", code, exitRejected, stdout, stderr)
	}
}
