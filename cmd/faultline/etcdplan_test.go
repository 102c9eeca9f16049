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
)

// etcdPlanClusterConfig is distinct from every other test's cluster (prefix,
// subnet, state directory), so the packages' integration tests can run at once.
var etcdPlanClusterConfig = cluster.Config{Nodes: 3, StateDir: "/var/lib/faultline-test-etcdplan/cluster",
	Subnet: "10.88.0.0/24", Prefix: "flr"}

// etcdPlanEdits shorten examples/plans/etcd-register.md to fit CI: S1's
// partition and kill both happen inside a 40 s smoke run, and S2's kill
// inside 30 s. Nothing else changes: the oracles, landing evidence and tiers
// are the plan's own. Each edit must apply, so a plan that drifts fails here.
var etcdPlanEdits = [][2]string{
	{"majority/minority partition isolating the leader at T+30s for 20s; kill -9 of the leader at T+90s, restart after 10s",
		"majority/minority partition isolating the leader at T+8s for 8s; kill -9 of the leader at T+22s, restart after 6s"},
	{"- **Smoke budget:** 3 nodes, 1 min, 0 faults, 1 seed, ≥1k ops", "- **Smoke budget:** 3 nodes, 40 s, 0 faults, 1 seed, ≥1k ops"},
	{"kill -9 of the current leader at T+20s, restart after 15s", "kill -9 of the current leader at T+8s, restart after 12s"},
	{"- **Smoke budget:** 3 nodes, 1 min, 1 fault, 1 seed", "- **Smoke budget:** 3 nodes, 30 s, 1 fault, 1 seed"},
}

// reportHeadings are the §7.2 headings of findings/report.md, in order.
var reportHeadings = []string{"# Findings: ", "**Plan:**", "**Commit under test:**", "**Session dir:**",
	"## Summary", "## Scenario results", "## Findings", "## Coverage summary",
	"## Surface coverage (boundary and fairness scenarios)", "## Release-budget disclosures",
	"## Adequacy assessment vs the plan's coverage argument", "## Confidence delta", "## Green-but-broken check"}

// etcdPlanDecision is the part of results.json this test reads.
type etcdPlanDecision struct {
	Scenario        string   `json:"scenario"`
	Verdict         string   `json:"verdict"`
	TierMet         string   `json:"tier_met"`
	Reasons         []string `json:"reasons"`
	OracleEvidence  string   `json:"oracle_evidence"`
	LandingEvidence string   `json:"landing_evidence"`
	Audits          []struct {
		ID       string `json:"id"`
		Status   string `json:"status"`
		Evidence string `json:"evidence"`
	} `json:"audits"`
}

// audit returns the status and evidence of one audit item.
func (d etcdPlanDecision) audit(id string) (string, string) {
	for _, a := range d.Audits {
		if a.ID == id {
			return a.Status, a.Evidence
		}
	}
	return "", ""
}

// The example etcd plan runs end to end through the CLI on a 3-node netns
// cluster with real etcd: lint, compile with the example suite, probe, both
// scenarios with their faults, verdicts, and the findings report.
func TestRunEtcdPlanOnCluster(t *testing.T) {
	integration.NeedRoot(t)
	for _, tool := range []string{"etcd", "curl", "sshd", "iptables", "ip", "unshare"} {
		integration.NeedCommand(t, tool)
	}
	src, err := os.ReadFile(filepath.Join("..", "..", "examples", "plans", "etcd-register.md"))
	if err != nil {
		t.Fatalf("the example plan: %v", err)
	}
	plan := string(src)
	for _, e := range etcdPlanEdits {
		if !strings.Contains(plan, e[0]) {
			t.Fatalf("examples/plans/etcd-register.md no longer says %q; update etcdPlanEdits", e[0])
		}
		plan = strings.Replace(plan, e[0], e[1], 1)
	}
	dir := t.TempDir()
	planFile := filepath.Join(dir, "etcd-register.md")
	if err := os.WriteFile(planFile, []byte(plan), 0o644); err != nil {
		t.Fatal(err)
	}
	suite, err := filepath.Abs(filepath.Join("..", "..", "examples", "plans", "etcd.star"))
	if err != nil {
		t.Fatal(err)
	}

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
			Decision etcdPlanDecision `json:"decision"`
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
	got := map[string]etcdPlanDecision{}
	for _, s := range res.Scenarios {
		got[s.Decision.Scenario] = s.Decision
	}
	s1, ok1 := got["S1"]
	s2, ok2 := got["S2"]
	if !ok1 || !ok2 {
		t.Fatalf("results.json lacks S1 or S2: %s", data)
	}
	// Both ran: no capability was missing (the plan's floor is Debian's etcd).
	for _, d := range []etcdPlanDecision{s1, s2} {
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
		if status, ev := s1.audit(id); status != "pass" {
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
		status, ev := s2.audit("RF8")
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
