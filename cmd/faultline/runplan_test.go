package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/faultline/faultline/internal/clitest"
)

// A whole plan runs end to end on in-process systems: lint, compile, run,
// verdicts from measured evidence, the findings report, the exit code.
func TestRunPlanEndToEnd(t *testing.T) {
	out := t.TempDir()
	plan := filepath.Join("..", "..", "examples", "inprocess", "plan.md")
	junit := filepath.Join(t.TempDir(), "junit.xml")
	code, stdout, stderr := runCLI(t, "run", plan, "--seed", "42", "--out", out, "--junit", junit)
	if code != exitFail {
		t.Fatalf("exit %d, want %d (a stale read found)\n%s\n%s", code, exitFail, stdout, stderr)
	}
	for _, want := range []string{"S1", "PASS-smoke", "S2", "FAIL-reproducible", "session: FAIL"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("summary lacks %q:\n%s", want, stdout)
		}
	}
	sessions, _ := filepath.Glob(filepath.Join(out, "inprocess-register", "*"))
	if len(sessions) != 1 {
		t.Fatalf("want one session dir, got %v", sessions)
	}
	dir := sessions[0]
	report, err := os.ReadFile(filepath.Join(dir, "findings", "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## Summary", "**FAIL**", "| S1 |", "PASS-smoke", "| S2 |", "FAIL-reproducible",
		"### Finding F1", "## Release-budget disclosures", "an in-process example has nothing to soak", "## Green-but-broken check"} {
		if !strings.Contains(string(report), want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	for _, f := range []string{"findings/S1.md", "findings/S2.md", "session-log.md", "artifacts/S1/history.jsonl",
		"artifacts/S2/history.jsonl", "artifacts/S1/plot.svg", "artifacts/harness/S1_correct_register_is_linearizable.star"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("session lacks %s", f)
		}
	}
	if x, err := os.ReadFile(junit); err != nil || !strings.Contains(string(x), `failures="1"`) {
		t.Errorf("junit: %s (%v)", x, err)
	}
	var res struct {
		SessionVerdict string `json:"session_verdict"`
		ExitCode       int    `json:"exit_code"`
	}
	data, _ := os.ReadFile(filepath.Join(dir, "results.json"))
	if err := json.Unmarshal(data, &res); err != nil || res.SessionVerdict != "FAIL" || res.ExitCode != exitFail {
		t.Fatalf("results.json: %s (%v)", data, err)
	}
}

// The halt rule stops a plan before anything runs: exit 3, no session.
func TestRunPlanHaltRule(t *testing.T) {
	out := t.TempDir()
	code, _, stderr := runCLI(t, "run", filepath.Join("..", "..", "examples", "plans", "vague-oracles.md"), "--out", out)
	if code != exitRejected || !strings.Contains(stderr, "halt rule") {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	if entries, _ := os.ReadDir(out); len(entries) != 0 {
		t.Errorf("a halted plan wrote a session: %v", entries)
	}
}

// A8: a session killed mid-run keeps the findings of the scenarios that
// finished and a readable history prefix of the one that was running.
func TestRunPlanKilledKeepsFinishedScenarios(t *testing.T) {
	out := t.TempDir()
	plan, _ := filepath.Abs(filepath.Join("..", "..", "examples", "inprocess", "plan.md"))
	cmd := faultlineCmd("run", plan, "--realtime", "--seed", "1", "--out", out)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	var s1 string
	for i := 0; i < 600 && s1 == ""; i++ {
		if m, _ := filepath.Glob(filepath.Join(out, "inprocess-register", "*", "findings", "S1.md")); len(m) == 1 {
			s1 = m[0]
		}
		time.Sleep(50 * time.Millisecond)
	}
	if s1 == "" {
		t.Fatal("S1 never finished")
	}
	time.Sleep(1500 * time.Millisecond) // let S2 journal some ops
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	text, err := os.ReadFile(s1)
	if err != nil || !strings.HasPrefix(string(text), "# S1: ") {
		t.Fatalf("S1.md after the kill: %q (%v)", text, err)
	}
	hist := filepath.Join(filepath.Dir(filepath.Dir(s1)), "artifacts", "S2", "history.jsonl")
	res, err := faultlineCmd("check", "--model", "cas-register", hist).CombinedOutput()
	if !strings.Contains(string(res), "S2/history.jsonl:") || strings.Contains(string(res), "REJECTED") {
		t.Fatalf("check of S2's prefix: %v\n%s", err, res)
	}
}

// A7: a missing capability makes only the scenarios that need it
// INCONCLUSIVE-env, with a one-line reason; the others run.
func TestRunPlanMissingCapabilityIsScoped(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join("..", "..", "examples", "inprocess", "plan.md"))
	if err != nil {
		t.Fatal(err)
	}
	plan := strings.Replace(string(src), "| faultline's in-process register |",
		"| frobnicator-xyz | 1.0 | S2 | apt-get install frobnicator-xyz |\n| faultline's in-process register |", 1)
	suite, err := os.ReadFile(filepath.Join("..", "..", "examples", "inprocess", "faultline.star"))
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string]string{"plan.md": plan, "faultline.star": string(suite)} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, stdout, stderr := runCLI(t, "run", filepath.Join(dir, "plan.md"), "--seed", "3", "--out", filepath.Join(dir, "out"), "--yes")
	if !clitest.HasRow(stdout, "S1", "PASS-smoke") || !clitest.HasRow(stdout, "S2", "INCONCLUSIVE-env") {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "frobnicator-xyz") {
		t.Errorf("the INCONCLUSIVE-env reason does not name the capability:\n%s", stdout)
	}
	logs, _ := filepath.Glob(filepath.Join(dir, "out", "*", "*", "session-log.md"))
	if len(logs) != 1 {
		t.Fatalf("session logs: %v", logs)
	}
	text, _ := os.ReadFile(logs[0])
	for _, want := range []string{"## Toolbox discovered", "## Environment capability matrix", "frobnicator-xyz", "## Preconditions check"} {
		if !strings.Contains(string(text), want) {
			t.Errorf("session log lacks %q", want)
		}
	}
}

