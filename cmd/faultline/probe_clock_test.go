package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/faultline/faultline/internal/clitest"
)

// clockPlan is the demo plan with its Faults replaced by faults; it
// returns the plan's path and "plan.md:LINE" of the Faults field.
func clockPlan(t *testing.T, faults string) (string, string) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "..", "examples", "plans", "demo.md"))
	if err != nil {
		t.Fatal(err)
	}
	plan := regexp.MustCompile(`(?m)^- \*\*Faults:\*\* .*$`).ReplaceAllString(string(src), "- **Faults:** "+faults)
	path := filepath.Join(t.TempDir(), "plan.md")
	if err := os.WriteFile(path, []byte(plan), 0o644); err != nil {
		t.Fatal(err)
	}
	line := strings.Count(plan[:strings.Index(plan, "- **Faults:** ")], "\n") + 1
	return path, "plan.md:" + strconv.Itoa(line)
}

// A plan with clock and netem faults probed for --local nodes: both are
// refused up front, saying why, and the scenario would be INCONCLUSIVE-env.
func TestProbeClockNetemLocal(t *testing.T) {
	plan, _ := clockPlan(t, "clock bump +5s on one node at T+1s for 2s; packet reordering on the leader at T+4s for 2s")
	code, stdout, stderr := runCLI(t, "probe", plan, "--local")
	for _, want := range []string{
		"Nodes:\n- local nodes: processes on this host's kernel",
		"- clock faults: no — local nodes run on the controller's own kernel",
		"- netem (reorder, duplicate, corrupt): no — local nodes' links go through faultline's proxy mesh",
		"S1 would be INCONCLUSIVE-env: environment lacks clock (",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("probe output lacks %q:\n%s\n%s", want, stdout, stderr)
		}
	}
	if code != exitUnknown {
		t.Errorf("exit %d, want %d", code, exitUnknown)
	}
}

// A clock or netem clause with parameters the fault refuses fails lint at
// its line.
func TestLintClockNetemParams(t *testing.T) {
	plan, at := clockPlan(t, "time drift at rate 1.5 on one node at T+1s for 2s; duplicate packets 150% on the leader")
	code, stdout, _ := runCLI(t, "lint", plan)
	for _, want := range []string{
		at + `: [S1 Faults] clock in "time drift at rate 1.5 on one node at T+1s for 2s" cannot be injected as written: clock skew: rate 1.5: want the clock's speed from 0.9 to 1.1`,
		at + `: [S1 Faults] netem in "duplicate packets 150% on the leader" cannot be injected as written: netem duplicate: 1.5, want a probability from 0 to 1`,
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("lint output lacks %q:\n%s", want, stdout)
		}
	}
	if code != exitRejected {
		t.Errorf("exit %d, want %d", code, exitRejected)
	}
}

// A Faults clause the compiler cannot read fails lint at its line, naming
// the phrases it does read; before, lint said "ok to run" and the run had no
// nemesis. The same plan with a fault the compiler reads lints ok.
func TestLintUnknownFaultPhrase(t *testing.T) {
	plan, at := clockPlan(t, "partition isolating one node at T+1s for 2s; bitflip the WAL of one node at T+4s")
	code, stdout, _ := runCLI(t, "lint", plan)
	want := at + `: [S1 Faults] fault phrase "bitflip the WAL of one node at T+4s" is not in the vocabulary`
	if !strings.Contains(stdout, want) || !strings.Contains(stdout, "kill (kill -9, SIGKILL, hard kill, crash)") || strings.Contains(stdout, "ok to run") {
		t.Errorf("lint output lacks %q and the phrases:\n%s", want, stdout)
	}
	if code != exitRejected {
		t.Errorf("exit %d, want %d", code, exitRejected)
	}
	plan, _ = clockPlan(t, "partition isolating one node at T+1s for 2s; kill -9 of one node at T+4s, restart after 2s")
	suite := filepath.Join("..", "..", "examples", "demo", "faultline.star")
	if code, stdout, stderr := runCLI(t, "lint", plan, "--suite", suite); code != exitOK || !strings.Contains(stdout, "ok to run") {
		t.Errorf("a plan of known faults: exit %d:\n%s%s", code, stdout, stderr)
	}
}

// A run of a clock plan on --local nodes refuses the scenario before it
// starts (INCONCLUSIVE-env), and the session log's matrix says why.
func TestRunClockPlanLocalRefusedUpFront(t *testing.T) {
	plan, _ := clockPlan(t, "clock bump +5s on one node at T+1s for 2s")
	out := filepath.Join(t.TempDir(), "out")
	suite := filepath.Join("..", "..", "examples", "demo", "faultline.star")
	_, stdout, stderr := runCLI(t, "run", plan, "--local", "--suite", suite, "--out", out, "--yes")
	if !clitest.HasRow(stdout, "S1", "INCONCLUSIVE-env") || !strings.Contains(stdout, "capability missing before the run: clock") {
		t.Fatalf("want S1 INCONCLUSIVE-env for the clock:\n%s\n%s", stdout, stderr)
	}
	logs, _ := filepath.Glob(filepath.Join(out, "*", "*", "session-log.md"))
	if len(logs) != 1 {
		t.Fatalf("session logs: %v", logs)
	}
	text, _ := os.ReadFile(logs[0])
	if !strings.Contains(string(text), "- clock faults: no — local nodes run on the controller's own kernel") {
		t.Errorf("the session log's matrix does not say why:\n%s", text)
	}
}
