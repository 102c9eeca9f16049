package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faultline/faultline/history"
	"github.com/faultline/faultline/internal/clitest"
	"github.com/faultline/faultline/internal/testfile"
	"github.com/faultline/faultline/nemesis"
)

// TestBinkvSuite runs examples/binkv end to end on local nodes: a store
// with a length-prefixed binary protocol (`faultline binkv-node`), driven
// by a client written in Starlark over net and binary with errors as
// values. The correct store passes with every fault landed, and its
// history holds both kinds of failure the client told apart (fail for a
// request never sent or refused, info for a lost answer); the cas-blind
// build is caught.
func TestBinkvSuite(t *testing.T) {
	plan := filepath.Join("..", "..", "examples", "binkv", "plan.md")
	t.Run("correct store passes", func(t *testing.T) {
		out := t.TempDir()
		code, stdout, stderr := runCLI(t, "run", plan, "--local", "--yes", "--seed", "7", "--out", out)
		if code != exitOK || !clitest.HasRow(stdout, "S1", "PASS-smoke") {
			t.Fatalf("exit %d, want 0 with S1 PASS-smoke\n%s\n%s", code, stdout, stderr)
		}
		dir := clitest.OnlySession(t, filepath.Join(out, "binkv"))
		hist := filepath.Join(dir, "artifacts", "S1", "history.jsonl")
		landed := clitest.NemesisOps(t, hist)
		for _, f := range []string{"start-partition", "stop-partition", "kill", "start"} {
			if landed[f] != "landed" {
				t.Errorf("%s: %q, want landed", f, landed[f])
			}
		}
		// The followers forward through node.addr_of, so the partition's
		// evidence counts the store's own connections over the cut links.
		h, err := history.ReadFile(hist, history.JSONL)
		if err != nil {
			t.Fatal(err)
		}
		var partition *nemesis.Window
		for _, w := range nemesis.FaultWindows(h.Ops) {
			if w.Fault == "start-partition" {
				partition = &w
			}
		}
		if partition == nil || !strings.Contains(partition.PeerTraffic, "the system's own connections on the cut links") ||
			!strings.Contains(partition.Reason, partition.PeerTraffic) {
			t.Errorf("partition window %+v: want the store's peer connections over the cut links in its reason", partition)
		}
		types := opTypes(t, hist)
		if types["ok"] == 0 || types["fail"] == 0 || types["info"] == 0 {
			t.Errorf("completions %v: want ok, fail (not sent or refused) and info (answer lost)", types)
		}
	})
	t.Run("cas-blind is found", func(t *testing.T) {
		out := t.TempDir()
		suite := filepath.Join("..", "..", "examples", "binkv", "blind.star")
		code, stdout, stderr := runCLI(t, "run", plan, "--suite", suite, "--local", "--yes", "--seed", "7", "--out", out)
		if code != exitFail || !clitest.HasRow(stdout, "S1", "FAIL-reproducible") {
			t.Fatalf("exit %d, want 1 with S1 FAIL-reproducible\n%s\n%s", code, stdout, stderr)
		}
		dir := clitest.OnlySession(t, filepath.Join(out, "binkv"))
		testfile.MustContain(t, filepath.Join(dir, "findings", "S1.md"), "not linearizable")
	})
}

// opTypes counts a history's client completions by type.
func opTypes(t *testing.T, path string) map[string]int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var op struct {
			Process any    `json:"process"`
			Type    string `json:"type"`
		}
		if err := json.Unmarshal([]byte(line), &op); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if op.Process != "nemesis" && op.Type != "invoke" {
			out[op.Type]++
		}
	}
	return out
}
