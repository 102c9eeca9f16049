package interp

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

const nemesisScript = `
load("@stdlib//workloads.star", "cas_register")
scenario(
    name = "reg",
    client = client.register(),
    workload = gen.stagger("2ms", cas_register(values = 5)),
    checker = check.linearizable(model = "cas-register"),
    nemesis = nemesis.compose([nemesis.partition(spec = "majority", interval = "1s", hold = "2s"),
                               nemesis.kill(pattern = "db", restart = ["db"])]),
    landing = [evidence.landed(), evidence.iptables_drops(min = 1)],
)
`

func TestScenarioDeclaresNemesis(t *testing.T) {
	s := loadOne(t, nemesisScript, 1)
	if s.Nemesis == nil || len(s.Landing) != 2 {
		t.Fatalf("nemesis %v, landing %v", s.Nemesis, s.Landing)
	}
}

// A nemesis without nodes is refused before anything runs, naming the flags.
func TestRunNemesisNeedsNodes(t *testing.T) {
	s := loadOne(t, nemesisScript, 1)
	_, err := Run(context.Background(), s, RunOptions{Seed: 1, Dir: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "--nodes") {
		t.Fatalf("Run without nodes: %v, want an error naming --nodes", err)
	}
}

func TestScenarioLandingWithoutNemesis(t *testing.T) {
	src := strings.Replace(nemesisScript, "    nemesis = nemesis.compose", "    x = nemesis.compose", 1)
	src = strings.Replace(src, "    x = nemesis.compose([nemesis.partition(spec = \"majority\", interval = \"1s\", hold = \"2s\"),\n                               nemesis.kill(pattern = \"db\", restart = [\"db\"])]),\n", "", 1)
	dir := writeFiles(t, map[string]string{"main.star": src})
	_, err := Load(context.Background(), dir+"/main.star", LoadOptions{})
	if err == nil || !strings.Contains(err.Error(), "no nemesis") {
		t.Fatalf("Load: %v, want an error about landing without a nemesis", err)
	}
}

// nemesis may be a dict by tier: a run takes its tier's, a tier the dict
// leaves out runs without faults, and a key that is no tier is an error.
func TestNemesisByTier(t *testing.T) {
	s := loadOne(t, `
scenario(
    name = "tiered",
    client = client.noop(),
    workload = gen.limit(1, {"f": "read"}),
    checker = check.stats(),
    nemesis = {
        "smoke": nemesis.partition(spec = "one", start = "1s", hold = "1s"),
        "hardening": nemesis.partition(spec = "one", start = "1s", hold = "1s", interval = "1m"),
    },
    budgets = {"smoke": budget(duration = "5s"), "hardening": budget(duration = "10m"), "release": budget(duration = "1h")},
)`, 1)
	if s.Nemesis != nil || len(s.NemesisByTier) != 2 {
		t.Fatalf("Nemesis %v, by tier %v: want two tiers and no single nemesis", s.Nemesis, s.NemesisByTier)
	}
	for tier, want := range map[string]bool{"smoke": true, "hardening": true, "release": false} {
		if got := s.forTier(tier).Nemesis != nil; got != want {
			t.Errorf("tier %s has a nemesis: %v, want %v", tier, got, want)
		}
	}
	dir := writeFiles(t, map[string]string{"main.star": `scenario(name = "x", client = client.noop(), workload = gen.limit(1, {"f": "read"}),
    checker = check.stats(), nemesis = {"nightly": nemesis.partition()}, budgets = {"smoke": budget(duration = "1s")})`})
	if _, err := Load(context.Background(), filepath.Join(dir, "main.star"), LoadOptions{}); err == nil || !strings.Contains(err.Error(), "want a tier") {
		t.Errorf("a dict key that is no tier: %v", err)
	}
}
