package verdict

import (
	"fmt"
	"strings"

	"github.com/faultline/faultline/internal/plural"
)

// Decision is a verdict stored with the evidence that produced it (§2.3):
// the tier met, the reasons in the order the decision took them, the oracle's
// execution evidence, the landing evidence, and every audit box.
type Decision struct {
	Scenario string      `json:"scenario"`
	Verdict  Verdict     `json:"verdict"`
	TierMet  Tier        `json:"tier_met"`
	Reasons  []string    `json:"reasons"` // the first line is the one-line reason
	Oracle   string      `json:"oracle_evidence"`
	Landing  string      `json:"landing_evidence"`
	Audits   []AuditItem `json:"audits,omitempty"`
	// Blockers are the gates that withheld a PASS, each once with what to
	// change (fix.go), most decisive first; none for a PASS or a FAIL.
	Blockers []Blocker `json:"blockers,omitempty"`
	// Evidence is what the decision was made from, so a stored verdict can
	// be recomputed and checked (Decide(*d.Evidence) gives d back). An arm
	// aggregate has none of its own: its arms carry theirs.
	Evidence *Evidence `json:"evidence,omitempty"`
}

// Decide walks the §2.2 decision tree over e and applies the §2.3 gates to a
// PASS: the budget tier caps it, an open weak-oracle item on a serious
// scenario stops PASS-hardening, and an open red flag makes it PARTIAL-surface.
func Decide(e Evidence) Decision {
	met, notes := TierMet(e.Budgets, e.measured())
	a := newAuditor(&e, met, notes)
	stored := e
	d := Decision{
		Evidence: &stored,
		Scenario: e.Scenario,
		TierMet:  met,
		Oracle:   oracleText(&e),
		Landing:  landingEvidence(&e),
		Audits:   a.all(),
	}
	d.Verdict, d.Reasons = tree(&e)
	gated := d.Verdict.IsPass()
	if gated {
		d.Verdict, d.Reasons = gate(d.Verdict, d.Reasons, a, d.Audits)
	}
	d.Blockers = blockers(&d, a, gated)
	return d
}

// tree is §2.2 as written, with the package doc's choices for a checker that
// answered unknown and for a skipped checker over unclean surface signals.
func tree(e *Evidence) (Verdict, []string) {
	if !e.Attempted {
		return NotRun, []string{"not attempted: " + orDefault(e.NotRunReason, "no reason recorded")}
	}
	if len(e.MissingCapabilities) > 0 {
		return InconclusiveEnv, []string{"capability missing before the run: " + strings.Join(e.MissingCapabilities, ", ")}
	}
	if e.Oracle.Outcome == Invalid && e.Oracle.Misfit != "" {
		// A checker the model does not call for cannot witness a violation
		// of the claim (§2.1: checker ≠ model is too weak, not a FAIL).
		return InconclusiveOracleTooWeak, []string{"the checker does not fit the model: " + e.Oracle.Misfit,
			"its violation is not evidence against the claim" + suffix(e.Oracle.Summary)}
	}
	if e.Oracle.Outcome == Invalid {
		return failVerdict(e)
	}
	if e.Interrupted {
		return interrupted(e)
	}
	if len(e.Faults) > 0 && !e.faultActive() {
		return InconclusiveFaultNotProven, notProven(e)
	}
	active := len(e.Faults) > 0
	if s := &e.Sensitivity; e.Oracle.Outcome == Valid && len(s.Escaped) > 0 {
		return InconclusiveOracleTooWeak, []string{fmt.Sprintf("the checker accepted %d of %d histories mutated to be wrong (green-but-broken: SA1)", len(s.Escaped), s.Checked),
			"escaped mutant: " + s.Escaped[0]}
	}
	if s := &e.Sensitivity; e.serious() && e.Oracle.Outcome == Valid && s.Ran && (s.Checked == 0 || len(s.Unfit) > 0) {
		// "Could have failed" is not optional on a serious claim: an oracle
		// no wrong history could be fed to was never shown able to fail.
		why := orDefault(strings.Join(s.Unfit, "; "), orDefault(s.Skipped, "no mutation fits the oracle on this history"))
		return InconclusiveOracleTooWeak, []string{"no wrong history could be made for the oracle, so it was never shown able to fail (SA1): " + why}
	}
	if !e.serious() {
		why := "§7.M not applicable: the Oracle field is the criterion (oracle " + outcomeText(e.Oracle.Outcome) + ")"
		switch {
		case active && e.Oracle.Outcome == Valid:
			return PassHardening, []string{why + "; every fault landed"}
		case active:
			return PassSmoke, []string{why + "; faults landed but the oracle did not pass"}
		}
		return PassSmoke, []string{why + "; no fault planned"}
	}
	if !e.Oracle.ran() {
		if e.Surface.ok() {
			return PartialSurface, []string{"the declared §7.M checker did not run; surface signals clean: " + orDefault(e.Surface.Evidence, "no detail")}
		}
		_, ev := judgeFact(e.Surface, "surface signals clean")
		return InconclusiveOracleTooWeak, []string{"the declared §7.M checker did not run and nothing else separates pass from fail (" + ev + ")"}
	}
	if gaps := historyGaps(e, active); len(gaps) > 0 {
		return InconclusiveOracleTooWeak, gaps
	}
	if sub := subset(e); sub != "" {
		return PartialModel, []string{"the checker covered a subset: " + sub}
	}
	if active {
		return PassHardening, []string{"every fault landed; the checker consumed the complete history; no anomaly"}
	}
	return PassSmoke, []string{"no fault planned; the checker consumed the complete history; no anomaly"}
}

