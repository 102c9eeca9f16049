package plans

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/faultline/faultline/nemesis"
	"github.com/faultline/faultline/verdict"
)

// faultKind is one row of the fault vocabulary: a fault registered in
// package nemesis with plan phrases (nemesis.Fault.Plan), and the
// nemesis.* builtin it becomes. Kinds are matched per clause (the Faults
// field split at ";"), first row first.
type faultKind struct {
	kind    string
	phrases string
	re      *regexp.Regexp
	call    string // nemesis builtin
	target  string // the builtin's target argument: "spec" (partition) or "nodes"
	// evidence is the fault's default landing evidence (spec §5), "" for none.
	evidence string
	// validate is the fault's own check of an inject value
	// (nemesis.Fault.Validate), nil for none.
	validate func(any) error
}

// faultKinds are read from nemesis' fault registry, in its match order
// (PlanPhrases.Rank: pause before kill, so "kill -STOP" is a pause).
var faultKinds = planFaults()

// planFaults lists the registered faults plans can name, by rank.
func planFaults() []faultKind {
	fs := slices.DeleteFunc(nemesis.Faults(), func(f nemesis.Fault) bool { return f.Plan == nil })
	slices.SortFunc(fs, func(a, b nemesis.Fault) int { return a.Plan.Rank - b.Plan.Rank })
	out := make([]faultKind, len(fs))
	for i, f := range fs {
		out[i] = faultKind{kind: f.Name, phrases: f.Plan.Phrases, re: f.Plan.Match, call: "nemesis." + f.Name,
			target: f.Plan.Target, evidence: evidenceCall(f.Evidence), validate: f.Validate}
	}
	return out
}

// evidenceCall writes a landing declaration as the evidence.* call that
// makes it, leaving out arguments at their defaults.
func evidenceCall(d *nemesis.Decl) string {
	if d == nil {
		return ""
	}
	var args []string
	switch d.Kind {
	case "iptables_drops":
		args = append(args, fmt.Sprintf("min = %d", d.Min))
	case "op_errors":
		during := "False"
		if d.DuringFault {
			during = "True"
		}
		args = append(args, "during_fault = "+during)
	case "process_state":
		args = append(args, "state = "+starQuote(d.State))
	}
	if d.Min != 1 && d.Kind != "iptables_drops" && d.Kind != "landed" {
		args = append(args, fmt.Sprintf("min = %d", d.Min))
	}
	return "evidence." + d.Kind + "(" + strings.Join(args, ", ") + ")"
}

// faultTarget is one row of the target vocabulary: which nodes a fault hits.
// The leader rows come first: "majority/minority partition isolating the
// leader" cuts off the leader, whatever else the clause says.
type faultTarget struct {
	spec    string
	phrases string
	re      *regexp.Regexp
}

// faultTargets maps target phrases to the nemesis spec names.
var faultTargets = []faultTarget{
	{"primaries", "the (current) leader, leader partition / isolation, primary", regexp.MustCompile(`(?i)\bleaders?\b|\bprimar(?:y|ies)\b`)},
	{"majority", "majority, majority/minority", regexp.MustCompile(`(?i)\bmajority\b`)},
	{"minority", "minority", regexp.MustCompile(`(?i)\bminority\b`)},
	{"halves", "halves, in half, split brain", regexp.MustCompile(`(?i)\bhalves\b|\bin half\b|\bsplit[- ]brain\b`)},
	{"all", "all nodes, every node", regexp.MustCompile(`(?i)\ball nodes\b|\bevery node\b`)},
	{"one", "one node, a node, a random node, single node", regexp.MustCompile(`(?i)\b(?:one|a|a random|single|1)\s+(?:node|member|replica)\b`)},
}

// scheduleTerm is one row of the schedule vocabulary: a time phrase and the
// nemesis argument it sets. A clause that names no fault ("repeat the pair
// every 2 min") applies its schedule to every fault before it.
type scheduleTerm struct {
	arg     string
	phrases string
	re      *regexp.Regexp
}

