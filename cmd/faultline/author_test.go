package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faultline/faultline/internal/clitest"
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

// A Target test file outside the repository is refused by lint (exit 3) with
// the diagnostic run --author refuses it with, at the Target field's line, and
// neither writes anything outside the repository.
func TestLintRejectsTargetOutsideRepository(t *testing.T) {
	root := t.TempDir()
	repo := filepath.Join(root, "repo")
	if err := os.MkdirAll(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"plan.md", "faultline.star"} {
		data, err := os.ReadFile(filepath.Join("..", "..", "examples", "inprocess", name))
		if err != nil {
			t.Fatal(err)
		}
		if name == "plan.md" {
			old := []byte("`tests/faultline/S1_register_test.star`")
			if !bytes.Contains(data, old) {
				t.Fatalf("the example plan no longer declares %s", old)
			}
			data = bytes.Replace(data, old, []byte("`../outside/S1_register_test.star`"), 1)
		}
		if err := os.WriteFile(filepath.Join(repo, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	plan := filepath.Join(repo, "plan.md")
	data, _ := os.ReadFile(plan)
	before, _, _ := bytes.Cut(data, []byte("../outside/"))
	want := fmt.Sprintf(`%s:%d: [S1 Target test file] target "../outside/S1_register_test.star" must be a path inside the repository`,
		plan, bytes.Count(before, []byte("\n"))+1)
	clitest.Binary(t) // built from the module, before leaving it
	t.Chdir(repo)

	code, stdout, stderr := clitest.Run(t, "lint", plan)
	if code != exitRejected || !strings.Contains(stdout, want) {
		t.Fatalf("lint: exit %d, want %d and\n%s\ngot:\n%s%s", code, exitRejected, want, stdout, stderr)
	}
	code, _, stderr = runCLI(t, "run", plan, "--seed", "1", "--out", filepath.Join(repo, "sessions"), "--author")
	if code != exitRejected || !strings.Contains(stderr, want) {
		t.Fatalf("run --author: exit %d, want %d and\n%s\ngot:\n%s", code, exitRejected, want, stderr)
	}
	if _, err := os.Stat(filepath.Join(root, "outside")); !os.IsNotExist(err) {
		t.Fatalf("something was written outside the repository: %v", err)
	}
}