// failVerdict splits a violation by whether a same-seed re-run reproduced it.
func failVerdict(e *Evidence) (Verdict, []string) {
	why := "oracle violation" + suffix(e.Oracle.Summary)
	r := e.Reruns
	switch {
	case r.Reproduced > 0 && r.Different >= r.Reproduced:
		// Wrong again every time, but never the same way: reproducible
		// as a violation, and the reasons say it was a different one.
		return FailReproducible, append([]string{why, fmt.Sprintf("reproducible: a violation again in %d of %d re-runs with the same seed, configuration and fault sequence, a different one: the original anomaly did not recur",
			r.Reproduced, r.Attempted)}, r.Runs...)
	case r.Reproduced > 0 && r.Different > 0:
		return FailReproducible, append([]string{why, fmt.Sprintf("reproduced in %d of %d re-runs with the same seed, configuration and fault sequence; %d more found a violation again, a different one",
			r.Reproduced-r.Different, r.Attempted, r.Different)}, r.Runs...)
	case r.Reproduced > 0:
		return FailReproducible, append([]string{why, fmt.Sprintf("reproduced in %d of %d re-runs with the same seed, configuration and fault sequence", r.Reproduced, r.Attempted)}, r.Runs...)
	case r.Attempted == 0:
		return FailNondeterministic, []string{why, "not re-run: reproduction not shown"}
	}
	return FailNondeterministic, append([]string{why, fmt.Sprintf("not reproduced in %s with the same seed, configuration and fault sequence", plural.Count(r.Attempted, "re-run"))}, r.Runs...)
}

// notProven names every scheduled fault whose landing evidence is missing.
func notProven(e *Evidence) []string {
	var why []string
	for i := range e.Faults {
		if f := &e.Faults[i]; !f.landed() {
			why = append(why, "fault not proven: "+f.Name+": "+landingGap(f))
		}
	}
	return why
}

// historyGaps lists why the history or checker cannot separate pass from
// fail (§2.1, §9 weak history), empty when nothing is missing.
func historyGaps(e *Evidence, active bool) []string {
	var gaps []string
	add := func(f Fact, what string) {
		if !f.ok() {
			_, ev := judgeFact(f, what)
			gaps = append(gaps, "too weak to separate pass from fail: "+ev)
		}
	}
	if e.Oracle.Outcome == Unknown {
		gaps = append(gaps, "the checker could not decide"+suffix(e.Oracle.Summary))
	}
	if e.Oracle.Outcome == Valid && e.Oracle.Consumed <= 0 {
		// A history where nothing took effect is trivially valid: the
		// checker answered its question, but the run proves nothing.
		gaps = append(gaps, "the checker found the history valid, but no op in it took effect: a vacuous history proves nothing"+suffix(e.Oracle.Summary))
	}
	add(e.Oracle.MatchesModel, "checker matches the model")
	add(e.History.Timestamps, "answered ops timestamped")
	add(e.History.TimeoutMarkers, "timeout markers recorded")
	add(e.History.Monotonic, "history times monotonic")
	if active {
		add(e.History.FaultEpoch, "fault_epoch recorded while faults overlapped")
	}
	c := e.Claims
	if c.Replication || c.Failover || containsAny(c.Categories, Membership) {
		add(e.History.NodeSeen, "node_seen recorded for a replication/leadership/membership claim")
	}
	return gaps
}

