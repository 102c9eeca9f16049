package plans

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/faultline/faultline/verdict"
)

// checkerCall is one row of the oracle vocabulary: a checker family found by
// ClassifyOracle (see the vocabulary table in oracle.go) and the check.* call
// it becomes. An empty call means the family is recognised but needs numbers
// or names only the author can give (an SLO bound, a predicate over custom
// counters): the compiler says so instead of guessing.
type checkerCall struct {
	family string
	call   string // "%s" is the model or workload argument, when needed
}

// checkerCalls is read top to bottom; the generated check.compose keeps this
// order and ends with check.stats().
var checkerCalls = []checkerCall{
	{"linearizable", `check.linearizable(model = "%s")`},
	{"strict-serializable", `check.transactional(workload = "%s", consistency_models = ["strict-serializable"])`},
	{"serializable", `check.transactional(workload = "%s", consistency_models = ["serializable"])`},
	{"snapshot-isolation", `check.transactional(workload = "%s", consistency_models = ["snapshot-isolation"])`},
	{"repeatable-read", `check.transactional(workload = "%s", consistency_models = ["repeatable-read"])`},
	{"read-committed", `check.transactional(workload = "%s", consistency_models = ["read-committed"])`},
	{"elle", `check.transactional(workload = "%s", consistency_models = ["serializable"])`},
	{"no-lost-ack", `check.no_lost_ack()`},
	{"set", `check.set()`},
	{"counter", `check.counter()`},
	{"bank", `check.bank()`},
	{"monotonic-reads", `check.monotonic_reads()`},
	{"session-consistency", `check.read_your_writes()`},
	{"exactly-once", `check.exactly_once()`},
	{"replica-reconciliation", `check.replicas()`},
	{"final-state-invariant", `check.final_state()`},
	{"boundary", `check.boundary()`},
	{"prefix-order", `check.prefix_order()`},
	{"replay-equivalence", `check.replay_equivalence()`},
	{"mutual-exclusion", `check.mutual_exclusion()`},
	{"fairness", `check.fairness(%s)`},
	{"slo", `check.slo(%s)`},
	{"bounded-recovery", `check.recovery(within = %s)`},
	{"predicate", ""},
	{"zero-count", ""},
}

// genericFamilies are the checker families that name a comparison, not a
// checker: "cross_tenant_reads == 0", "0 duplicate charges". In a clause that
// also names a mapped checker they are that checker's bound and need nothing
// of their own; alone they need the author's Starlark.
var genericFamilies = map[string]bool{"predicate": true, "zero-count": true}

// txnFamilies take check.transactional's workload argument; the others that
// take an argument (linearizable) take the register model.
var txnFamilies = map[string]bool{"strict-serializable": true, "serializable": true,
	"snapshot-isolation": true, "repeatable-read": true, "read-committed": true, "elle": true}

