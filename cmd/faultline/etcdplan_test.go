package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/cluster"
	"github.com/faultline/faultline/internal/integration"
	"github.com/faultline/faultline/internal/testcluster"
	"github.com/faultline/faultline/internal/testplan"
)

// etcdPlanClusterConfig is distinct from every other test's cluster (prefix,
// subnet, state directory), so the packages' integration tests can run at once.
var etcdPlanClusterConfig = cluster.Config{Nodes: 3, StateDir: "/var/lib/faultline-test-etcdplan/cluster",
	Subnet: "10.88.0.0/24", Prefix: "flr"}

// reportHeadings are the §7.2 headings of findings/report.md, in order.
var reportHeadings = []string{"# Findings: ", "**Plan:**", "**Commit under test:**", "**Session dir:**",
	"## Summary", "## Scenario results", "## Findings", "## Coverage summary",
	"## Surface coverage (boundary and fairness scenarios)", "## Release-budget disclosures",
	"## Adequacy assessment vs the plan's coverage argument", "## Confidence delta", "## Green-but-broken check"}

// The example etcd plan runs end to end through the CLI on a 3-node netns
// cluster with real etcd: lint, compile with the example suite, probe, both
// scenarios with their faults, verdicts, and the findings report.
func TestRunEtcdPlanOnCluster(t *testing.T) {
	integration.NeedRoot(t)
	for _, tool := range []string{"etcd", "curl", "sshd", "iptables", "ip", "unshare"} {
		integration.NeedCommand(t, tool)
	}
	planFile, suite := testplan.EtcdRegister(t, filepath.Join("..", "..", "examples"))
	dir := t.TempDir()

	st := testcluster.Up(t, etcdPlanClusterConfig)

	out := filepath.Join(dir, "out")
	began := time.Now()
	code, stdout, stderr := runCLI(t, "run", planFile, "--suite", suite, "--tier", "smoke", "--yes", "--seed", "11",
		"--nodes-file", st.NodesFile, "--ssh-key", st.ClientKey, "--known-hosts", st.KnownHosts, "--out", out)
	t.Logf("faultline run took %s, exit %d\n%s", time.Since(began).Round(time.Second), code, stdout)
	sessions, _ := filepath.Glob(filepath.Join(out, "etcd-register", "*"))
	if len(sessions) != 1 {
		t.Fatalf("want one session dir, got %v (exit %d)\n%s\n%s", sessions, code, stdout, stderr)
	}
	session := sessions[0]
	var res struct {
		SessionVerdict string `json:"session_verdict"`
		ExitCode       int    `json:"exit_code"`
		Scenarios      []struct {
			Decision testplan.Decision `json:"decision"`
		} `json:"scenarios"`
	}
	data, err := os.ReadFile(filepath.Join(session, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &res); err != nil {
		t.Fatalf("results.json: %v", err)
	}
	if res.ExitCode != code {
		t.Errorf("results.json says exit %d, the process exited %d", res.ExitCode, code)
	}
	got := map[string]testplan.Decision{}
	for _, s := range res.Scenarios {
		got[s.Decision.Scenario] = s.Decision
	}
	s1, ok1 := got["S1"]
	s2, ok2 := got["S2"]
	if !ok1 || !ok2 {
		t.Fatalf("results.json lacks S1 or S2: %s", data)
	}
	// Both ran: no capability was missing (the plan's floor is Debian's etcd).
	for _, d := range []testplan.Decision{s1, s2} {
		if strings.HasPrefix(d.Verdict, "INCONCLUSIVE-env") || d.Verdict == "NOT-RUN" {
			t.Fatalf("%s did not run: %s %q\n%s", d.Scenario, d.Verdict, d.Reasons, stderr)
		}
		if d.TierMet != "smoke" {
			t.Errorf("%s met tier %q, want smoke: %q", d.Scenario, d.TierMet, d.Reasons)
		}
	}

	// S1: the partition and the kill both landed, read back on the victims.
	for _, f := range []string{"start-partition: injector: the nemesis completed start-partition, victim: read back",
		"kill: injector: the nemesis completed kill, victim: read back"} {
		if !strings.Contains(s1.LandingEvidence, f) {
			t.Errorf("S1 landing evidence lacks %q: %s", f, s1.LandingEvidence)
		}
	}
	for _, id := range []string{"RF3", "RF4"} {
		if status, ev := s1.Audit(id); status != "pass" {
			t.Errorf("S1 %s %s: %s", id, status, ev)
		}
	}
	if !strings.Contains(s1.OracleEvidence, "linearizable valid") {
		t.Errorf("S1 linearizability did not pass: %s", s1.OracleEvidence)
	}
	// S1's final phase (final = final_dump(), compiled from the no-lost-ack
	// oracle) reads every key the run wrote once the cluster is healed, so
	// no-lost-ack judges every acknowledged write and S1 can pass.
	if !strings.Contains(s1.OracleEvidence, "no-lost-ack valid") {
		t.Errorf("S1 no-lost-ack did not judge a final dump, or it did not pass: %s", s1.OracleEvidence)
	}
	if s1.Verdict != "PASS-smoke" {
		t.Errorf("S1 %s (%q), oracle %s; want PASS-smoke", s1.Verdict, s1.Reasons, s1.OracleEvidence)
	}

	// S2: the kill landed and the bounded-recovery checker judged it.
	if !strings.Contains(s2.LandingEvidence, "kill: injector: the nemesis completed kill, victim: read back") {
		t.Errorf("S2 landing evidence: %s", s2.LandingEvidence)
	}
	if !strings.Contains(s2.OracleEvidence, "recovery valid") {
		t.Errorf("S2 oracle did not run the recovery checker, or it did not pass: %s", s2.OracleEvidence)
	}
	checker, err := os.ReadFile(filepath.Join(session, "artifacts", "S2", "checker.json"))
	if err != nil || !strings.Contains(string(checker), `"checker": "recovery"`) || !strings.Contains(string(checker), `"worst_gap_ns"`) {
		t.Errorf("S2 checker.json does not hold a measured recovery gap (%v): %.2000s", err, checker)
	}
	// Known gap: the load stops as soon as the nemesis's next fault is past
	// the budget (gen.Any offers that future op while every client is
	// busy, and gen.TimeLimit then ends the whole run), so too little load
	// follows the restart for RF8 to measure recovery, and that open red
	// flag holds S2 at PARTIAL-surface instead of PASS-smoke.
	if s2.Verdict != "PASS-smoke" {
		status, ev := s2.Audit("RF8")
		if s2.Verdict != "PARTIAL-surface" || status != "cannot-judge" || !strings.Contains(ev, "recovery after heal not measured") {
			t.Errorf("S2 %s (%q), RF8 %s: %s; want PASS-smoke, or PARTIAL-surface from RF8 recovery not measured (the early-stop gap)",
				s2.Verdict, s2.Reasons, status, ev)
		}
	}

	report, err := os.ReadFile(filepath.Join(session, "findings", "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	at := 0
	for _, h := range reportHeadings {
		i := strings.Index(string(report[at:]), h)
		if i < 0 {
			t.Fatalf("findings/report.md: heading %q missing or out of order", h)
		}
		at += i + len(h)
	}
	for _, want := range []string{"| S1 |", "| S2 |", "no soak rig runs etcd nightly yet"} {
		if !strings.Contains(string(report), want) {
			t.Errorf("findings/report.md lacks %q", want)
		}
	}
}
