package verdict

import "github.com/faultline/faultline/internal/plural"

// interrupted is the decision for a run cancelled before its budget ended
// that found no violation (a violation is a FAIL: the recorded history is
// real, however short). It is never a PASS: the schedule the claim rests on
// did not run to its end. A fault scheduled and not proven (it never fired,
// or fired without evidence) makes it INCONCLUSIVE-fault-not-proven; with
// every fault proven and the checker passing it is PARTIAL-model, the
// checker having covered a prefix of the planned run; a checker that did
// not pass leaves nothing to separate pass from fail. See the package doc.
func interrupted(e *Evidence) (Verdict, []string) {
	const head = "interrupted: the run was cancelled before its budget ended"
	if len(e.Faults) > 0 && !e.faultActive() {
		return InconclusiveFaultNotProven, append([]string{head + "; not every scheduled fault landed"}, notProven(e)...)
	}
	faults := "no fault planned"
	if len(e.Faults) > 0 {
		faults = plural.Count(len(e.Faults), "fault") + " landed before the interruption"
	}
	if e.Oracle.Outcome == Valid {
		return PartialModel, []string{head + "; the checker covered only the history prefix recorded before it (" + faults + ")",
			"interrupted: the planned run's remainder was never checked"}
	}
	return InconclusiveOracleTooWeak, []string{head + "; the checker " + outcomeText(e.Oracle.Outcome) + " on the prefix recorded (" + faults + ")" + suffix(e.Oracle.Summary)}
}
