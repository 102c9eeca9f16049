package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faultline/faultline/plans"
)

// A9: by default a plan run writes only its session directory; author mode
// writes only the declared target, never over a hand-written file.
func TestAuthorModeWritesOnlyTargets(t *testing.T) {
	plan, _ := filepath.Abs(filepath.Join("..", "..", "examples", "inprocess", "plan.md"))
	repo := t.TempDir()
	t.Chdir(repo)
	out := filepath.Join(repo, "sessions")

	if code, stdout, stderr := runCLI(t, "run", plan, "--seed", "1", "--out", out); code != exitFail {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	entries, _ := os.ReadDir(repo)
	if len(entries) != 1 || entries[0].Name() != "sessions" {
		t.Fatalf("default mode wrote outside the session root: %v", entries)
	}

	target := filepath.Join(repo, "tests", "faultline", "S1_register_test.star")
	if code, _, stderr := runCLI(t, "run", plan, "--seed", "1", "--out", out, "--author"); code != exitFail {
		t.Fatalf("author run: exit %d\n%s", code, stderr)
	}
	got, err := os.ReadFile(target)
	if err != nil || !bytes.HasPrefix(got, []byte(plans.ProvenanceMarker)) || !strings.Contains(string(got), "scenario=S1") {
		t.Fatalf("target: %q (%v)", got, err)
	}

	// A hand-written file at the target is never overwritten.
	if err := os.WriteFile(target, []byte("# mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, _ := runCLI(t, "run", plan, "--seed", "1", "--out", out, "--author"); code != exitFail {
		t.Fatalf("second author run: exit %d", code)
	}
	if mine, _ := os.ReadFile(target); string(mine) != "# mine\n" {
		t.Fatalf("hand-written target overwritten: %q", mine)
	}
	if _, err := os.Stat(filepath.Join(repo, "tests", "faultline", "S1_register_test.new.star")); err != nil {
		t.Fatalf("no sibling .new file: %v", err)
	}
	if _, err := os.Stat(filepath.Join(repo, ".git")); err == nil {
		t.Fatal("author mode created a git repository")
	}
}
