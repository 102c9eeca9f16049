package vmnodes_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/cluster"
	"github.com/faultline/faultline/internal/clitest"
	"github.com/faultline/faultline/internal/testplan"
)

// runEtcdPlan: the example etcd plan, with the same CI edits as on the
// netns cluster and nothing else changed, runs on the VMs (their own
// kernels, under software emulation here) and reaches PASS-smoke for both
// scenarios. Two things make that possible on nodes 30-90x slower than the
// host, both measured rather than assumed: the fault schedule's clock
// stands still while a fault is being applied (a partition took 25-57 s to
// land here), so the load covers every fault with the plan's spacing; and
// a killed member's restart waits for the recipe's ready check, so the
// recovery audit measures a member that is back. The budgets' op floors
// are divided by the nodes' slowdown (capped at 10x), and the tier notes
// say so.
func runEtcdPlan(t *testing.T, st *cluster.State) {
	planFile, suite := testplan.EtcdRegister(t, "..")
	dir := t.TempDir()

	out := filepath.Join(dir, "out")
	began := time.Now()
	code, stdout, stderr := clitest.Run(t, "run", planFile, "--suite", suite, "--tier", "smoke", "--yes", "--seed", "11",
		"--nodes-file", st.NodesFile, "--ssh-key", st.ClientKey, "--known-hosts", st.KnownHosts, "--out", out)
	t.Logf("faultline run on VM nodes took %s, exit %d\n%s", time.Since(began).Round(time.Second), code, stdout)
	sessions, _ := filepath.Glob(filepath.Join(out, "etcd-register", "*"))
	if len(sessions) != 1 {
		t.Fatalf("want one session dir, got %v (exit %d)\n%s\n%s", sessions, code, stdout, stderr)
	}
	results := filepath.Join(sessions[0], "results.json")
	got := map[string]testplan.Decision{}
	for _, name := range []string{"S1", "S2"} {
		d := scriptDecision(t, results, name)
		got[name] = d
		t.Logf("%s: %s (tier met %q): %q\n  landing: %s\n  oracle: %s", name, d.Verdict, d.TierMet, d.Reasons, d.LandingEvidence, d.OracleEvidence)
	}
	for _, name := range []string{"S1", "S2"} {
		d := got[name]
		// It ran: nothing was missing on the VMs (etcd, curl, iptables, root).
		if strings.HasPrefix(d.Verdict, "INCONCLUSIVE-env") || d.Verdict == "NOT-RUN" {
			t.Errorf("%s did not run on VM nodes: %s %q\n%s", name, d.Verdict, d.Reasons, stderr)
		}
		// etcd is linearizable: no oracle may report an anomaly, and with
		// the faults proven and recovery measured the run earns its PASS.
		if strings.HasPrefix(d.Verdict, "FAIL") {
			t.Errorf("%s: %s on VM nodes: %q; oracle %s", name, d.Verdict, d.Reasons, d.OracleEvidence)
		} else if d.Verdict != "PASS-smoke" {
			t.Errorf("%s: %s on VM nodes, want PASS-smoke: %q", name, d.Verdict, d.Reasons)
		}
	}
	// The faults landed on the VMs: S1's partition read back on every
	// victim's firewall (its history's completion), S2's kill read back.
	hist, err := os.ReadFile(filepath.Join(sessions[0], "artifacts", "S1", "history.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	partitioned := false
	for _, line := range strings.Split(string(hist), "\n") {
		if strings.Contains(line, `"process":"nemesis","type":"ok","f":"start-partition"`) && strings.Contains(line, `"landed":true`) {
			partitioned = true
		}
	}
	if !partitioned {
		t.Errorf("S1's history has no landed start-partition: the partition was not read back on the VMs")
	}
	if s2 := got["S2"]; !strings.Contains(s2.LandingEvidence, "kill: injector: the nemesis completed kill, victim: read back") {
		t.Errorf("S2's kill was not read back on the VMs: %s", s2.LandingEvidence)
	}
	if code == 1 {
		t.Errorf("faultline run exited 1 (an anomaly) on VM nodes running etcd")
	}
}
