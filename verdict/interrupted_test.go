package verdict

import (
	"strings"
	"testing"
)

// TestDecideInterruptedAndUnfired covers the branches for a run cancelled
// before its budget ended, a scheduled fault that never fired, and declared
// landing evidence that was not seen.
func TestDecideInterruptedAndUnfired(t *testing.T) {
	unfired := Fault{Name: "start-partition @T+40s for 5s",
		Injector: No("scheduled at T+40s, at or after the end of the workload (30s): never injected"),
		Victim:   No("never in effect: nothing to read back")}
	tests := []struct {
		name   string
		base   func() Evidence
		edit   func(e *Evidence)
		want   Verdict
		reason string // the first reason starts with it
		also   string // some reason contains it
	}{
		{"interrupted, every fault landed, checker passed", hardening, func(e *Evidence) { e.Interrupted = true },
			PartialModel, "interrupted: ", "history prefix"},
		{"interrupted, no fault planned", smoke, func(e *Evidence) { e.Interrupted = true },
			PartialModel, "interrupted: ", "no fault planned"},
		{"interrupted before a fault fired", hardening, func(e *Evidence) {
			e.Interrupted = true
			e.Faults = append(e.Faults, Fault{Name: "kill @T+50s for 5s", Injector: No("never injected: the run was interrupted")})
		}, InconclusiveFaultNotProven, "interrupted: ", "fault not proven: kill @T+50s for 5s: injector did not report success: never injected: the run was interrupted"},
		{"interrupted, checker undecided", hardening, func(e *Evidence) {
			e.Interrupted = true
			e.Oracle.Outcome = Unknown
		}, InconclusiveOracleTooWeak, "interrupted: ", "the checker unknown"},
		{"interrupted, violation found: still a FAIL", hardening, func(e *Evidence) {
			e.Interrupted = true
			e.Oracle.Outcome = Invalid
		}, FailNondeterministic, "oracle violation", ""},
		{"interrupted non-serious run is no PASS", nonSerious, func(e *Evidence) { e.Interrupted = true },
			PartialModel, "interrupted: ", ""},
		{"fault scheduled after the workload", smoke, func(e *Evidence) { e.Faults = []Fault{unfired} },
			InconclusiveFaultNotProven, "fault not proven: start-partition @T+40s for 5s: injector did not report success: scheduled at T+40s", ""},
		{"declared landing evidence not seen", hardening, func(e *Evidence) {
			for i := range e.Faults {
				e.Faults[i].Declared = No("evidence.iptables_drops(min=1): 0 packets dropped (want >= 1)")
			}
		}, InconclusiveFaultNotProven, "fault not proven: isolate leader: declared landing evidence not seen: evidence.iptables_drops(min=1)", ""},
		{"declared landing evidence seen", hardening, func(e *Evidence) {
			for i := range e.Faults {
				e.Faults[i].Declared = Yes("evidence.iptables_drops(min=1): 412 packets dropped")
			}
		}, PassHardening, "every fault landed", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := tt.base()
			tt.edit(&e)
			d := Decide(e)
			if d.Verdict != tt.want || len(d.Reasons) == 0 || !strings.HasPrefix(d.Reasons[0], tt.reason) {
				t.Fatalf("got %s %q, want %s starting %q", d.Verdict, d.Reasons, tt.want, tt.reason)
			}
			if tt.also != "" && !strings.Contains(strings.Join(d.Reasons, "\n"), tt.also) {
				t.Errorf("reasons %q lack %q", d.Reasons, tt.also)
			}
			if e.Interrupted && strings.Contains(strings.Join(d.Reasons, "\n")+d.Landing, "every fault landed") {
				t.Errorf("an interrupted run says every fault landed: %q / %s", d.Reasons, d.Landing)
			}
		})
	}
}