// durRe reads a duration; the sign is captured too, so that "for -5s" is
// reported as a negative duration instead of being skipped as no duration.
const durRe = `([-−]?\d+(?:\.\d+)?)\s*(ms|s|secs?|seconds?|m|mins?|minutes?|h|hours?)\b`

// scheduleTerms: "restart after" before "for", which a kill reads as restart.
var scheduleTerms = []scheduleTerm{
	{"start", "at T+30s, at T+2min", regexp.MustCompile(`(?i)\bat\s+T\s*\+\s*` + durRe)},
	{"restart", "restart after 10s, restarted after 10s", regexp.MustCompile(`(?i)\brestart(?:ed|s)?\s+after\s+` + durRe)},
	{"hold", "for 20s", regexp.MustCompile(`(?i)\bfor\s+` + durRe)},
	{"interval", "every 10s, repeat every 2 min, 60 s apart", regexp.MustCompile(`(?i)\bevery\s+` + durRe + `|` + durRe + `\s+apart\b`)},
}

// noneFaults is a Faults clause that asks for no fault.
var noneFaults = regexp.MustCompile(`(?i)^\s*(?:none|no faults?|0 faults?|fault-free|n/a)\b`)

// faultCount is a clause that counts faults ("4 kills per hardening run, 60 s
// apart"): the count is the budget's, the spacing applies to the faults before.
var faultCount = regexp.MustCompile(`(?i)^\d+\s+(?:kills?|partitions?|faults?|pauses?|crashes)\b`)

// tierQualifier reads which tier a schedule clause is for ("repeat the
// pair every 2 min in the hardening tier", "4 kills per hardening run").
var tierQualifier = regexp.MustCompile(`(?i)\bin the (smoke|hardening|release) tier\b|\bper (smoke|hardening|release) run\b`)

// fault is one nemesis being built.
type fault struct {
	kind *faultKind
	spec string
	args map[string]string
	// tierArgs are schedule arguments a clause gave for one tier only; they
	// override args in that tier's nemesis.
	tierArgs map[verdict.Tier]map[string]string
	text     string
}

// faults maps the Faults field to nemesis = ... A clause it cannot read,
// or a fault with no target, is an error (lint rejects it too, rule
// faults-unknown): dropped, it would leave the run without that fault and
// no word of why until the verdict said too few faults landed.
func (c *compiler) faults(d *draft, over overrideSet) {
	u := d.u
	f := u.field(FieldFaults)
	if _, ok := over.fields["nemesis"]; ok || f == nil {
		return
	}
	var fs []fault
	for _, fc := range readFaultClauses(f.Value) {
		clause, k, sched := fc.text, fc.kind, fc.sched
		for _, b := range fc.bad {
			c.diag(Error, u, FieldFaults, f.Pos.Line, fmt.Sprintf("duration %q in %q is zero or negative", b, clause),
				"state a positive duration (a zero hold or interval is no fault; the default would be used in its place)")
		}
		switch fc.class {
		case clauseFault:
			ft := fault{kind: k, args: sched, text: clause, spec: targetOf(k, clause)}
			if ft.spec == "" {
				c.diag(Error, u, FieldFaults, f.Pos.Line, noTargetMsg(fc), noTargetFix())
				continue
			}
			params, prob := k.params(clause, ft.spec)
			if prob != nil {
				c.diag(prob.sev, u, FieldFaults, f.Pos.Line, prob.msg, prob.fix)
				continue
			}
			for a, v := range params {
				ft.args[a] = starValue(v)
			}
			fs = append(fs, ft)
		case clauseSchedule:
			tier := verdict.Tier("")
			if m := tierQualifier.FindStringSubmatch(clause); m != nil {
				tier = verdict.Tier(strings.ToLower(m[1] + m[2]))
			}
			for i := range fs {
				for a, v := range sched {
					switch {
					case a == "start" || a == "restart":
					case tier == "":
						fs[i].args[a] = v
					default:
						if fs[i].tierArgs == nil {
							fs[i].tierArgs = map[verdict.Tier]map[string]string{}
						}
						if fs[i].tierArgs[tier] == nil {
							fs[i].tierArgs[tier] = map[string]string{}
						}
						fs[i].tierArgs[tier][a] = v
					}
				}
			}
		case clauseNoise, clauseBadDuration: // nothing to build; bad durations reported above
		default:
			c.diag(Error, u, FieldFaults, f.Pos.Line, unknownFaultMsg(fc), unknownFaultFix())
		}
	}
	if len(fs) == 0 {
		return
	}
	c.faultsBeyondTiers(u, f.Pos.Line, fs)
	var tiered []verdict.Tier
	for t := range verdict.Tiers() {
		if slices.ContainsFunc(fs, func(ft fault) bool { return ft.tierArgs[t] != nil }) {
			tiered = append(tiered, t)
		}
	}
	if len(tiered) == 0 || c.o.Tier != "" {
		// One nemesis: the same for every tier, or the one compiled tier's.
		d.set("nemesis", nemesisExpr(fs, "", func(ft fault) string {
			call := ft.forTier(c.o.Tier).render()
			d.record(FieldFaults, f.Pos.Line, ft.text, call)
			return call
		}), cite(FieldFaults, f.Pos.Line, f.Value))
		return
	}
	// Some schedule is for one tier only: a nemesis per tier that has a
	// budget, each tier's own arguments over the common ones.
	var entries []string
	for t := range verdict.Tiers() {
		if b := u.budget(t); b == nil || b.NotProvided != nil {
			continue
		}
		expr := nemesisExpr(fs, "    ", func(ft fault) string {
			call := ft.forTier(t).render()
			d.record(FieldFaults, f.Pos.Line, ft.text+" ("+string(t)+")", call)
			return call
		})
		entries = append(entries, fmt.Sprintf("%q: %s,", t, expr))
	}
	d.set("nemesis", "{\n    "+strings.Join(entries, "\n    ")+"\n}", cite(FieldFaults, f.Pos.Line, f.Value),
		"a schedule for "+joinTiers(tiered)+" only: one nemesis per tier")
}

