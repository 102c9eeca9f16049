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
		{"netem", "nemesis.netem", "nodes"},
		{"loss", "nemesis.loss", "nodes"},
		{"partition", "nemesis.partition", "spec"},
		{"clock", "nemesis.clock", "nodes"},
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
		"netem":     "evidence.landed()",
		"clock":     "evidence.landed()",
	}
	if !maps.Equal(defaultEvidence, wantEvidence) {
		t.Errorf("default evidence %v, want %v", defaultEvidence, wantEvidence)
	}
	// The order decides what a clause that could be two faults is: pause
	// before kill, plain packet loss before netem unless the clause asks
	// for what only netem does, any other fault before a clock that is
	// only mentioned.
	for clause, want := range map[string]string{
		"kill -STOP the leader":                            "pause",
		"packet loss 30%":                                  "loss",
		"packet loss 10% and packet reordering":            "netem",
		"netem loss 10%":                                   "netem",
		"kill -9 the leader, timed on the monotonic clock": "kill",
		"minority partition while clocks are skewed":       "partition",
		"clock skew of 5s":                                 "clock",
		"corrupt the WAL on one node":                      "",
		"reordered writes across leader changes":           "",
	} {
		got := ""
		if k := matchFaultKind(clause); k != nil {
			got = k.kind
		}
		if got != want {
			t.Errorf("%q: matched %q, want %q", clause, got, want)
		}
	}
}
