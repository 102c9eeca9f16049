package verdict

import (
	"fmt"
	"strings"
)

// Status is the state of one audit box.
type Status string

// Audit statuses. For a weak-oracle item, Pass means the weakness is absent.
// CannotJudge means the run lacks the data; it never counts as a pass.
const (
	Pass        Status = "pass"
	Failed      Status = "fail"
	CannotJudge Status = "cannot-judge"
	NA          Status = "n/a"
)

// open reports whether s leaves the box unchecked: failed or not judged.
func (s Status) open() bool { return s == Failed || s == CannotJudge }

// AuditItem is one box of the report's "Green-but-broken check" (§3, §7.2).
type AuditItem struct {
	ID       string `json:"id"` // "RF1".."RF10", "WO1".."WO14", "SA1"
	Title    string `json:"title"`
	Status   Status `json:"status"`
	Evidence string `json:"evidence"`
	// Fix says what to change to close an open item (fix.go); "" when
	// the item is not open.
	Fix string `json:"fix,omitempty"`
}

// MinSeeds is how many distinct seeds must agree before a hardening PASS
// stands (§1.6: statistical claims ≥3 seeds agreeing; see the package doc).
const MinSeeds = 3

// MinHistoryOps is the op count a history-checked hardening run needs when
// its tier declares none (§1.6 default: ≥10k ops).
const MinHistoryOps = 10_000

// auditor holds what every audit item reads: the evidence, the tier met, and
// the tier a PASS would claim.
type auditor struct {
	e         *Evidence
	met       Tier
	tierNotes []string
	claimed   Tier
}

// Audit runs the ten red-flag checks (§3.1) and the fourteen weak-oracle
// checks (§3.2) over e, in that order, each with its evidence. Items that
// depend on a tier judge the tier a PASS would claim: hardening when every
// scheduled fault landed (and, off the serious path, the oracle passed) and
// the hardening tier was met, smoke otherwise. A scenario that did not run
// gets every item n/a.
func Audit(e Evidence) []AuditItem {
	met, notes := TierMet(e.Budgets, e.measured())
	return newAuditor(&e, met, notes).all()
}

func newAuditor(e *Evidence, met Tier, notes []string) *auditor {
	claimed := TierSmoke
	if e.faultActive() && (e.serious() || e.Oracle.Outcome == Valid) && met.AtLeast(TierHardening) {
		claimed = TierHardening
	}
	return &auditor{e: e, met: met, tierNotes: notes, claimed: claimed}
}

// all evaluates every item in report order.
func (a *auditor) all() []AuditItem {
	items := make([]AuditItem, 0, len(redFlags)+len(weakOracles))
	for _, c := range redFlags {
		items = append(items, a.run(c))
	}
	for _, c := range weakOracles {
		items = append(items, a.run(c))
	}
	return append(items, a.run(sensitivityCheck))
}

// check is one audit item's definition.
type check struct {
	id, title string
	judge     func(a *auditor) (Status, string)
	// surfaceOnly marks weak-oracle items whose failure means only surface
	// signals back the result, so the downgrade is PARTIAL-surface.
	surfaceOnly bool
}

func (a *auditor) run(c check) AuditItem {
	if !a.e.ran() {
		return AuditItem{ID: c.id, Title: c.title, Status: NA, Evidence: "scenario did not run"}
	}
	st, ev := c.judge(a)
	return AuditItem{ID: c.id, Title: c.title, Status: st, Evidence: ev, Fix: a.fix(c.id, st)}
}

// judgeFact maps a Fact to a status, with a fallback text for missing evidence.
func judgeFact(f Fact, what string) (Status, string) {
	ev := f.Evidence
	switch {
	case !f.Known:
		return CannotJudge, what + ": not established" + suffix(ev)
	case f.Holds:
		return Pass, orDefault(ev, what)
	default:
		return Failed, what + ": no" + suffix(ev)
	}
}

// worst folds statuses: fail beats cannot-judge beats pass.
func worst(a, b Status) Status {
	switch {
	case a == Failed || b == Failed:
		return Failed
	case a == CannotJudge || b == CannotJudge:
		return CannotJudge
	}
	return Pass
}

func suffix(ev string) string {
	if ev == "" {
		return ""
	}
	return ": " + ev
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func rate(ops int64, secs float64) float64 {
	if secs <= 0 {
		return 0
	}
	return float64(ops) / secs
}

func kindsText(ks []OracleKind) string {
	s := make([]string, len(ks))
	for i, k := range ks {
		s[i] = string(k)
	}
	return strings.Join(s, " + ")
}

// sensitivityCheck is the checker-sensitivity audit, after the weak-oracle
// items: did the oracle reject histories mutated to be wrong? A failure
// already decided the verdict (INCONCLUSIVE-oracle-too-weak); the item
// shows the evidence in the green-but-broken list.
var sensitivityCheck = check{id: "SA1", title: "Checker rejects wrong histories", judge: (*auditor).sensitive}

func (a *auditor) sensitive() (Status, string) {
	s := a.e.Sensitivity
	switch {
	case !s.Ran && a.e.Oracle.Outcome == Valid:
		return CannotJudge, "the sensitivity audit did not run"
	case !s.Ran:
		return NA, "the oracle did not pass, so there is no green result to audit"
	case len(s.Unfit) > 0 && a.e.serious():
		return Failed, "no mutant fits: " + strings.Join(s.Unfit, "; ")
	case s.Checked == 0 && a.e.serious():
		return Failed, "no mutation applies, so the oracle was never shown able to fail: " + orDefault(s.Skipped, "no op shape the audit knows")
	case s.Checked == 0:
		return NA, "no mutation applies: " + orDefault(s.Skipped, "no op shape the audit knows")
	case len(s.Escaped) > 0:
		return Failed, fmt.Sprintf("accepted %d of %d mutants: %s", len(s.Escaped), s.Checked, strings.Join(s.Escaped, "; "))
	}
	return Pass, fmt.Sprintf("rejected all %d mutants (%s)", s.Checked, strings.Join(s.Kinds, ", "))
}
