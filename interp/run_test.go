package interp

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faultline/faultline/check"
)

// loadOne loads a script from source and returns its only scenario.
func loadOne(t *testing.T, src string, seed uint64) *Scenario {
	t.Helper()
	dir := writeFiles(t, map[string]string{"main.star": src})
	s, err := Load(context.Background(), filepath.Join(dir, "main.star"), LoadOptions{Seed: seed})
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if len(s.Scenarios) != 1 {
		t.Fatalf("got %d scenarios", len(s.Scenarios))
	}
	return s.Scenarios[0]
}

func registerScript(stale float64) string {
	return `
load("@stdlib//workloads.star", "cas_register")
scenario(
    name = "reg",
    client = client.register(stale_reads = ` + fmt.Sprintf("%g", stale) + `),
    workload = gen.stagger("2ms", cas_register(values = 5)),
    checker = check.compose([check.linearizable(model = "cas-register"), check.stats()]),
    concurrency = 5,
    budgets = {"smoke": budget(duration = "3s", min_ops = 300)},
)
`
}

func runScenario(t *testing.T, s *Scenario, seed uint64) *Result {
	t.Helper()
	dir := t.TempDir()
	res, err := Run(context.Background(), s, RunOptions{Seed: seed, Dir: dir})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return res
}

func TestRunCorrectRegisterIsLinearizable(t *testing.T) {
	res := runScenario(t, loadOne(t, registerScript(0), 1), 1)
	if !res.Virtual {
		t.Error("an in-process client should run in simulated time")
	}
	if res.Check.Valid != check.Valid {
		t.Fatalf("check = %s: %s\n%s", res.Check.Valid, res.Check.Summary, res.Check.Explanation)
	}
	if res.Summary.OK < 300 || len(res.Problems) != 0 {
		t.Fatalf("ok=%d problems=%v", res.Summary.OK, res.Problems)
	}
}

func TestRunStaleRegisterIsCaughtAndReproducible(t *testing.T) {
	first := runScenario(t, loadOne(t, registerScript(0.05), 7), 7)
	if first.Check.Valid != check.Invalid {
		t.Fatalf("check = %s: %s", first.Check.Valid, first.Check.Summary)
	}
	if first.Check.Explanation == "" {
		t.Error("a non-linearizable history came without an explanation")
	}
	second := runScenario(t, loadOne(t, registerScript(0.05), 7), 7)
	a, err := os.ReadFile(first.HistoryPath)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(second.HistoryPath)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Fatal("the same seed produced different histories")
	}
	third := runScenario(t, loadOne(t, registerScript(0.05), 8), 8)
	c, _ := os.ReadFile(third.HistoryPath)
	if bytes.Equal(a, c) {
		t.Fatal("a different seed produced the identical history")
	}
}

func TestRunTooLittleLoadIsAProblem(t *testing.T) {
	s := loadOne(t, `
scenario(name = "thin", client = client.register(), workload = gen.limit(5, {"f": "read"}),
         checker = check.stats(), budgets = {"smoke": budget(duration = "1s", min_ops = 100)})
`, 1)
	res := runScenario(t, s, 1)
	if len(res.Problems) == 0 || !strings.Contains(res.Problems[0], "ops had a known outcome (ok or fail); the smoke budget needs 100") {
		t.Fatalf("5 ops against min_ops=100: problems %q", res.Problems)
	}
}

// A scenario whose workload issues nothing is unknown, not valid: its
// history holds no ops, and a linearizability checker used to call that
// trivially linearizable.
func TestRunNoOpsIsUnknown(t *testing.T) {
	s := loadOne(t, `
scenario(name = "empty", client = client.register(), workload = gen.limit(0, {"f": "read"}),
         checker = check.linearizable(model = "register"), budgets = {"smoke": budget(duration = "1s")})
`, 1)
	res := runScenario(t, s, 1)
	if res.Check.Valid != check.Unknown || !strings.Contains(res.Check.Summary, "the history holds no ops") {
		t.Fatalf("check = %s: %s", res.Check.Valid, res.Check.Summary)
	}
}

func TestRunMissingTier(t *testing.T) {
	s := loadOne(t, `
scenario(name = "x", client = client.register(), workload = {"f": "read"}, checker = check.stats(),
         budgets = {"smoke": budget(duration = "1s")})
`, 1)
	_, err := Run(context.Background(), s, RunOptions{Tier: "release", Dir: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), `no "release" budget`) {
		t.Fatalf("err = %v", err)
	}
}
