package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faultline/faultline/internal/clitest"
	"github.com/faultline/faultline/interp"
	"github.com/faultline/faultline/session"
)

// paramScript reads two parameters: the stale-read rate of an in-process
// register (the planted bug) and the scenario's name, so a replay that
// lost the parameters would not even find the scenario it recorded.
const paramScript = `load("@stdlib//workloads.star", "cas_register")

stale = param("stale", 0.0)
name = param("name", "plain")
scenario(
    name = name,
    nodes = ["n1", "n2"],
    client = client.register(stale_reads = stale),
    workload = gen.stagger("2ms", cas_register(values = 5)),
    checker = check.linearizable(model = "cas-register"),
    concurrency = 2,
    budgets = {"smoke": budget(duration = "10s", min_ops = 50)},
)
`

func writeParamScript(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "params.star")
	if err := os.WriteFile(path, []byte(paramScript), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestRunParams: -p values reach param() as the default's type, select
// the planted bug, are recorded in the schedule and the reproduce
// command, and a replay loads the script with them.
func TestRunParams(t *testing.T) {
	script := writeParamScript(t)
	out := t.TempDir()
	code, stdout, stderr := runCLI(t, "run", script, "-p", "stale=0.2", "-p", "name=planted", "--seed", "4", "--out", out)
	if code != exitFail || !clitest.HasRow(stdout, "planted", "FAIL-reproducible") {
		t.Fatalf("exit %d, want 1 with planted FAIL-reproducible\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "-p name=planted -p stale=0.2") {
		t.Errorf("the reproduce command does not repeat the parameters:\n%s", stdout)
	}
	dir := clitest.OnlySession(t, filepath.Join(out, "params"))
	h, _, err := interp.ReadSchedule(filepath.Join(dir, "artifacts", "planted", interp.ScheduleFile))
	if err != nil {
		t.Fatal(err)
	}
	if h.Params["stale"] != "0.2" || h.Params["name"] != "planted" {
		t.Errorf("schedule header params = %v", h.Params)
	}
	code, stdout, stderr = runCLI(t, "replay", dir)
	if code != exitFail || !strings.Contains(stdout+stderr, "planted") {
		t.Errorf("replay: exit %d, want 1 (the same anomaly, loaded with the same params)\n%s\n%s", code, stdout, stderr)
	}

	code, stdout, stderr = runCLI(t, "reduce", dir)
	if code != exitOK || !strings.Contains(stdout+stderr, "reproduced 1 of 1") {
		t.Errorf("reduce: exit %d, want 0 with the anomaly reproduced\n%s\n%s", code, stdout, stderr)
	}
	reduced, _ := filepath.Glob(filepath.Join(out, "params", "*-reduce", "artifacts", "planted", interp.ScheduleFile))
	if len(reduced) != 1 {
		t.Fatalf("reduced schedules %v, want one", reduced)
	}
	if h, _, err := interp.ReadSchedule(reduced[0]); err != nil || h.Params["stale"] != "0.2" {
		t.Errorf("the reduced schedule's params = %v (%v), want the original's", h.Params, err)
	}

	// Without -p the defaults apply: the correct register passes.
	code, stdout, stderr = runCLI(t, "run", script, "--seed", "4", "--out", t.TempDir())
	if code != exitOK || !clitest.HasRow(stdout, "plain", "PASS-smoke") {
		t.Errorf("defaults: exit %d, want 0 with plain PASS-smoke\n%s\n%s", code, stdout, stderr)
	}
}

// TestRunBadFlags: every bad -p, --time-limit, --concurrency, --test-count
// and --leave-db-running use is a usage error (64) naming the flag.
func TestRunBadFlags(t *testing.T) {
	script := writeParamScript(t)
	tests := []struct {
		name string
		args []string
		want []string // substrings of stderr
	}{
		{"param never read", []string{"-p", "stael=0.1"}, []string{"-p stael", "never reads", "it reads: name, stale"}},
		{"two unread", []string{"-p", "b=1", "-p", "a=2"}, []string{"-p a, -p b", "these parameters"}},
		{"not a number", []string{"-p", "stale=lots"}, []string{"-p stale=lots", "not a number", "params.star:3"}},
		{"no equals", []string{"-p", "stale"}, []string{`-p "stale": want KEY=VALUE`}},
		{"given twice", []string{"-p", "stale=0.1", "-p", "stale=0.2"}, []string{"-p stale is given twice"}},
		{"negative time limit", []string{"--time-limit", "-1s"}, []string{"--time-limit -1s", "positive"}},
		{"zero time limit", []string{"--time-limit", "0s"}, []string{"--time-limit 0s"}},
		{"time limit not a duration", []string{"--time-limit", "soon"}, []string{"time-limit"}},
		{"bad concurrency", []string{"--concurrency", "x3"}, []string{`--concurrency "x3"`}},
		{"zero test count", []string{"--test-count", "0"}, []string{"--test-count 0"}},
		{"leave db running on local nodes", []string{"--leave-db-running", "--local"}, []string{"--leave-db-running needs real nodes"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"run", script, "--out", t.TempDir()}, tc.args...)
			code, stdout, stderr := runCLI(t, args...)
			if code != exitUsage {
				t.Fatalf("exit %d, want %d\n%s\n%s", code, exitUsage, stdout, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
		})
	}
}

// TestRunOverrides: --time-limit and --concurrency replace the script's
// budget duration and concurrency, and are recorded for replay.
func TestRunOverrides(t *testing.T) {
	script := writeParamScript(t)
	out := t.TempDir()
	code, stdout, stderr := runCLI(t, "run", script, "--time-limit", "3s", "--concurrency", "3n", "--seed", "2", "--out", out)
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	dir := clitest.OnlySession(t, filepath.Join(out, "params"))
	h, events, err := interp.ReadSchedule(filepath.Join(dir, "artifacts", "plain", interp.ScheduleFile))
	if err != nil {
		t.Fatal(err)
	}
	if h.Concurrency != 6 || h.Overrides == nil || h.Overrides.Concurrency != "3n" || h.Overrides.TimeLimit.String() != "3s" {
		t.Errorf("header concurrency %d, overrides %+v; want 6 threads from 3n and a 3s limit", h.Concurrency, h.Overrides)
	}
	threads := map[int]bool{}
	var last int64
	for _, e := range events {
		if e.Phase == "" && e.Thread >= 0 {
			threads[e.Thread] = true
		}
		last = max(last, int64(e.T))
	}
	if len(threads) != 6 {
		t.Errorf("%d client threads ran, want 6", len(threads))
	}
	if last > 3_500_000_000 || last < 2_000_000_000 {
		t.Errorf("the last event is at %dns; the workload should run about 3s, not the script's 10s", last)
	}
	res, err := os.ReadFile(filepath.Join(dir, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(res), "--time-limit 3s --concurrency 3n") {
		t.Errorf("the reproduce command in results.json does not repeat the overrides:\n%s", res)
	}
}

// TestRunTestCount: --test-count N runs the test N times with seeds S,
// S+1, ..., one session each, prints one table and exits with the worst.
func TestRunTestCount(t *testing.T) {
	script := writeParamScript(t)
	out := t.TempDir()
	code, stdout, stderr := runCLI(t, "run", script, "-p", "stale=0.2", "--test-count", "3", "--seed", "10", "--out", out)
	if code != exitFail {
		t.Fatalf("exit %d, want 1\n%s\n%s", code, stdout, stderr)
	}
	for _, want := range []string{"3 runs of", "| 1 | 10 | invalid | 1 |", "| 2 | 11 | invalid | 1 |", "| 3 | 12 | invalid | 1 |", "Overall: invalid (exit 1"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	sessions, _ := filepath.Glob(filepath.Join(out, "params", "*"))
	if len(sessions) != 3 {
		t.Errorf("%d sessions, want 3: %v", len(sessions), sessions)
	}

	// -o json: one document holding every run, and the same exit code.
	code, stdout, stderr = runCLI(t, "run", script, "--test-count", "2", "--seed", "20", "-o", "json", "--out", t.TempDir())
	var doc struct {
		TestCount int `json:"test_count"`
		ExitCode  int `json:"exit_code"`
		Runs      []struct {
			Seed   string `json:"seed"`
			Result string `json:"result"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("-o json is not one JSON document (%v):\n%s\n%s", err, stdout, stderr)
	}
	if code != exitOK || doc.ExitCode != 0 || len(doc.Runs) != 2 || doc.Runs[1].Seed != "21" || doc.Runs[0].Result != "valid" {
		t.Errorf("exit %d, document %+v", code, doc)
	}
}

func TestWorstExitCode(t *testing.T) {
	tests := []struct {
		codes []int
		want  int
	}{
		{nil, 0},
		{[]int{0, 0}, 0},
		{[]int{0, 2, 0}, 2},
		{[]int{2, 3}, 3},
		{[]int{3, 1, 70}, 1},
		{[]int{0, 70, 2}, 70},
		{[]int{1, 64}, 64},
	}
	for _, tc := range tests {
		if got := session.WorstExitCode(tc.codes); got != tc.want {
			t.Errorf("WorstExitCode(%v) = %d, want %d", tc.codes, got, tc.want)
		}
	}
}

// TestRunPlanParams: a plan's -p values reach the suite its compiled
// scenarios load; a -p the suite never reads stops the session as a
// usage error.
func TestRunPlanParams(t *testing.T) {
	suite := filepath.Join(t.TempDir(), "suite.star")
	if err := os.WriteFile(suite, []byte(`suite = struct(
    nodes = ["n1", "n2", "n3"],
    db = None,
    client = client.register(stale_reads = param("stale", 0.0)),
)
`), 0o644); err != nil {
		t.Fatal(err)
	}
	plan := filepath.Join("..", "..", "examples", "inprocess", "plan.md")
	code, stdout, stderr := runCLI(t, "run", plan, "--suite", suite, "--scenario", "S1", "-p", "stale=0.3", "--yes", "--seed", "5", "--out", t.TempDir())
	if code != exitFail || !clitest.HasRow(stdout, "S1", "FAIL-reproducible") {
		t.Errorf("-p stale=0.3: exit %d, want 1 with S1 FAIL-reproducible (the planted bug)\n%s\n%s", code, stdout, stderr)
	}
	code, stdout, stderr = runCLI(t, "run", plan, "--suite", suite, "--scenario", "S1", "-p", "stail=0.3", "--yes", "--out", t.TempDir())
	if code != exitUsage || !strings.Contains(stderr, "-p stail: the script never reads") {
		t.Errorf("-p stail: exit %d, want %d naming it\n%s\n%s", code, exitUsage, stdout, stderr)
	}
}
