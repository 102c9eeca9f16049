package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/faultline/faultline/history"
	"github.com/faultline/faultline/internal/clitest"
	"github.com/faultline/faultline/internal/integration"
	"github.com/faultline/faultline/internal/testfile"
)

// TestByoPythonSuite runs examples/byo-python end to end on local nodes: the
// demo store driven by client.py, a long-lived Python client process per
// worker (client.process), under gen.concurrent_keys (two threads per key,
// keys rotating) and the per-key kv checker. The correct store passes with
// every fault landed, each op carrying its key and the client's extra field;
// the stale-reads build is caught.
func TestByoPythonSuite(t *testing.T) {
	integration.NeedCommand(t, "python3")
	plan := filepath.Join("..", "..", "examples", "byo-python", "plan.md")
	t.Run("correct store passes", func(t *testing.T) {
		out := t.TempDir()
		code, stdout, stderr := runCLI(t, "run", plan, "--local", "--yes", "--seed", "7", "--out", out)
		if code != exitOK || !clitest.HasRow(stdout, "S1", "PASS-smoke") {
			t.Fatalf("exit %d, want 0 with S1 PASS-smoke\n%s\n%s", code, stdout, stderr)
		}
		dir := clitest.OnlySession(t, filepath.Join(out, "byo-python"))
		hist := filepath.Join(dir, "artifacts", "S1", "history.jsonl")
		landed := clitest.NemesisOps(t, hist)
		for _, f := range []string{"start-partition", "stop-partition", "kill", "start", "pause", "resume"} {
			if landed[f] != "landed" {
				t.Errorf("%s: %q, want landed", f, landed[f])
			}
		}
		file, err := history.ReadFile(hist, history.JSONL)
		if err != nil {
			t.Fatal(err)
		}
		ops := file.Ops
		keys := map[any]map[int]bool{} // key -> threads that ran it
		served := 0
		for _, op := range ops {
			if op.IsNemesis() {
				continue
			}
			if op.Key == nil {
				t.Fatalf("a client op without a key: %+v", op)
			}
			if keys[op.Key] == nil {
				keys[op.Key] = map[int]bool{}
			}
			keys[op.Key][op.Process%6] = true
			if op.Type == history.OK && op.Extra["served_by"] != nil {
				served++
			}
		}
		if len(keys) < 10 {
			t.Errorf("%d keys used, want keys rotating (at least 10)", len(keys))
		}
		for k, threads := range keys {
			if len(threads) > 2 {
				t.Errorf("key %v ran on threads %v, want at most 2 (one group)", k, threads)
			}
		}
		if served == 0 {
			t.Error("no ok op kept the client's extra field served_by")
		}
		logs, err := os.ReadDir(filepath.Join(dir, "artifacts", "S1", "logs", "client-process"))
		if err != nil || len(logs) < 6 {
			t.Fatalf("client stderr logs: %v, %d files, want one per process (at least 6)", err, len(logs))
		}
		testfile.MustContain(t, filepath.Join(dir, "artifacts", "S1", "logs", "client-process", "p0-n1.stderr.log"), "process 0 talks to n1")
	})
	t.Run("stale reads are found", func(t *testing.T) {
		out := t.TempDir()
		suite := filepath.Join("..", "..", "examples", "byo-python", "stale.star")
		code, stdout, stderr := runCLI(t, "run", plan, "--suite", suite, "--local", "--yes", "--seed", "7", "--out", out)
		if code != exitFail || !clitest.HasRow(stdout, "S1", "FAIL-reproducible") {
			t.Fatalf("exit %d, want 1 with S1 FAIL-reproducible\n%s\n%s", code, stdout, stderr)
		}
		dir := clitest.OnlySession(t, filepath.Join(out, "byo-python"))
		testfile.MustContain(t, filepath.Join(dir, "findings", "S1.md"), "not linearizable on key")
	})
}