// checker maps the Oracle field (the §7.M Checker when the unit has no
// Oracle) to check.compose([...]).
func (c *compiler) checker(d *draft, w workloadUse, over overrideSet) {
	if _, ok := over.fields["checker"]; ok {
		return
	}
	u := d.u
	f := u.field(FieldOracle)
	if f == nil {
		f = u.model().Field(FieldChecker)
	}
	if f == nil {
		c.diag(Error, u, FieldOracle, 0, "no Oracle to compile", "add an Oracle naming a checker, or a ```starlark checker = ... block")
		d.set("checker", "None", "UNMAPPED: no Oracle field")
		return
	}
	class := ClassifyOracle(f.Value)
	var calls, unmapped, mapped []string
	for _, row := range checkerCalls {
		if !contains(class.Checkers, row.family) || genericFamilies[row.family] {
			continue
		}
		call, why := row.render(w, f.Value, c.group(u), c.thresholds(u))
		if call == "" {
			unmapped = append(unmapped, row.family+why)
			continue
		}
		mapped = append(mapped, row.family)
		if !contains(calls, call) {
			calls = append(calls, call)
			d.record(FieldOracle, f.Pos.Line, row.family, call)
		}
	}
	for _, fam := range class.Checkers {
		if genericFamilies[fam] && !coveredClauses(f.Value, fam, mapped) {
			unmapped = append(unmapped, fam)
		}
	}
	c.needs(d, w, mapped, f, over)
	if len(unmapped) > 0 || len(calls) == 0 {
		msg := fmt.Sprintf("oracle %q has no check.* mapping", oneLine(f.Value))
		if len(unmapped) > 0 {
			msg = fmt.Sprintf("oracle names %s, which the compiler cannot turn into a check.* call", strings.Join(unmapped, ", "))
		}
		c.diag(Error, u, FieldOracle, f.Pos.Line, msg,
			"name a mapped checker ("+mappedFamilies()+") or add a ```starlark checker = ... block")
	}
	c.final(d, w, class.Checkers, f, over)
	calls = append(calls, "check.stats()")
	expr := "check.compose([\n    " + strings.Join(calls, ",\n    ") + ",\n])"
	comment := []string{cite(FieldOracle, f.Pos.Line, f.Value)}
	if len(unmapped) > 0 || len(calls) == 1 {
		comment = append(comment, "UNMAPPED: "+strings.Join(unmapped, ", "))
	}
	d.set("checker", expr, comment...)
}

// render fills the row's argument from the workload (or, for a bound, from
// the oracle text; group and thresholds are the §7.M.S fairness fields); an
// empty call comes with the reason.
func (row checkerCall) render(w workloadUse, oracle, group, thresholds string) (string, string) {
	if row.call == "" {
		return "", ""
	}
	if !strings.Contains(row.call, "%s") {
		return row.call, ""
	}
	switch {
	case row.family == "bounded-recovery":
		return recoveryArgs(row.call, oracle)
	case row.family == "slo":
		return sloArgs(row.call, oracle)
	case row.family == "fairness":
		return fairnessArgs(row.call, oracle+"; "+thresholds, group)
	case txnFamilies[row.family] && w.model != nil && w.model.txn != "":
		return fmt.Sprintf(row.call, w.model.txn), ""
	case row.family == "linearizable" && w.keyed && w.model != nil && (w.model.linear == "register" || w.model.linear == "cas-register"):
		// Registers under many keys are independent: the kv model checks
		// each key on its own (a cas-register per key).
		return fmt.Sprintf(row.call, "kv"), ""
	case row.family == "linearizable" && w.model != nil && w.model.linear != "":
		return fmt.Sprintf(row.call, w.model.linear), ""
	case txnFamilies[row.family]:
		return "", " (needs a list-append or rw-register workload)"
	}
	return "", " (needs a register or cas-register workload)"
}

// placeholder names a row's argument in the vocabulary doc.
func (row checkerCall) placeholder() string {
	switch {
	case row.family == "bounded-recovery":
		return `"<bound>"` + `[, f = ["write", "cas"]]`
	case row.family == "slo":
		return `p50 / p99 / p999 = "<bound>", error_rate = <fraction>[, f = [...]]`
	case row.family == "fairness":
		return `group = "<field>", max_p99_ratio = <t>, min_throughput = <t>, max_error_rate = <t>, repeat = "repeat", max_spread = <t>`
	case txnFamilies[row.family]:
		return "<workload>"
	}
	return "<model>"
}

// recoveryBoundRe reads the bound of a bounded-recovery oracle: "within 10 s",
// "in less than 5s", "under 30 seconds", "< 2 min".
var recoveryBoundRe = regexp.MustCompile(`(?i)(?:\bwithin|\bunder|\bin less than|<=|≤|<)\s*` + durRe)

// recoveryWritesRe says the oracle measures recovery by writes ("writes
// resume", "the first acknowledged write"), so only write-like ops count.
var recoveryWritesRe = regexp.MustCompile(`(?i)\bwrites?\b|\bputs?\b`)