// forTier is the fault with tier t's own schedule over the common one.
func (ft fault) forTier(t verdict.Tier) fault {
	if ft.tierArgs[t] == nil {
		return ft
	}
	g := ft
	g.args = maps.Clone(ft.args)
	maps.Copy(g.args, ft.tierArgs[t])
	return g
}

// nemesisExpr is one nemesis expression over the faults: the call, or a
// compose of them, its lines indented by indent.
func nemesisExpr(fs []fault, indent string, call func(fault) string) string {
	calls := make([]string, len(fs))
	for i, ft := range fs {
		calls[i] = call(ft)
	}
	if len(calls) == 1 {
		return calls[0]
	}
	return "nemesis.compose([\n    " + indent + strings.Join(calls, ",\n    "+indent) + ",\n" + indent + "])"
}

func joinTiers(ts []verdict.Tier) string {
	s := make([]string, len(ts))
	for i, t := range ts {
		s[i] = string(t)
	}
	return strings.Join(s, ", ")
}

// faultsBeyondTiers warns of a fault whose first injection falls at or after
// the end of a tier's run: that tier's runs never inject it, which a plan
// author should know before reading a PASS at that tier.
func (c *compiler) faultsBeyondTiers(u unit, line int, fs []fault) {
	for _, ft := range fs {
		start, ok := ft.args["start"]
		if !ok {
			continue
		}
		at, err := time.ParseDuration(strings.Trim(start, `"`))
		if err != nil {
			continue
		}
		for t := range verdict.Tiers() {
			if b := u.budget(t); b != nil && b.NotProvided == nil && b.Duration > 0 && at >= b.Duration {
				c.diag(Warning, u, FieldFaults, line, fmt.Sprintf("%s at T+%s never happens in the %s tier (its runs last %s)", ft.kind.kind, at, t, b.Duration),
					"start it earlier, or lengthen the "+string(t)+" budget")
			}
		}
	}
}

