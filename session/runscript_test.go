package session

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faultline/faultline/internal/testfile"
	"github.com/faultline/faultline/verdict"
)

// TestRunScriptFromGo: a script run from Go, without the CLI, finds the
// stale register's anomaly, re-runs it to call it reproducible, and
// returns the same results.json it wrote; a script that does not load is
// a Rejected Error.
func TestRunScriptFromGo(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "stale.star")
	src := `load("@stdlib//workloads.star", "cas_register")
scenario(
    name = "stale",
    client = client.register(stale_reads = 0.05),
    workload = gen.stagger("2ms", cas_register(values = 5)),
    checker = check.compose([check.linearizable(model = "cas-register"), check.stats()]),
    concurrency = 5,
    budgets = {"smoke": budget(duration = "10s", min_ops = 500)},
)
`
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := RunScript(context.Background(), Options{Path: script, Seed: 42, Out: dir, Reruns: 1})
	if err != nil {
		t.Fatal(err)
	}
	r := res.Results
	if r.SessionVerdict != verdict.Fail || r.ExitCode != 1 || r.Result != "invalid" {
		t.Fatalf("session %s, exit %d, result %s; want FAIL, 1, invalid (%s)", r.SessionVerdict, r.ExitCode, r.Result, r.Headline)
	}
	if len(res.Units) != 1 || res.Units[0].Decision.Verdict != verdict.FailReproducible || res.Units[0].Violation == nil {
		t.Fatalf("units %+v, want stale FAIL-reproducible with its violation", res.Units)
	}
	if len(res.Outcomes) != 1 || !strings.Contains(res.Outcomes[0].Replay, "--seed 42") {
		t.Errorf("outcomes %+v: want the reproduce command with --seed 42", res.Outcomes)
	}
	// No nemesis: the stale read is placed in time with no fault active.
	testfile.MustContain(t, filepath.Join(r.SessionDir, "findings", "report.md"), "- When and where: op ", "no fault was active")
	var written struct {
		SchemaVersion int    `json:"schema_version"`
		Kind          string `json:"kind"`
		ExitCode      int    `json:"exit_code"`
	}
	testfile.ReadJSON(t, filepath.Join(r.SessionDir, "results.json"), &written)
	if written.SchemaVersion != 1 || written.Kind != "script" || written.ExitCode != 1 {
		t.Errorf("results.json = %+v", written)
	}

	bad := filepath.Join(dir, "bad.star")
	if err := os.WriteFile(bad, []byte("scenario(\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = RunScript(context.Background(), Options{Path: bad, Out: dir})
	var se *Error
	if !errors.As(err, &se) || se.Kind != Rejected {
		t.Errorf("a script that does not load: %v, want a Rejected Error", err)
	}
}