// recoveryArgs fills check.recovery's bound from the oracle text, and judges
// only write-like ops when the oracle speaks of writes. Every fault-opening
// nemesis op is measured (the checker's default), so the call does not repeat
// the scenario's faults.
func recoveryArgs(call, oracle string) (string, string) {
	m := recoveryBoundRe.FindStringSubmatch(oracle)
	if m == nil {
		return "", ` (no bound: write "within N s")`
	}
	d, ok := parseDur(m[1], m[2])
	if !ok && nonPositive(m[1]) {
		return "", fmt.Sprintf(" (the bound %q is zero or negative)", strings.TrimSpace(m[0]))
	}
	if !ok {
		return "", fmt.Sprintf(" (cannot read the bound %q)", strings.TrimSpace(m[0]))
	}
	arg := starQuote(formatDuration(d))
	if recoveryWritesRe.MatchString(oracle) {
		arg += `, f = ["write", "cas"]`
	}
	return fmt.Sprintf(call, arg), ""
}

func mappedFamilies() string {
	var out []string
	for _, row := range checkerCalls {
		if row.call != "" {
			out = append(out, row.family)
		}
	}
	return strings.Join(out, ", ")
}

// budgets maps each declared tier (or only o.Tier) to budget(...): the
// duration, the ops floor as min_ops, faults and seeds. A tier that is "not
// provided" stays a comment with the author's reason.
func (c *compiler) budgets(d *draft, over overrideSet) {
	if _, ok := over.fields["budgets"]; ok {
		return
	}
	u := d.u
	var entries, comments []string
	reported := false
	for t := range verdict.Tiers() {
		if c.o.Tier != "" && t != c.o.Tier {
			continue
		}
		b := u.budget(t)
		switch {
		case b == nil && c.o.Tier != "":
			c.diag(Error, u, FieldBudgets, 0, fmt.Sprintf("no %s budget to compile", t), "declare a "+string(t)+" budget")
		case b == nil:
		case b.NotProvided != nil:
			comments = append(comments, fmt.Sprintf("%s (plan line %d): not provided — %s", t, b.Pos.Line, b.NotProvided.Reason))
			if c.o.Tier != "" {
				c.diag(Error, u, FieldBudgets, b.Pos.Line, fmt.Sprintf("the %s budget is not provided", t), "compile another tier")
			}
		case b.Duration <= 0:
			reported = true
			c.diag(Error, u, FieldBudgets, b.Pos.Line, fmt.Sprintf("%s budget %q states no duration", t, oneLine(b.Raw)),
				`state a duration such as "10 min"`)
		default:
			call := budgetCall(b)
			entries = append(entries, fmt.Sprintf("%q: %s,", t, call))
			comments = append(comments, cite(string(t), b.Pos.Line, b.Raw))
			d.record(budgetField(t), b.Pos.Line, b.Raw, call)
		}
	}
	if len(entries) == 0 && c.o.Tier == "" && !reported {
		c.diag(Error, u, FieldBudgets, 0, "no tier has a budget the compiler can use", "declare a smoke budget with a duration")
	}
	expr := "{}"
	if len(entries) > 0 {
		expr = "{\n    " + strings.Join(entries, "\n    ") + "\n}"
	}
	d.set("budgets", expr, comments...)
}

// budgetCall renders b as budget(...), leaving out what the plan left unstated.
func budgetCall(b *Budget) string {
	args := []string{"duration = " + starQuote(formatDuration(b.Duration))}
	if b.Ops > 0 {
		args = append(args, fmt.Sprintf("min_ops = %d", b.Ops))
	}
	if b.Faults != nil {
		args = append(args, fmt.Sprintf("faults = %d", *b.Faults))
	}
	if b.Seeds > 0 {
		args = append(args, fmt.Sprintf("seeds = %d", b.Seeds))
	}
	return "budget(" + strings.Join(args, ", ") + ")"
}

func budgetField(t verdict.Tier) string {
	switch t {
	case verdict.TierHardening:
		return FieldHardening
	case verdict.TierRelease:
		return FieldRelease
	}
	return FieldSmoke
}
