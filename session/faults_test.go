package session

import (
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/history"
	"github.com/faultline/faultline/interp"
	"github.com/faultline/faultline/nemesis"
	"github.com/faultline/faultline/verdict"
)

func TestFaultsOf(t *testing.T) {
	r := &interp.Result{
		Faults: []nemesis.Window{
			{Fault: "start-partition", Landed: true, Proven: true, Reason: "412 packets dropped", Start: 1, End: 5, ClientOK: 3, ClientInfo: 2},
			{Fault: "kill", Landed: false, Reason: "the read-back on the victims after inject did not show the fault in effect", Start: 6, End: -1, ClientOK: 4},
		},
		Landing: []nemesis.Finding{{Decl: "evidence.op_errors(during_fault=True)", Pass: true}},
		Healed:  nemesis.HealReport{"n1": nil},
	}
	fs := faultsOf(r)
	if len(fs) != 2 {
		t.Fatalf("got %d faults", len(fs))
	}
	p, k := fs[0], fs[1]
	if !p.Victim.Holds || !p.Client.Holds || !p.ClientDeclared || !p.Healed.Holds || !p.Declared.Holds {
		t.Errorf("landed partition: %+v", p)
	}
	if !k.Victim.Known || k.Victim.Holds || k.Client.Holds || k.Healed.Known {
		t.Errorf("unlanded, unhealed kill: %+v", k)
	}
	d := verdict.Decide(verdict.Evidence{Scenario: "S1", Attempted: true, Faults: fs,
		Oracle: verdict.Oracle{Outcome: verdict.Valid, Consumed: 10}, Run: verdict.Run{Ops: 10}})
	if d.Verdict != verdict.InconclusiveFaultNotProven {
		t.Errorf("a fault that did not land gave %s", d.Verdict)
	}
}

// A window configured but not proven by its effect (a partition of links
// no traffic used) is not a landed fault, whatever the table read back.
func TestFaultsOfNeedsEffect(t *testing.T) {
	r := &interp.Result{Faults: []nemesis.Window{{Fault: "start-partition", Landed: true, Start: 1, End: 2,
		Reason: "0 packets, bytes or connections dropped on the cut links, held 1ms: no traffic crossed the fault"}}}
	fs := faultsOf(r)
	if len(fs) != 1 || fs[0].Victim.Holds || !strings.Contains(fs[0].Victim.Evidence, "no traffic crossed") {
		t.Fatalf("faults %+v", fs)
	}
}

// smokeEvidence is a non-serious smoke run whose oracle passed, with faults.
func smokeEvidence(fs []verdict.Fault) verdict.Evidence {
	return verdict.Evidence{Scenario: "S1", Attempted: true, Faults: fs,
		Oracle: verdict.Oracle{Outcome: verdict.Valid, Consumed: 10}, Run: verdict.Run{Ops: 10}}
}

// A fault that never fired must not look like no fault: a failed injection
// (a node outside the cluster) and one scheduled after the workload ended
// each become a fault whose injector did not succeed, and the unit is
// INCONCLUSIVE-fault-not-proven naming it, not a PASS with no fault planned.
func TestFaultsOfScheduledButNotLanded(t *testing.T) {
	sec := int64(time.Second)
	nem := func(typ history.Type, f string, at int64, err any) history.Op {
		return history.Op{Process: history.NemesisProcess, Type: typ, F: f, Time: at, Error: err}
	}
	tests := []struct {
		name string
		plan []nemesis.Planned
		ops  []history.Op
		want string
	}{
		{"injection failed", []nemesis.Planned{{Fault: "start-partition", At: 5 * time.Second, Hold: 5 * time.Second}},
			[]history.Op{nem(history.Invoke, "start-partition", 5*sec, nil), nem(history.Fail, "start-partition", 5*sec+1, "partition: node n9 is not in the cluster")},
			"start-partition @T+5s for 5s: injector did not report success: injection failed: partition: node n9 is not in the cluster"},
		{"scheduled after the end", []nemesis.Planned{{Fault: "kill", At: 40 * time.Second, Hold: 5 * time.Second}},
			[]history.Op{{Process: 0, Type: history.OK, F: "read", Time: 29 * sec}},
			"kill @T+40s for 5s: injector did not report success: scheduled at T+40s, at or after the end of the workload (30s)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &interp.Result{Scheduled: tt.plan, Ops: tt.ops, Faults: nemesis.FaultWindows(tt.ops),
				Missed: nemesis.Missed(tt.plan, tt.ops, 30*time.Second, false)}
			d := verdict.Decide(smokeEvidence(faultsOf(r)))
			if d.Verdict != verdict.InconclusiveFaultNotProven || !strings.Contains(strings.Join(d.Reasons, "\n"), tt.want) {
				t.Errorf("got %s %q, want INCONCLUSIVE-fault-not-proven naming %q", d.Verdict, d.Reasons, tt.want)
			}
		})
	}
}

// Declared landing evidence that was not seen leaves every fault not
// proven, and with no fault at all it is a fault of its own: never the
// no-fault-planned branch.
func TestFaultsOfDeclaredLanding(t *testing.T) {
	unseen := nemesis.Finding{Decl: "evidence.iptables_drops(min=1)", Pass: false, Evidence: "0 packets dropped (want >= 1): "}
	tests := []struct {
		name   string
		faults []nemesis.Window
	}{
		{"with a proven window", []nemesis.Window{{Fault: "start-partition", Landed: true, Proven: true, Reason: "9 packets", End: 3}}},
		{"with no window", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &interp.Result{Faults: tt.faults, Landing: []nemesis.Finding{unseen}}
			d := verdict.Decide(smokeEvidence(faultsOf(r)))
			if d.Verdict != verdict.InconclusiveFaultNotProven || !strings.Contains(strings.Join(d.Reasons, "\n"), "evidence.iptables_drops(min=1)") {
				t.Errorf("got %s %q", d.Verdict, d.Reasons)
			}
		})
	}
}
