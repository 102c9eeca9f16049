package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faultline/faultline/cluster"
	"github.com/faultline/faultline/internal/clitest"
	"github.com/faultline/faultline/internal/integration"
	"github.com/faultline/faultline/internal/testcluster"
)

var demoSSHClusterConfig = cluster.Config{Nodes: 3, StateDir: "/var/lib/faultline-test-demossh/cluster",
	Subnet: "10.92.0.0/24", Prefix: "fdx"}

// The demo's plan and suite run unchanged over SSH on a netns cluster: only
// the node source differs from `faultline demo` (--nodes-file instead of
// --local), and the faults are real iptables rules and signals on the
// nodes instead of the proxy mesh and supervised children.
func TestDemoPlanOverSSH(t *testing.T) {
	integration.NeedRoot(t)
	for _, tool := range []string{"sshd", "iptables", "ip", "unshare"} {
		integration.NeedCommand(t, tool)
	}
	st := testcluster.Up(t, demoSSHClusterConfig)
	out := t.TempDir()
	plan := filepath.Join("..", "..", "examples", "plans", "demo.md")
	suite := filepath.Join("..", "..", "examples", "demo", "faultline.star")
	code, stdout, stderr := runCLI(t, "run", plan, "--suite", suite, "--yes", "--seed", "5", "--out", out,
		"--nodes-file", st.NodesFile, "--ssh-key", st.ClientKey, "--known-hosts", st.KnownHosts)
	dir := clitest.OnlySession(t, filepath.Join(out, "demo-store"))
	if code != exitOK || !clitest.HasRow(stdout, "S1", "PASS-smoke") {
		finding, _ := os.ReadFile(filepath.Join(dir, "findings", "S1.md"))
		t.Fatalf("exit %d, want 0 with S1 PASS-smoke\n%s\n%s\n%s", code, stdout, stderr, finding)
	}
	landed := clitest.NemesisOps(t, filepath.Join(dir, "artifacts", "S1", "history.jsonl"))
	for _, f := range []string{"start-partition", "stop-partition", "kill", "start", "pause", "resume"} {
		if landed[f] != "landed" {
			t.Errorf("%s: %q, want landed", f, landed[f])
		}
	}
	hist, err := os.ReadFile(filepath.Join(dir, "artifacts", "S1", "history.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	// iptables evidence, not the mesh's: the partition was enforced on the nodes.
	if strings.Contains(string(hist), `"backend":"mesh"`) || !strings.Contains(string(hist), `"jump":true`) {
		t.Errorf("the partition's evidence is not from iptables on the nodes")
	}
}
