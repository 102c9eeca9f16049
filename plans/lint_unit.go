package plans

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/faultline/faultline/verdict"
)

// unit is what gets a verdict: a scenario without arms, or one arm.
type unit struct {
	s *Scenario
	a *Arm
}

func (u unit) id() string {
	if u.a != nil {
		return u.a.ID
	}
	return u.s.ID
}

func (u unit) pos() Pos {
	if u.a != nil {
		return u.a.Pos
	}
	return u.s.Pos
}

func (u unit) field(name string) *Field { return u.s.FieldFor(u.a, name) }

// budget returns the arm's own tier, or the scenario's.
func (u unit) budget(t verdict.Tier) *Budget {
	if u.a != nil {
		if b := u.a.Budgets.Tier(t); b != nil {
			return b
		}
	}
	return u.s.Budgets.Tier(t)
}

func (u unit) model() *ModelBlock {
	if u.a != nil && u.a.Model != nil {
		return u.a.Model
	}
	return u.s.Model
}

func (l *linter) scenario(s *Scenario) {
	switch {
	case s.Name == "":
		l.report("name-style", s.Pos, s.ID, "", "scenario has no name",
			"name it after the claim it falsifies: `### Scenario "+s.ID+": no_lost_ack_under_partition`")
	case !snakeRe.MatchString(plain(s.Name)):
		l.report("name-style", s.Pos, s.ID, "", "scenario name "+quote(s.Name)+" is not snake_case",
			"name it after the claim it falsifies, in snake_case")
	}
	l.falsifies(s)
	l.targets(s)
	for _, name := range []string{FieldCloses, FieldTechnique, FieldObservability} {
		if s.Field(name) == nil {
			l.report("field-recommended", s.Pos, s.ID, name, "field is missing", "add `- **"+name+":** ...`")
		}
	}
	l.gating(s)
	l.arms(s)
	if len(s.Arms) == 0 {
		l.unit(unit{s: s})
	}
	for _, a := range s.Arms {
		l.unit(unit{s: s, a: a})
	}
}

func (l *linter) falsifies(s *Scenario) {
	f := s.Field(FieldFalsifies)
	switch {
	case f == nil:
		l.report("falsifies-missing", s.Pos, s.ID, FieldFalsifies, "scenario names no claim it falsifies",
			"add `- **Falsifies if it FAILs:** C1` with ids from §1b")
		return
	case len(s.Falsifies) == 0:
		l.report("falsifies-missing", f.Pos, s.ID, FieldFalsifies, quote(f.Value)+" names no claim id",
			"list claim ids from §1b, such as `C1, C3`")
		return
	}
	for _, id := range s.Falsifies {
		if l.p.Claim(id) == nil {
			l.report("claim-unknown", f.Pos, s.ID, FieldFalsifies, "claim "+id+" is not declared in §1b",
				"add "+id+" to §1b or fix the id")
		}
	}
}

