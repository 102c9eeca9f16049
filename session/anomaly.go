package session

import (
	"slices"
	"strings"

	"github.com/faultline/faultline/check"
)

// anomalyMatch says how the anomalies a later run of the same schedule
// found (a re-run, a replay) compare with those of the run it repeats.
type anomalyMatch int

const (
	// matchNone: the later run found no anomaly.
	matchNone anomalyMatch = iota
	// matchNew: the later run found one where the earlier found none.
	matchNew
	// matchSame: the same anomaly on the same keys.
	matchSame
	// matchSameClass: the same kind of anomaly, on other keys.
	matchSameClass
	// matchDifferent: a violation again, but a different one.
	matchDifferent
)

// compareAnomalies compares two check.Signature lists: was, the earlier
// run's, and now, the later one's.
func compareAnomalies(was, now []string) anomalyMatch {
	switch {
	case len(now) == 0:
		return matchNone
	case len(was) == 0:
		return matchNew
	case slices.ContainsFunc(now, func(s string) bool { return slices.Contains(was, s) }):
		return matchSame
	case sameClass(now, anomalyClasses(was)):
		return matchSameClass
	}
	return matchDifferent
}

// reproduced is the match as a replay reports it after "reproduced: ".
func (m anomalyMatch) reproduced() string {
	switch m {
	case matchNone:
		return "no"
	case matchNew:
		return "a new anomaly (the original run found none)"
	case matchSame:
		return "yes, the same anomaly on the same keys"
	case matchSameClass:
		return "yes, the same anomaly on other keys"
	}
	return "a violation again, a different one"
}

// runVerdict is one run's check as a replay prints it: its verdict
// (valid, invalid, unknown), what the checker said, and the anomalies it
// found, so two runs are never told apart by the checker's name alone.
func runVerdict(r check.Result) string {
	s := string(r.Valid)
	if s == "" {
		s = "not checked"
	}
	// An invalid compose says which child failed: name that child's
	// finding, not the roll-up.
	summary := violation(r).Summary
	if rest, ok := strings.CutPrefix(summary, s+": "); ok {
		summary = rest
	}
	if summary != "" {
		s += ": " + summary
	}
	if sig := check.Signature(r); len(sig) > 0 {
		s += " (anomalies: " + OrNone(sig) + ")"
	}
	return s
}
