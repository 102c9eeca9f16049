package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.starlark.net/syntax"

	"github.com/faultline/faultline/plans"
)

// runCompile runs `faultline compile` in-process (the lead registers the
// command on the root; the test drives it directly).
func runCompile(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	cmd := newCompileCmd()
	var stdout, stderr bytes.Buffer
	cmd.SetOut(&stdout)
	cmd.SetErr(&stderr)
	cmd.SetArgs(args)
	code := exitOK
	if err := cmd.Execute(); err != nil {
		code = exitCodeOf(err, &stderr)
	}
	return code, stdout.String(), stderr.String()
}

// examplePlan returns the text of an example plan; a missing file fails.
func examplePlan(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "examples", "plans", name))
	if err != nil {
		t.Fatalf("test data missing: %v", err)
	}
	return string(b)
}

// cleanPlan is etcd-register with ```starlark overrides for what S2 says in
// words the vocabulary does not map, so every scenario compiles.
func cleanPlan(t *testing.T) string {
	t.Helper()
	src := examplePlan(t, "etcd-register.md")
	const anchor = "§7.M: not applicable"
	if !strings.Contains(src, anchor) {
		t.Fatal("etcd-register.md changed: no S2 §7.M line to anchor the override")
	}
	block := "```starlark\nworkload = gen.stagger(\"20ms\", put_one_key())\n```\n\n" +
		"```starlark\nchecker = check.compose([recovery_within(\"10s\")])\n```\n\n"
	return strings.Replace(src, anchor, block+anchor, 1)
}

func TestCompileCmd(t *testing.T) {
	dir := t.TempDir()
	plan := filepath.Join(dir, "etcd.md")
	if err := os.WriteFile(plan, []byte(cleanPlan(t)), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "gen")
	code, stdout, stderr := runCompile(t, plan, "-o", out, "--suite", filepath.Join(dir, "suites", "etcd.star"))
	if code != exitOK {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	for _, name := range []string{"S1_linearizable_register_under_partition_and_kill.star", "S2_leader_reelected_within_10s_after_kill.star"} {
		b, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			t.Fatalf("not written: %v\n%s", err, stdout)
		}
		if _, err := (&syntax.FileOptions{}).Parse(name, b, 0); err != nil {
			t.Errorf("%s does not parse: %v", name, err)
		}
		if !strings.Contains(string(b), `load("../suites/etcd.star", "suite")`) {
			t.Errorf("%s: suite not loaded relative to the output:\n%s", name, b)
		}
		if !strings.Contains(stdout, "wrote "+filepath.Join(out, name)) {
			t.Errorf("stdout does not report %s:\n%s", name, stdout)
		}
	}

	// A second run overwrites its own files; a hand-written one is kept.
	hand := filepath.Join(out, "S1_linearizable_register_under_partition_and_kill.star")
	if err := os.WriteFile(hand, []byte("# mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr = runCompile(t, plan, "-o", out)
	if code != exitOK {
		t.Fatalf("rerun: exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	if b, _ := os.ReadFile(hand); string(b) != "# mine\n" {
		t.Errorf("hand-written file overwritten: %q", b)
	}
	if b, err := os.ReadFile(hand + ".new"); err != nil || !strings.HasPrefix(string(b), plans.ProvenanceMarker) {
		t.Errorf(".new not written (%v): %q", err, b)
	}
	if !strings.Contains(stdout, "kept "+hand) || !strings.Contains(stdout, "wrote "+filepath.Join(out, "S2_leader_reelected_within_10s_after_kill.star")) {
		t.Errorf("rerun output:\n%s", stdout)
	}
}

func TestCompileCmdRejects(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name    string
		args    []string
		code    int
		stdout  string // a line the output must hold
		written bool
	}{
		{"unmapped fields", []string{filepath.Join("..", "..", "examples", "plans", "boundary-arms.md")}, exitRejected,
			"boundary-arms.md:136: [S1/metrics Oracle] oracle names predicate", true},
		{"halt rule", []string{filepath.Join("..", "..", "examples", "plans", "vague-oracles.md")}, exitRejected,
			`oracle "logs look fine" is not machine-checkable`, false},
		{"missing plan", []string{filepath.Join(dir, "nope.md")}, exitRejected, "", false},
		{"no args", nil, exitUsage, "", false},
		{"bad tier", []string{"x.md", "--tier", "soak"}, exitUsage, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(dir, tt.name)
			code, stdout, stderr := runCompile(t, append(tt.args, "-o", out)...)
			if code != tt.code || !strings.Contains(stdout, tt.stdout) {
				t.Fatalf("exit %d, want %d; stdout lacks %q?\nstdout: %s\nstderr: %s", code, tt.code, tt.stdout, stdout, stderr)
			}
			entries, _ := os.ReadDir(out)
			if got := len(entries) > 0; got != tt.written {
				t.Errorf("files written = %v, want %v (%d entries)", got, tt.written, len(entries))
			}
		})
	}
}
