// Package testplan gives end-to-end tests the example plans cut to fit CI,
// so every test that runs one runs the same cut.
package testplan

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// etcdEdits shorten examples/plans/etcd-register.md to fit CI: S1's
// partition and kill both happen inside a 40 s smoke run, and S2's kill
// inside 30 s. Nothing else changes: the oracles, landing evidence and tiers
// are the plan's own. Each edit must apply, so a plan that drifts fails.
var etcdEdits = [][2]string{
	{"majority/minority partition isolating the leader at T+30s for 20s; kill -9 of the leader at T+90s, restart after 10s",
		"majority/minority partition isolating the leader at T+8s for 8s; kill -9 of the leader at T+22s, restart after 6s"},
	{"- **Smoke budget:** 3 nodes, 1 min, 0 faults, 1 seed, ≥1k ops", "- **Smoke budget:** 3 nodes, 40 s, 0 faults, 1 seed, ≥1k ops"},
	{"kill -9 of the current leader at T+20s, restart after 15s", "kill -9 of the current leader at T+8s, restart after 12s"},
	{"- **Smoke budget:** 3 nodes, 1 min, 1 fault, 1 seed", "- **Smoke budget:** 3 nodes, 30 s, 1 fault, 1 seed"},
}

// EtcdRegister writes the example etcd plan with CI's edits into a
// temporary directory of t and returns its path and the example suite's
// (examples/plans/etcd.star). examples is the repository's examples
// directory, relative to the calling test.
func EtcdRegister(t testing.TB, examples string) (plan, suite string) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(examples, "plans", "etcd-register.md"))
	if err != nil {
		t.Fatalf("the example plan: %v", err)
	}
	text := string(src)
	for _, e := range etcdEdits {
		if !strings.Contains(text, e[0]) {
			t.Fatalf("examples/plans/etcd-register.md no longer says %q; update internal/testplan's edits", e[0])
		}
		text = strings.Replace(text, e[0], e[1], 1)
	}
	plan = filepath.Join(t.TempDir(), "etcd-register.md")
	if err := os.WriteFile(plan, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	suite, err = filepath.Abs(filepath.Join(examples, "plans", "etcd.star"))
	if err != nil {
		t.Fatal(err)
	}
	return plan, suite
}

// Decision is the part of a scenario's decision in results.json that the
// end-to-end tests read.
type Decision struct {
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

// Audit returns the status and evidence of one audit item ("RF8").
func (d Decision) Audit(id string) (status, evidence string) {
	for _, a := range d.Audits {
		if a.ID == id {
			return a.Status, a.Evidence
		}
	}
	return "", ""
}
