package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/faultline/faultline/cluster"
	"github.com/faultline/faultline/internal/clitest"
	"github.com/faultline/faultline/internal/testcluster"
	"github.com/faultline/faultline/internal/testfile"
)

var byoHTTPClusterConfig = cluster.Config{Nodes: 3, StateDir: "/var/lib/faultline-test-byohttp/cluster",
	Subnet: "10.97.0.0/24", Prefix: "fbh"}

// TestByoHTTPSuite runs examples/byo-http end to end on local nodes: the
// demo store tested through a client written only in Starlark (kv.star,
// over the http module and node.client_addr, so partitions reach client
// traffic through the mesh). The correct store passes with every fault
// landed; the stale-reads build is caught and reproduced.
func TestByoHTTPSuite(t *testing.T) {
	plan := filepath.Join("..", "..", "examples", "byo-http", "plan.md")
	t.Run("correct store passes", func(t *testing.T) {
		out := t.TempDir()
		code, stdout, stderr := runCLI(t, "run", plan, "--local", "--yes", "--seed", "7", "--out", out)
		if code != exitOK || !clitest.HasRow(stdout, "S1", "PASS-smoke") {
			t.Fatalf("exit %d, want 0 with S1 PASS-smoke\n%s\n%s", code, stdout, stderr)
		}
		dir := clitest.OnlySession(t, filepath.Join(out, "byo-http"))
		landed := clitest.NemesisOps(t, filepath.Join(dir, "artifacts", "S1", "history.jsonl"))
		for _, f := range []string{"start-partition", "stop-partition", "kill", "start", "pause", "resume"} {
			if landed[f] != "landed" {
				t.Errorf("%s: %q, want landed", f, landed[f])
			}
		}
	})
	t.Run("stale reads are found", func(t *testing.T) {
		out := t.TempDir()
		suite := filepath.Join("..", "..", "examples", "byo-http", "stale.star")
		code, stdout, stderr := runCLI(t, "run", plan, "--suite", suite, "--local", "--yes", "--seed", "7", "--out", out)
		if code != exitFail || !clitest.HasRow(stdout, "S1", "FAIL-reproducible") {
			t.Fatalf("exit %d, want 1 with S1 FAIL-reproducible\n%s\n%s", code, stdout, stderr)
		}
		dir := clitest.OnlySession(t, filepath.Join(out, "byo-http"))
		testfile.MustContain(t, filepath.Join(dir, "findings", "S1.md"), "not linearizable")
	})
}

// TestByoHTTPOverSSH runs the same plan and suite unchanged over SSH on a
// netns cluster: node.client_addr now gives each node's own host and port,
// and the partition is real iptables rules on the nodes.
func TestByoHTTPOverSSH(t *testing.T) {
	st := testcluster.Up(t, byoHTTPClusterConfig, "iptables")
	out := t.TempDir()
	plan := filepath.Join("..", "..", "examples", "byo-http", "plan.md")
	code, stdout, stderr := runCLI(t, "run", plan, "--yes", "--seed", "5", "--out", out,
		"--nodes-file", st.NodesFile, "--ssh-key", st.ClientKey, "--known-hosts", st.KnownHosts)
	if code != exitOK || !clitest.HasRow(stdout, "S1", "PASS-smoke") {
		t.Fatalf("exit %d, want 0 with S1 PASS-smoke\n%s\n%s", code, stdout, stderr)
	}
	dir := clitest.OnlySession(t, filepath.Join(out, "byo-http"))
	landed := clitest.NemesisOps(t, filepath.Join(dir, "artifacts", "S1", "history.jsonl"))
	for _, f := range []string{"start-partition", "stop-partition", "kill", "start", "pause", "resume"} {
		if landed[f] != "landed" {
			t.Errorf("%s: %q, want landed", f, landed[f])
		}
	}
}

// TestByoHTTPTunable runs examples/byo-http/tunable.star on local nodes
// with the planted bug chosen by a parameter (-p bug=stale-reads) and a
// shortened workload (--time-limit): the stale read is found, and the
// node that served it, recorded by kv.star as the extra op field
// served_by, is in the explanation, history.jsonl and the EDN export. A
// value the script refuses stops the run before any node starts.
func TestByoHTTPTunable(t *testing.T) {
	script := filepath.Join("..", "..", "examples", "byo-http", "tunable.star")
	out := t.TempDir()
	code, stdout, stderr := runCLI(t, "run", script, "--local", "-p", "bug=stale-reads", "--time-limit", "6s", "--seed", "3", "--out", out)
	if code != exitFail || !clitest.HasRow(stdout, "kv_stale_reads", "FAIL-reproducible") {
		t.Fatalf("exit %d, want 1 with kv_stale_reads FAIL-reproducible\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, `; served_by="n`) {
		t.Errorf("the explanation does not name the node that served the op:\n%s", stdout)
	}
	dir := clitest.OnlySession(t, filepath.Join(out, "tunable"))
	hist := filepath.Join(dir, "artifacts", "kv_stale_reads", "history.jsonl")
	testfile.MustContain(t, hist, `"served_by":"n`)
	testfile.MustContain(t, filepath.Join(dir, "artifacts", "kv_stale_reads", "timeline.html"), "extra: served_by=")
	code, edn, stderr := runCLI(t, "export", hist)
	if code != exitOK || !strings.Contains(edn, `:served_by "n`) {
		t.Errorf("export: exit %d, no :served_by in the EDN\n%s", code, stderr)
	}

	code, stdout, stderr = runCLI(t, "run", script, "--local", "-p", "bug=nope", "--out", t.TempDir())
	if code != exitRejected || !strings.Contains(stderr, `-p bug=nope: want one of ["", "stale-reads"]`) {
		t.Errorf("-p bug=nope: exit %d, want %d naming the choices\n%s\n%s", code, exitRejected, stdout, stderr)
	}
}
