package verdict

import (
	"fmt"
	"strings"

	"github.com/faultline/faultline/internal/plural"
)

// ScenarioResult is one scenario's row for the session headline: its own
// decision (the aggregate when it has arms) and its arm decisions, if any.
type ScenarioResult struct {
	Decision Decision   `json:"decision"`
	Arms     []Decision `json:"arms,omitempty"`
}

// SessionEvidence is what the session headline reads.
type SessionEvidence struct {
	PlanError string           `json:"plan_error,omitempty"` // why the plan was not loaded; "" if it was
	SUTError  string           `json:"sut_error,omitempty"`  // why the SUT was unreachable; "" if it was reached
	Scenarios []ScenarioResult `json:"scenarios"`
}

// Session picks the session verdict by §2.5, from the strongest evidence and
// not from counts, and writes the one-line headline the report leads with:
//
//   - BLOCKED when nothing ran (plan rejected, SUT unreachable, every scenario
//     NOT-RUN or INCONCLUSIVE-env), and never when anything ran;
//   - FAIL when any scenario failed, leading with the findings; a
//     FAIL-nondeterministic one counts too, labelled non-reproducible;
//   - DONE when some scenario has a PASS with cited evidence and every
//     scenario has one; DONE_WITH_CONCERNS when others are inconclusive,
//     partial, not run, or passed without cited evidence;
//   - INCONCLUSIVE otherwise.
func Session(s SessionEvidence) (SessionVerdict, string) {
	if !anyRan(s.Scenarios) {
		return Blocked, "BLOCKED: " + blockedWhy(s)
	}
	var fails, concerns []string
	var hard, smoke []string // evidenced passes, strongest first when joined
	for i := range s.Scenarios {
		d := &s.Scenarios[i].Decision
		switch {
		case d.Verdict == FailReproducible:
			fails = append([]string{d.line()}, fails...)
		case d.Verdict == FailNondeterministic:
			fails = append(fails, d.line())
		case !d.evidencedPass():
			concerns = append(concerns, d.line())
		case d.Verdict == PassHardening:
			hard = append(hard, passRow(d))
		default:
			smoke = append(smoke, passRow(d))
		}
	}
	passed := strings.Join(append(hard, smoke...), ", ")
	switch {
	case len(fails) > 0:
		return Fail, fmt.Sprintf("FAIL: %s found: %s", plural.Count(len(fails), "oracle violation"), strings.Join(fails, "; "))
	case passed == "":
		return Inconclusive, "INCONCLUSIVE: no scenario earned an evidenced PASS: " + strings.Join(concerns, "; ")
	case len(concerns) > 0:
		return DoneWithConcerns, "DONE_WITH_CONCERNS: no violation found; passed: " + passed + "; concerns: " + strings.Join(concerns, "; ")
	}
	return Done, "DONE: no violation found; passed: " + passed
}

// anyRan reports whether any scenario or arm got past the pre-run probe.
func anyRan(scs []ScenarioResult) bool {
	ran := func(v Verdict) bool { return v.Known() && v != NotRun && v != InconclusiveEnv }
	for _, sc := range scs {
		if len(sc.Arms) == 0 && ran(sc.Decision.Verdict) {
			return true
		}
		for _, a := range sc.Arms {
			if ran(a.Verdict) {
				return true
			}
		}
	}
	return false
}

func blockedWhy(s SessionEvidence) string {
	switch {
	case s.PlanError != "":
		return "plan not loaded: " + s.PlanError
	case s.SUTError != "":
		return "SUT unreachable: " + s.SUTError
	case len(s.Scenarios) == 0:
		return "nothing ran: no scenario declared"
	}
	rows := make([]string, len(s.Scenarios))
	for i := range s.Scenarios {
		rows[i] = s.Scenarios[i].Decision.line()
	}
	return "nothing ran: " + strings.Join(rows, "; ")
}

// line is the one-line account of d: "S1 VERDICT: first reason", with the
// labels §2.5 asks for (a FAIL-nondeterministic is non-reproducible, or,
// when it was never re-run, of unknown reproducibility) and the missing
// evidence of a PASS that cites none.
func (d *Decision) line() string {
	s := d.Scenario + " " + string(d.Verdict)
	switch {
	case d.Verdict == FailNondeterministic && d.Evidence != nil && d.Evidence.Reruns.Attempted == 0:
		s += " (not re-run: reproducibility unknown)"
	case d.Verdict == FailNondeterministic:
		s += " (non-reproducible)"
	case d.Verdict.IsPass() && !d.evidencedPass():
		s += " without cited oracle or landing evidence"
	}
	if len(d.Reasons) > 0 {
		s += suffix(d.Reasons[0])
	}
	return s
}

// evidencedPass reports whether d is a PASS that cites oracle execution and
// landing evidence; only those count as passes (§2.3, §2.5).
func (d *Decision) evidencedPass() bool {
	return d.Verdict.IsPass() && d.Oracle != "" && d.Landing != ""
}

func passRow(d *Decision) string {
	return fmt.Sprintf("%s %s (tier %s)", d.Scenario, d.Verdict, d.TierMet)
}
