package session

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/faultline/faultline/interp"
	"github.com/faultline/faultline/nemesis"
	"github.com/faultline/faultline/verdict"
)

// faultsOf turns what the nemesis scheduled and did into the verdict's
// faults: one per fault window, landed only when the window's effect was
// proven on the victims (nemesis.Window: counters that show traffic hit the
// cut, process states), and one per scheduled fault that never took effect
// (its injection failed, or it was never issued before the workload ended
// or the run was interrupted), whose injector did not succeed. The
// scenario's declared landing evidence (evidence.*) holds for every fault
// or for none; declared evidence not seen with no fault at all is a fault
// of its own, so the verdict cannot take the no-fault-planned branch.
func faultsOf(r *interp.Result) []verdict.Fault {
	declaredClient := false
	var seen, unseen []string
	for _, f := range r.Landing {
		if strings.Contains(f.Decl, "op_errors") {
			declaredClient = true
		}
		if f.Pass {
			seen = append(seen, f.Decl+": "+f.Evidence)
		} else {
			unseen = append(unseen, f.Decl+": "+f.Evidence)
		}
	}
	var declared verdict.Fact // unknown: nothing declared
	switch {
	case len(unseen) > 0:
		declared = verdict.No(strings.Join(unseen, "; "))
	case len(seen) > 0:
		declared = verdict.Yes(strings.Join(seen, "; "))
	}
	var out []verdict.Fault
	for _, w := range r.Faults {
		f := verdict.Fault{Name: w.Fault, ClientDeclared: declaredClient, Declared: declared,
			Injector: verdict.Yes("the nemesis completed " + w.Fault), Partition: verdict.Partition(w.Shape)}
		if w.Proven {
			f.Victim = verdict.Yes("read back on the victims: " + w.Reason)
		} else {
			f.Victim = verdict.No(w.Reason)
		}
		// A refused op (a cas whose value did not match) happens on a
		// healthy system too: no sign the fault reached the clients.
		seen := fmt.Sprintf("clients in the window: %d ok, %d fail, %d info (%d refused by the data, not counted)", w.ClientOK, w.ClientFail, w.ClientInfo, w.ClientRefused)
		if w.ClientFail+w.ClientInfo > 0 {
			f.Client = verdict.Yes(seen)
		} else {
			f.Client = verdict.No(seen)
		}
		switch {
		case w.Held == nil:
		case *w.Held:
			f.Held = verdict.Yes("still in effect when the hold ended, read back before healing")
		default:
			f.Held = verdict.No("gone before the hold ended (reverted or bypassed behind faultline's back)")
		}
		switch {
		case w.OneShot != "":
			f.OneShot = w.OneShot
		case w.Healed != nil && !*w.Healed:
			f.Healed = verdict.No(notHealed(w))
		case w.End >= 0 && r.Healed != nil:
			f.Healed = verdict.Yes("healed, and the final heal found no faultline rules left")
		}
		out = append(out, f)
	}
	for _, m := range r.Missed {
		out = append(out, verdict.Fault{Name: m.Fault, ClientDeclared: declaredClient, Declared: declared,
			Injector: verdict.No(m.Reason), Victim: verdict.No("never in effect: nothing to read back")})
	}
	if len(out) == 0 && len(unseen) > 0 {
		out = append(out, verdict.Fault{Name: "declared landing evidence", Declared: declared,
			Injector: verdict.No("no fault took effect in the run"), Victim: verdict.No("no fault window to read back")})
	}
	return out
}

// notHealed says that a fault's removal was not shown and what to change:
// the stop (or heal) must undo the fault on each victim, and the read-back
// must see it gone.
func notHealed(w nemesis.Window) string {
	why := cmp.Or(w.HealNote, "its removal was not read back")
	if f, ok := nemesis.ByOp(w.Fault); ok && f.FromScript {
		return "the fault was not shown gone after it ended: " + why +
			"; fix: make the fault's stop (and heal) undo on each victim what start did, and verify read back what stop changes, so verify returns nothing for a victim once it is healed"
	}
	return "the fault was not shown gone after it ended: " + why + "; fix: run 'faultline heal' on the nodes and look for what keeps the fault in place"
}
