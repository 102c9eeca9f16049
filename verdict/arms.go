package verdict

import (
	"fmt"
	"strings"
)

// AggregateArms folds the arm decisions of one §7.M.S scenario into the
// scenario's own row by §2.4's downgrade rule:
//
//   - any FAIL arm makes the scenario FAIL, FAIL-reproducible first;
//   - any NOT-RUN or PARTIAL arm caps it at PARTIAL-surface, however many
//     arms passed (a surface that did not run is a surface not covered);
//   - any INCONCLUSIVE arm caps it at PARTIAL-surface too [executor choice];
//   - otherwise PASS-hardening if every arm is, else PASS-smoke.
//
// An unrecognised arm verdict counts as a downgrade, never as a pass. The
// aggregate's tier is the weakest arm's: it cannot claim more than that.
func AggregateArms(scenario string, arms []Decision) Decision {
	d := Decision{Scenario: scenario, TierMet: TierNone}
	if len(arms) == 0 {
		d.Verdict, d.Reasons = NotRun, []string{"no arm declared"}
		d.Oracle, d.Landing = "n/a — no arm", "n/a — no arm"
		return d
	}
	d.TierMet = arms[0].TierMet
	oracles, landings := make([]string, len(arms)), make([]string, len(arms))
	for i, a := range arms {
		if !a.TierMet.AtLeast(d.TierMet) {
			d.TierMet = a.TierMet
		}
		oracles[i], landings[i] = a.Scenario+": "+a.Oracle, a.Scenario+": "+a.Landing
	}
	d.Oracle, d.Landing = strings.Join(oracles, "; "), strings.Join(landings, "; ")
	d.Verdict, d.Reasons = aggregate(arms)
	d.Blockers = armBlockers(d.Verdict, arms)
	return d
}

// aggregate is the §2.4 rule itself. A PASS arm without cited evidence is
// no pass (§2.3 "Evidence").
func aggregate(arms []Decision) (Verdict, []string) {
	for _, want := range []Verdict{FailReproducible, FailNondeterministic} {
		if why := armsWhere(arms, func(d *Decision) bool { return d.Verdict == want }); len(why) > 0 {
			return want, append([]string{"an arm failed: " + string(want)}, why...)
		}
	}
	if why := armsWhere(arms, func(d *Decision) bool { return !d.evidencedPass() }); len(why) > 0 {
		return PartialSurface, append([]string{"capped at PARTIAL-surface: not every arm passed"}, why...)
	}
	if why := armsWhere(arms, func(d *Decision) bool { return d.Verdict != PassHardening }); len(why) > 0 {
		return PassSmoke, append([]string{"every arm passed, not every arm at hardening"}, why...)
	}
	return PassHardening, []string{fmt.Sprintf("all %d arms PASS-hardening", len(arms))}
}

// armsWhere describes the arms pick selects, one line each.
func armsWhere(arms []Decision, pick func(*Decision) bool) []string {
	var why []string
	for i := range arms {
		if d := &arms[i]; pick(d) {
			why = append(why, d.line())
		}
	}
	return why
}
