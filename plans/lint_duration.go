package plans

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/faultline/faultline/verdict"
)

// budgetNonPositiveRe finds a zero or negative duration in a budget ("0 min",
// "-5 s"). The minus must touch the digit and follow a separator, so a range
// such as "10-15 min" is not read as minus fifteen.
var budgetNonPositiveRe = regexp.MustCompile(`(?i)(?:^|[\s,;(:])((?:[-−]\d+(?:\.\d+)?|0+(?:\.0+)?)\s*(?:ms|s|secs?|seconds?|m|mins?|minutes?|h|hrs?|hours?|d|days?|w|weeks?))\b`)

// durations reports every zero or negative duration of a unit's Faults
// clauses and budgets. Neither means anything a run can do, and the compiler
// would otherwise drop the phrase and fall back on a default hold or
// interval, so the plan would run something its author did not write.
func (l *linter) durations(u unit) {
	if f := u.field(FieldFaults); f != nil {
		for _, clause := range strings.Split(plain(f.Value), ";") {
			_, bad := scheduleOf(strings.TrimSpace(clause))
			for _, b := range bad {
				l.report("duration-nonpositive", f.Pos, u.id(), FieldFaults,
					fmt.Sprintf("fault duration %q is zero or negative", b),
					"state a positive hold, interval or restart delay (\"for 20s\", \"every 10s\"); for a fault at the start write \"at T+0s\"")
			}
		}
	}
	fields := map[verdict.Tier]string{verdict.TierSmoke: FieldSmoke, verdict.TierHardening: FieldHardening, verdict.TierRelease: FieldRelease}
	for t := range verdict.Tiers() {
		b := u.budget(t)
		if b == nil || b.NotProvided != nil {
			continue
		}
		for _, m := range budgetNonPositiveRe.FindAllStringSubmatch(plain(b.Raw), -1) {
			l.report("duration-nonpositive", b.Pos, u.id(), fields[t],
				fmt.Sprintf("%s budget duration %q is zero or negative", t, strings.TrimSpace(m[1])),
				"state a positive run duration such as \"2 min\"")
		}
	}
}
