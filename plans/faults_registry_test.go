package plans

import (
	"maps"
	"testing"
)

// TestFaultKindsFromRegistry: the fault vocabulary read from nemesis'
// registry is the one plans have always compiled: the same kinds in the
// same match order, builtins, targets and default evidence.
func TestFaultKindsFromRegistry(t *testing.T) {
	want := []struct{ kind, call, target string }{
		{"pause", "nemesis.pause", "nodes"},
		{"kill", "nemesis.kill", "nodes"},
		{"loss", "nemesis.loss", "nodes"},
		{"partition", "nemesis.partition", "spec"},
	}
	if len(faultKinds) != len(want) {
		t.Fatalf("fault kinds %+v, want %+v", faultKinds, want)
	}
	for i, w := range want {
		if k := faultKinds[i]; k.kind != w.kind || k.call != w.call || k.target != w.target || k.re == nil || k.phrases == "" {
			t.Errorf("row %d: %+v, want %+v", i, k, w)
		}
	}
	wantEvidence := map[string]string{
		"partition": "evidence.iptables_drops(min = 1)",
		"kill":      `evidence.process_state(state = "gone")`,
		"pause":     `evidence.process_state(state = "stopped")`,
		"loss":      "evidence.op_errors(during_fault = True)",
	}
	if !maps.Equal(defaultEvidence, wantEvidence) {
		t.Errorf("default evidence %v, want %v", defaultEvidence, wantEvidence)
	}
	if k := matchFaultKind("kill -STOP the leader"); k == nil || k.kind != "pause" {
		t.Errorf("kill -STOP: %+v, want a pause", k)
	}
}