// The example plan that needs a capability most machines lack: with the
// capability declared absent, its scenario is INCONCLUSIVE-env, the other
// passes, and the session is DONE_WITH_CONCERNS (exit 2).
func TestExampleNeedsCapability(t *testing.T) {
	plan := filepath.Join("..", "..", "examples", "inprocess", "needs-capability.md")
	code, stdout, stderr := runCLI(t, "run", plan, "--seed", "1", "--yes", "--assume", "dm-flakey=absent", "--out", t.TempDir())
	if code != exitUnknown || !clitest.HasRow(stdout, "S2", "INCONCLUSIVE-env") || !strings.Contains(stdout, "DONE_WITH_CONCERNS") {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
}

// A checker that cannot tell pass from fail on its workload (stats alone on
// a register with stale reads) is caught by the sensitivity audit: the
// scenario does not pass, the mutant it accepted is cited, and SA1 shows in
// the green-but-broken list.
func TestSensitivityAuditCatchesMismatchedChecker(t *testing.T) {
	out := t.TempDir()
	plan := filepath.Join("..", "..", "examples", "inprocess", "weak-oracle.md")
	code, stdout, stderr := runCLI(t, "run", plan, "--seed", "42", "--out", out)
	if code != exitUnknown || !clitest.HasRow(stdout, "S1", "INCONCLUSIVE-oracle-too-weak") {
		t.Fatalf("exit %d, want %d with S1 INCONCLUSIVE-oracle-too-weak\n%s\n%s", code, exitUnknown, stdout, stderr)
	}
	finding, err := os.ReadFile(filepath.Join(clitest.OnlySession(t, filepath.Join(out, "weak-oracle")), "findings", "S1.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"escaped mutant: ", "- **SA1 Checker rejects wrong histories**: the checker accepted", "- [ ] SA1 Checker rejects wrong histories — fail: see Why"} {
		if !strings.Contains(string(finding), want) {
			t.Errorf("findings/S1.md lacks %q:\n%s", want, finding)
		}
	}
}

// §7.M.S arms run (issue 11 item 8): a scenario split into arms runs each
// arm under its own Starlark name (S1_api, no slash), each gets its own
// verdict, findings file and artifacts, and the scenario's row aggregates
// them by the downgrade rule. The in-process register has no tenant check,
// so the tenant-isolation arm fails and the linearizable arm passes.
func TestRunPlanArms(t *testing.T) {
	out := t.TempDir()
	plan := filepath.Join("..", "..", "plans", "testdata", "tenant-isolation.md")
	suite := filepath.Join("..", "..", "examples", "inprocess", "faultline.star")
	code, stdout, stderr := runCLI(t, "run", plan, "--seed", "42", "--out", out, "--suite", suite, "--scenario", "S1", "--reruns", "1")
	if code != exitFail || !clitest.HasRow(stdout, "S1/api", "FAIL-reproducible") || !clitest.HasRow(stdout, "S1/register", "PASS-smoke") {
		t.Fatalf("exit %d, want %d with S1/api FAIL-reproducible and S1/register PASS-smoke\n%s\n%s", code, exitFail, stdout, stderr)
	}
	dir := clitest.OnlySession(t, filepath.Join(out, "tenant-isolation"))
	for _, f := range []string{"artifacts/S1_api/history.jsonl", "artifacts/S1_register/history.jsonl",
		"findings/S1_api.md", "findings/S1_register.md", "artifacts/harness/S1_api_api_never_returns_another_tenants_data.star"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("session lacks %s", f)
		}
	}
	type decision struct {
		Scenario string `json:"scenario"`
		Verdict  string `json:"verdict"`
	}
	var res struct {
		Scenarios []struct {
			Decision decision   `json:"decision"`
			Arms     []decision `json:"arms"`
		} `json:"scenarios"`
	}
	data, err := os.ReadFile(filepath.Join(dir, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &res); err != nil || len(res.Scenarios) != 1 {
		t.Fatalf("results.json: %s (%v)", data, err)
	}
	s1 := res.Scenarios[0]
	arms := map[string]string{}
	for _, a := range s1.Arms {
		arms[a.Scenario] = a.Verdict
	}
	// The downgrade rule: a failing arm fails the scenario.
	if s1.Decision.Scenario != "S1" || s1.Decision.Verdict != "FAIL-reproducible" || len(s1.Arms) != 2 ||
		arms["S1/api"] != "FAIL-reproducible" || arms["S1/register"] != "PASS-smoke" {
		t.Errorf("aggregate row: %+v, arms %v", s1.Decision, arms)
	}
	report, err := os.ReadFile(filepath.Join(dir, "findings", "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| S1/api |", "| S1/register |", "| S1 |", "cross-tenant leaks"} {
		if !strings.Contains(string(report), want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
}
