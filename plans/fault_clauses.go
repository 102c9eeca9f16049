package plans

import (
	"fmt"
	"regexp"
	"strings"
)

// clauseClass is what the compiler makes of one clause of a Faults field.
type clauseClass int

const (
	// clauseFault names a fault of the vocabulary.
	clauseFault clauseClass = iota
	// clauseSchedule names no fault but a schedule for the faults before it
	// ("repeat the pair every 2 min").
	clauseSchedule
	// clauseNoise needs no Starlark: "none", a fault count (the budget's
	// business) or a tier qualifier alone.
	clauseNoise
	// clauseBadDuration carries only zero or negative durations, an error
	// reported on its own (duration-nonpositive).
	clauseBadDuration
	// clauseUnknown is text the compiler cannot turn into a fault: left
	// alone it would be dropped, and the run would have no nemesis.
	clauseUnknown
)

// faultClause is one ";"-separated clause of a Faults field as the compiler
// reads it.
type faultClause struct {
	text  string
	kind  *faultKind        // the fault it names, nil for none
	sched map[string]string // schedule arguments (start, hold, interval, restart)
	bad   []string          // zero or negative duration phrases
	class clauseClass
	// why says, for clauseUnknown, what is missing.
	why string
}

// readFaultClauses splits a Faults value at ";" and classifies each clause,
// in order. The compiler builds the nemesis from them and lint rejects the
// ones it would drop, so both read a clause the same way.
func readFaultClauses(value string) []faultClause {
	var out []faultClause
	faultBefore := false
	for _, text := range strings.Split(plain(value), ";") {
		text = strings.TrimSpace(text)
		if text == "" {
			continue
		}
		fc := faultClause{text: text, kind: matchFaultKind(text)}
		fc.sched, fc.bad = scheduleOf(text)
		switch {
		case fc.kind != nil && !faultCount.MatchString(text):
			fc.class = clauseFault
			faultBefore = true
		case faultBefore && isScheduleOnly(fc):
			fc.class = clauseSchedule
		case isFaultNoise(text):
			fc.class = clauseNoise
		case len(fc.bad) > 0:
			fc.class = clauseBadDuration
		case len(fc.sched) > 0 && faultBefore:
			fc.class, fc.why = clauseUnknown, "it names no fault the compiler knows, and it is no schedule for the faults before it either "+
				"(such a clause only says how long or how often they last, as \"repeat every 2 min\" does)"
		case len(fc.sched) > 0:
			fc.class, fc.why = clauseUnknown, "it names no fault the compiler knows, and no fault before it takes its schedule"
		default:
			fc.class, fc.why = clauseUnknown, "it names no fault the compiler knows"
		}
		out = append(out, fc)
	}
	return out
}

// scheduleFiller are the words a clause that only reschedules the faults
// before it may use besides its schedule phrases ("repeat the pair every 2
// min in the hardening tier").
var scheduleFiller = map[string]bool{"repeat": true, "repeated": true, "repeating": true, "repeats": true, "then": true,
	"the": true, "pair": true, "both": true, "all": true, "fault": true, "faults": true, "them": true, "each": true,
	"and": true, "again": true, "cycle": true, "sequence": true, "above": true, "it": true, "this": true, "these": true,
	"those": true, "of": true, "once": true, "times": true}

// wordRe splits a clause into words.
var wordRe = regexp.MustCompile(`[\pL]+`)

// isScheduleOnly reports whether a clause that names no fault is a schedule
// for the faults before it: it sets what the compiler carries over (a hold
// or an interval), names no target, and says nothing else, or it counts
// faults ("4 kills per hardening run, 60 s apart"). "bitflip the WAL of one
// node at T+4s" is not: it asks for a fault of its own.
func isScheduleOnly(fc faultClause) bool {
	_, hold := fc.sched["hold"]
	_, every := fc.sched["interval"]
	if !hold && !every {
		return false
	}
	if faultCount.MatchString(fc.text) {
		return true
	}
	if matchTarget(fc.text) != "" {
		return false
	}
	rest := tierQualifier.ReplaceAllString(fc.text, " ")
	for _, st := range scheduleTerms {
		rest = st.re.ReplaceAllString(rest, " ")
	}
	for _, w := range wordRe.FindAllString(rest, -1) {
		if !scheduleFiller[strings.ToLower(w)] {
			return false
		}
	}
	return true
}

// isFaultNoise reports whether a clause that names no fault of its own is
// one that needs no Starlark: "none", a count ("4 kills per hardening run":
// the budget bounds counts), or a tier qualifier with nothing else. A clause
// that says more than a tier qualifier ("disk stall in the hardening tier")
// is not noise: it asks for a fault the compiler cannot make.
func isFaultNoise(clause string) bool {
	if noneFaults.MatchString(clause) || faultCount.MatchString(clause) {
		return true
	}
	rest := tierQualifier.ReplaceAllString(clause, "")
	return rest != clause && strings.Trim(rest, " \t,.:;()-—") == ""
}

// unknownFaultMsg and unknownFaultFix are the error for a clause the
// compiler cannot read, in lint and in compile alike.
func unknownFaultMsg(fc faultClause) string {
	return fmt.Sprintf("fault phrase %q is not in the vocabulary: %s, so the run would have no such fault", fc.text, fc.why)
}

// unknownFaultFix lists the phrases the compiler does read.
func unknownFaultFix() string {
	var kinds []string
	for _, k := range faultKinds {
		kinds = append(kinds, k.kind+" ("+k.phrases+")")
	}
	var sched []string
	for _, s := range scheduleTerms {
		sched = append(sched, s.phrases)
	}
	return "write a fault the compiler reads — " + strings.Join(kinds, "; ") +
		" — with a target (" + targetNames() + ", see docs/plan-vocabulary.md) and a schedule (" + strings.Join(sched, "; ") +
		"), or `none`; or give the scenario a ```starlark nemesis = ... block (see docs/plan-vocabulary.md)"
}

// noTargetMsg and noTargetFix are the error for a fault with no target.
func noTargetMsg(fc faultClause) string {
	return fmt.Sprintf("%s in %q names no target, so the run would have no such fault", fc.kind.kind, fc.text)
}

func noTargetFix() string {
	var ts []string
	for _, t := range faultTargets {
		ts = append(ts, t.phrases+" ("+t.spec+")")
	}
	return "say which nodes: " + strings.Join(ts, "; ")
}