// render writes the nemesis call with its arguments in a fixed order; a kill
// held "for 20s" is restarted after 20s.
func (ft fault) render() string {
	args := []string{ft.kind.target + " = " + starQuote(ft.spec)}
	if ft.kind.kind == "kill" {
		if h, ok := ft.args["hold"]; ok {
			if _, set := ft.args["restart"]; !set {
				ft.args["restart"] = h
			}
			delete(ft.args, "hold")
		}
	}
	for _, a := range append(slices.Clone(faultParamsOf[ft.kind.kind].order), "start", "hold", "interval", "restart") {
		if v, ok := ft.args[a]; ok {
			args = append(args, a+" = "+v)
		}
	}
	if _, ok := ft.args["interval"]; !ok {
		// The plan gives no repetition: the fault happens once, as written.
		args = append(args, "repeat = False")
	}
	// Which process to kill or pause, and how to restart it, is the
	// system's to say: the suite's db recipe names them.
	switch ft.kind.kind {
	case "pause":
		args = append(args, "pattern = suite.db.kill_pattern")
	case "kill":
		// ready is optional in a recipe: the restart then ends when the
		// process runs, not when it serves.
		args = append(args, "pattern = suite.db.kill_pattern", "command = suite.db.start",
			"pidfile = suite.db.pidfile", "logfile = suite.db.logfile", `ready = getattr(suite.db, "ready", None)`)
	}
	return ft.kind.call + "(" + strings.Join(args, ", ") + ")"
}

func matchFaultKind(clause string) *faultKind {
	for i := range faultKinds {
		if faultKinds[i].re.MatchString(clause) {
			return &faultKinds[i]
		}
	}
	return nil
}

// targetOf is the target a clause names, else its kind's default (a
// network condition: every node; a clock fault: one), else "".
func targetOf(k *faultKind, clause string) string {
	if spec := matchTarget(clause); spec != "" {
		return spec
	}
	return faultParamsOf[k.kind].target
}

func matchTarget(clause string) string {
	for _, t := range faultTargets {
		if t.re.MatchString(clause) {
			return t.spec
		}
	}
	return ""
}

// scheduleOf reads every schedule phrase of a clause into nemesis arguments.
// bad lists the phrases whose duration is zero or negative ("for 0s",
// "every -5s"): they set nothing, and the caller must report them, since
// dropping them would silently leave the nemesis default in their place. A
// start of zero ("at T+0s") is a fault at the very beginning, not an error.
func scheduleOf(clause string) (args map[string]string, bad []string) {
	args = map[string]string{}
	for _, s := range scheduleTerms {
		m := s.re.FindStringSubmatch(clause)
		if m == nil {
			continue
		}
		n, unit := m[1], m[2]
		if n == "" && len(m) > 4 { // the second alternative ("60 s apart")
			n, unit = m[3], m[4]
		}
		if d, ok := parseDur(n, unit); ok {
			args[s.arg] = starQuote(formatDuration(d))
			continue
		}
		switch {
		case s.arg == "start" && isZero(n):
			args[s.arg] = starQuote("0s")
		case nonPositive(n):
			bad = append(bad, strings.TrimSpace(m[0]))
		}
	}
	return args, bad
}

// isZero reports whether the number n is zero ("0", "0.0").
func isZero(n string) bool {
	v, err := strconv.ParseFloat(n, 64)
	return err == nil && v == 0
}

// nonPositive reports whether the number n of a duration phrase is zero or
// negative (an ASCII or a Unicode minus).
func nonPositive(n string) bool {
	if strings.HasPrefix(n, "−") {
		return true
	}
	v, err := strconv.ParseFloat(n, 64)
	return err == nil && v <= 0
}

// parseDur reads a number and a unit from durRe.
func parseDur(n, unit string) (time.Duration, bool) {
	v, err := strconv.ParseFloat(n, 64)
	u, ok := durationUnits[strings.ToLower(unit)]
	if strings.EqualFold(unit, "ms") {
		u, ok = time.Millisecond, true
	}
	if err != nil || !ok || v <= 0 || v > 1e6 {
		return 0, false
	}
	return time.Duration(v * float64(u)), true
}

func kindNames() string {
	names := make([]string, len(faultKinds))
	for i, k := range faultKinds {
		names[i] = k.kind
	}
	return strings.Join(names, ", ")
}

func targetNames() string {
	names := make([]string, len(faultTargets))
	for i, t := range faultTargets {
		names[i] = t.spec
	}
	return strings.Join(names, ", ")
}