// subset names the part of the claim the checker covered when it did not
// cover all of it, "" when it covered every op of a complete history.
func subset(e *Evidence) string {
	o := &e.Oracle
	switch {
	case o.Subset != "":
		return o.Subset
	case !e.History.Complete.ok():
		_, ev := judgeFact(e.History.Complete, "history complete")
		return "history prefix only (" + ev + ")"
	case e.Run.Ops > 0 && o.Consumed+o.Dropped < e.Run.Ops:
		return fmt.Sprintf("%d of %d issued ops", o.Consumed+o.Dropped, e.Run.Ops)
	}
	return ""
}

// gate applies §2.3 to a PASS from the tree.
func gate(v Verdict, why []string, a *auditor, items []AuditItem) (Verdict, []string) {
	tier := "tier met: " + string(a.met) + " (" + strings.Join(a.tierNotes, "; ") + ")"
	if v == PassHardening && !a.met.AtLeast(TierHardening) {
		v, tier = PassSmoke, "capped at PASS-smoke, "+tier
	}
	why = append(why, tier)
	if v == PassHardening && a.met == TierRelease {
		why = append(why, "release tier met: PASS-hardening with the release annotation")
	}
	rf, wo := items[:len(redFlags)], items[len(redFlags):len(redFlags)+len(weakOracles)]
	if v == PassHardening && a.e.serious() {
		to, open := PartialModel, []string(nil)
		for i, it := range wo {
			if it.Status.open() {
				open = append(open, itemText(it))
				if it.Status == Failed && weakOracles[i].surfaceOnly {
					to = PartialSurface
				}
			}
		}
		if len(open) > 0 {
			// The downgrade is the one-line reason; the pass it stopped follows.
			return to, append([]string{"weak oracle stops PASS-hardening: " + strings.Join(open, "; ")}, why...)
		}
	}
	var open []string
	for _, it := range rf {
		if it.Status.open() {
			open = append(open, itemText(it))
		}
	}
	if len(open) > 0 {
		return PartialSurface, append([]string{"red flag open, not a PASS: " + strings.Join(open, "; ")}, why...)
	}
	return v, why
}

func itemText(it AuditItem) string {
	return fmt.Sprintf("%s %s %s (%s)", it.ID, it.Title, it.Status, it.Evidence)
}

func outcomeText(o Outcome) string {
	if o == "" {
		return "not run"
	}
	return string(o)
}

// oracleText is the report's "Oracle execution evidence" cell.
func oracleText(e *Evidence) string {
	o := &e.Oracle
	if !e.ran() || !o.ran() {
		return "oracle did not run"
	}
	s := fmt.Sprintf("%s: %s; consumed %d of %d issued ops (%d dropped), %s", orDefault(o.Name, "oracle"), o.Outcome, o.Consumed, e.Run.Ops, o.Dropped, plural.Count(o.Keys, "key"))
	if o.Subset != "" {
		s += "; subset: " + o.Subset
	}
	return s + suffix(o.Summary)
}

// landingEvidence is the report's "Nemesis landing evidence" cell.
func landingEvidence(e *Evidence) string {
	switch {
	case !e.ran():
		return "n/a — scenario did not run"
	case len(e.Faults) == 0:
		return "n/a — no fault (PASS-smoke)"
	}
	parts := make([]string, len(e.Faults))
	for i := range e.Faults {
		f := &e.Faults[i]
		if f.landed() {
			parts[i] = f.Name + ": " + landingText(f)
		} else {
			parts[i] = f.Name + ": NOT PROVEN: " + landingGap(f)
		}
	}
	return strings.Join(parts, "; ")
}