// gating checks §7.M and §7.M.S against the categories of the claims falsified.
func (l *linter) gating(s *Scenario) {
	g := s.Gate
	if !g.Serious && s.ModelNA == nil && s.Model == nil && !anyArmModel(s) {
		l.report("model-na-missing", s.Pos, s.ID, "§7.M", "no §7.M block and no `§7.M: not applicable` line",
			"write `§7.M: not applicable (no gated claim category falsified)`")
	}
	if g.Surface && s.Surface == nil {
		l.report("surface-required", s.Pos, s.ID, "§7.M.S", "falsifies "+l.gatedClaims(s, verdict.ClaimCategory.Surface)+" but has no §7.M.S block",
			"add `#### §7.M.S — Surface decomposition` with Surfaces, Operations, Adversarial inputs, Positive controls, "+
				"Negative controls, Delayed / async paths, Observability paths and Scenario arms")
	}
	sb := s.Surface
	if sb == nil {
		return
	}
	var missing []string
	required := surfaceRequired
	if slices.Contains(g.Categories, verdict.Fairness) {
		required = slices.Concat(required, []string{FieldGroup, FieldThresholds})
	}
	for _, name := range required {
		if f := sb.Field(name); f == nil || isPlaceholder(plain(f.Value)) {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		l.report("surface-incomplete", sb.Pos, s.ID, "§7.M.S", "missing "+strings.Join(missing, ", "),
			"fill every §7.M.S field; negative controls must cover metrics, logs and async paths too")
	}
	if len(s.Arms) == 0 && (len(sb.Surfaces) > 3 || len(g.Categories) > 3) {
		l.report("arms-needed", sb.Pos, s.ID, FieldArms, fmt.Sprintf("%d surfaces and %d claim categories in one scenario",
			len(sb.Surfaces), len(g.Categories)), "split it into arms `"+s.ID+"/<surface>`, each with its own oracle and §7.M")
	}
}

func anyArmModel(s *Scenario) bool {
	for _, a := range s.Arms {
		if a.Model != nil {
			return true
		}
	}
	return false
}

// gatedClaims names the claims of s whose category passes keep, with their
// categories: "C1 (safety), C2 (durability)".
func (l *linter) gatedClaims(s *Scenario, keep func(verdict.ClaimCategory) bool) string {
	var parts []string
	for _, id := range s.Falsifies {
		c := l.p.Claim(id)
		if c == nil {
			continue
		}
		var cats []string
		for _, cat := range c.Categories {
			if keep(cat) {
				cats = append(cats, string(cat))
			}
		}
		if len(cats) > 0 {
			parts = append(parts, id+" ("+strings.Join(cats, "/")+")")
		}
	}
	return strings.Join(parts, ", ")
}

// quoteAll quotes each phrase: "a", "b".
func quoteAll(phrases []string) string {
	q := make([]string, len(phrases))
	for i, p := range phrases {
		q[i] = quote(p)
	}
	return strings.Join(q, ", ")
}

func (l *linter) arms(s *Scenario) {
	if s.Surface != nil {
		f := s.Surface.Field(FieldArms)
		for _, id := range s.Surface.ArmIDs {
			if base, _, _ := strings.Cut(id, "/"); base != s.ID {
				l.report("arm-id", fieldPos(f, s.Surface.Pos), s.ID, FieldArms, "arm "+id+" does not belong to "+s.ID,
					"name the arm `"+s.ID+"/<surface>`")
			}
		}
	}
	seen := map[string]bool{}
	for _, a := range s.Arms {
		if seen[a.ID] {
			l.report("id-duplicate", a.Pos, a.ID, "", "arm "+a.ID+" is declared twice", "give each arm one section")
		}
		seen[a.ID] = true
		switch {
		case a.Section && !a.Listed:
			l.report("arm-unlisted", a.Pos, a.ID, FieldArms, "arm is not named in the §7.M.S Scenario arms field",
				"add `"+a.ID+"` to `- **Scenario arms:**`")
		case !a.Section:
			l.report("arm-undefined", a.Pos, a.ID, "", "arm has no section of its own; it inherits every field from "+s.ID,
				"add `#### Arm "+a.ID+": <name>` with its own Oracle and §7.M")
		}
	}
}

// unit checks what one verdict depends on: oracle, exit criteria, workload,
// faults, budgets, §7.M.
func (l *linter) unit(u unit) {
	l.oracle(u)
	l.exit(u)
	for _, name := range []string{FieldWorkload, FieldFaults} {
		f := u.field(name)
		if f == nil || isPlaceholder(plain(f.Value)) && !(name == FieldFaults && noneRe.MatchString(plain(f.Value))) {
			what := map[string]string{FieldWorkload: "generate load", FieldFaults: "schedule faults"}[name]
			l.report("field-required", fieldPos(f, u.pos()), u.id(), name, "field is missing, so the executor cannot "+what,
				"add `- **"+name+":** ...`"+map[string]string{FieldFaults: " (write `none` for a fault-free scenario)"}[name])
		}
	}
	l.budgets(u)
	l.durations(u)
	l.faultParams(u)
	l.faultsUnknown(u)
	l.model(u)
}

var noneRe = regexp.MustCompile(`(?i)^(?:none|no faults?|n/a)\b`)

func fieldPos(f *Field, fallback Pos) Pos {
	if f != nil {
		return f.Pos
	}
	return fallback
}

const oracleFix = "name a checker (linearizable, serializable, list-append, set, counter, bank, no-lost-ack, " +
	"monotonic reads, exactly-once, ...) or a precise predicate such as `p99 ≤ 20 ms` or `lost_acks == 0`"

func (l *linter) oracle(u unit) {
	f := u.field(FieldOracle)
	if f == nil {
		l.report("oracle-missing", u.pos(), u.id(), FieldOracle, "no oracle: nothing decides PASS or FAIL, so the run halts",
			"add `- **Oracle:** ...`: "+oracleFix)
		return
	}
	c := ClassifyOracle(f.Value)
	switch {
	case c.Placeholder:
		l.report("oracle-missing", f.Pos, u.id(), FieldOracle, "oracle "+quote(f.Value)+" is a placeholder, so the run halts", oracleFix)
	case !c.Checkable() && len(c.Vague) > 0:
		l.report("oracle-unchecked", f.Pos, u.id(), FieldOracle, "oracle "+quoteAll(c.Vague)+" is not machine-checkable, so the run halts",
			"hand the plan back to its designer: "+oracleFix)
	case !c.Checkable():
		l.report("oracle-unchecked", f.Pos, u.id(), FieldOracle, "oracle names no checker or precise predicate, so the run halts", oracleFix)
	default:
		if len(c.Vague) > 0 {
			l.report("oracle-vague-clause", f.Pos, u.id(), FieldOracle, "clause "+quoteAll(c.Vague)+" is not checked by anything",
				"drop it, or replace it with a predicate")
		}
		if u.s.Gate.Serious && c.OnlyWeak() {
			l.report("oracle-weak", f.Pos, u.id(), FieldOracle, "a final-state invariant alone cannot back "+l.gatedClaims(u.s, verdict.ClaimCategory.Serious),
				"pair it with a history checker such as no-lost-ack or linearizable")
		}
	}
}

var (
	passFailRe = regexp.MustCompile(`(?i)\b(?:pass|fail|inconclusive)\w*`)
	failRe     = regexp.MustCompile(`(?i)\bfail\w*`)
	digitRe    = regexp.MustCompile(`\d`)
)

func (l *linter) exit(u unit) {
	f := u.field(FieldExit)
	if f == nil {
		l.report("exit-missing", u.pos(), u.id(), FieldExit, "no exit criteria: the run has no pass/fail/inconclusive conditions, so it halts",
			"add `- **Exit criteria:** PASS = ...; FAIL = ...; INCONCLUSIVE if ...`")
		return
	}
	c := ClassifyOracle(f.Value)
	decidable := len(c.Checkers) > 0 || digitRe.MatchString(f.Value)
	switch {
	case c.Placeholder:
		l.report("exit-missing", f.Pos, u.id(), FieldExit, "exit criteria "+quote(f.Value)+" are a placeholder, so the run halts",
			"state PASS, FAIL and INCONCLUSIVE conditions with numbers")
	case !decidable && len(c.Vague) > 0:
		l.report("exit-undecidable", f.Pos, u.id(), FieldExit, "exit criteria "+quoteAll(c.Vague)+" are not machine-decidable, so the run halts",
			"state PASS, FAIL and INCONCLUSIVE conditions with numbers, e.g. `FAIL = any lost ack; INCONCLUSIVE if < 150 ops/s`")
	case !decidable && !passFailRe.MatchString(f.Value):
		l.report("exit-undecidable", f.Pos, u.id(), FieldExit, "exit criteria state no condition a machine can decide, so the run halts",
			"state PASS, FAIL and INCONCLUSIVE conditions with numbers, e.g. `FAIL = any lost ack; INCONCLUSIVE if < 150 ops/s`")
	case !failRe.MatchString(f.Value):
		l.report("exit-no-fail", f.Pos, u.id(), FieldExit, "exit criteria state no FAIL condition", "add `FAIL = ...`")
	}
}

// weakLandingRe matches landing "evidence" that is only the injector's word.
var weakLandingRe = regexp.MustCompile(`(?i)\binjector\s+(?:reported\s+)?success\w*|\bexit\s+(?:code|status)\s+0\b|\bcommand\s+succeeded\b`)

func (l *linter) model(u unit) {
	g := u.s.Gate
	if !g.Serious {
		return
	}
	m := u.model()
	if m == nil {
		msg := "falsifies " + l.gatedClaims(u.s, verdict.ClaimCategory.Serious) + " but has no §7.M block"
		if u.s.ModelNA != nil {
			msg += " (its `§7.M: not applicable` line is wrong)"
		}
		l.report("model-required", u.pos(), u.id(), "§7.M", msg,
			"add `#### §7.M — Model / history / checker discipline` with Model under test, Operation history, Checker, "+
				"Nemesis + landing evidence, Ambiguous outcomes and Reduction plan")
		return
	}
	var missing []string
	for _, name := range modelRequired {
		if f := m.Field(name); f == nil || isPlaceholder(plain(f.Value)) {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		l.report("model-incomplete", m.Pos, u.id(), "§7.M", "missing "+strings.Join(missing, ", ")+"; the scenario cannot back a hardening claim",
			"fill every §7.M field")
	}
	if f := m.Field(FieldModel); f != nil && m.Model == "" && !isPlaceholder(plain(f.Value)) {
		l.report("model-unknown", f.Pos, u.id(), FieldModel, quote(f.Value)+" is not a model under test",
			"use one of "+strings.Join(Models, ", ")+", or other(<name>)")
	}
	if f := m.Field(FieldChecker); f != nil && !isPlaceholder(plain(f.Value)) &&
		!ClassifyOracle(f.Value).Checkable() && !strings.Contains(strings.ToLower(f.Value), "no checker") {
		l.report("checker-unrecognized", f.Pos, u.id(), FieldChecker, "checker "+quote(f.Value)+" is not one the executor knows",
			oracleFix+"; or write `no checker — <1–2 sentence justification>`")
	}
	if f := m.Field(FieldLanding); f != nil && weakLandingRe.MatchString(f.Value) {
		l.report("landing-weak", f.Pos, u.id(), FieldLanding, "the injector's success is not evidence the fault landed",
			"name a victim-side signal: iptables DROP counter > 0, `tc -s qdisc` drops, PID gone, client timeouts in the window")
	}
}
