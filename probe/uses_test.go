package probe

import (
	"slices"
	"testing"

	"github.com/faultline/faultline/plans"
)

// TestUsesFaultCapabilities: a fault's host capabilities come from nemesis'
// registry; in local mode the proxy mesh carries network faults, which then
// need nothing of the host.
func TestUsesFaultCapabilities(t *testing.T) {
	compiled := []plans.CompiledScenario{
		{ID: "S1", Source: `nemesis = nemesis.compose([nemesis.partition(spec = "one"), nemesis.delay(nodes = "one")])`},
		{ID: "S2", Source: `nemesis = nemesis.kill(nodes = "one", pattern = "x", command = ["x"])`},
		{ID: "S3", Source: `nemesis = nemesis.loss(probability = 0.3)` + "\nclient = client.postgres()"},
	}
	got := Uses(compiled, false)
	want := map[string][]string{
		"S1": {"root", "delay", "iptables"},
		"S3": {"iptables", "root", "postgresql"},
	}
	if len(got) != len(want) {
		t.Fatalf("uses %v, want %v", got, want)
	}
	for id, caps := range want {
		for _, c := range caps {
			if !slices.Contains(got[id], c) {
				t.Errorf("%s: uses %v, want %s among them", id, got[id], c)
			}
		}
	}
	local := Uses(compiled, true)
	if _, ok := local["S1"]; ok || !slices.Equal(local["S3"], []string{"postgresql"}) {
		t.Errorf("local uses %v: network faults need no host capability", local)
	}
	// The mesh cannot do netem, and local nodes share the controller's
	// clock: both keep their needs, which the local cluster answers no.
	more := []plans.CompiledScenario{
		{ID: "S4", Source: `nemesis = nemesis.netem(nodes = "all", reorder = 0.25, delay = "50ms")`},
		{ID: "S5", Source: `nemesis = nemesis.clock(nodes = "one", mode = "bump", delta = "30s")`},
	}
	local = Uses(more, true)
	if !slices.Contains(local["S4"], "tc-netem") || !slices.Contains(local["S5"], "clock") {
		t.Errorf("local uses %v: netem and clock need the nodes' kernels", local)
	}
}
