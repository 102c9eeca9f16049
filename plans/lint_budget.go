package plans

import (
	"fmt"
	"slices"
	"strings"

	"github.com/faultline/faultline/verdict"
)

// budgets checks each tier of a unit (present, bounded, disclosed in full),
// then hardening against smoke and against the executor's floors.
func (l *linter) budgets(u unit) {
	fields := map[verdict.Tier]string{verdict.TierSmoke: FieldSmoke, verdict.TierHardening: FieldHardening, verdict.TierRelease: FieldRelease}
	for t := range verdict.Tiers() {
		b := u.budget(t)
		name := fields[t]
		switch {
		case b == nil:
			fix := "add `- **" + name + ":** <nodes>, <duration>, <faults>, <seeds>, <ops>`"
			if t == verdict.TierRelease {
				fix = "add `- **Release budget:** ...` or `not provided — <reason>. Revisit when: <condition>.`"
			}
			l.report("budget-missing", u.pos(), u.id(), name, "no "+string(t)+" budget", fix)
		case b.NotProvided != nil:
			l.disclosure(u, name, b)
		case isPlaceholder(plain(b.Raw)) && t == verdict.TierRelease:
			l.report("release-disclosure", b.Pos, u.id(), name, "release budget "+quote(b.Raw)+" is a placeholder",
				"declare it, or write `not provided — <reason>. Revisit when: <condition>.`")
		case isPlaceholder(plain(b.Raw)):
			l.report("budget-missing", b.Pos, u.id(), name, string(t)+" budget "+quote(b.Raw)+" is a placeholder",
				"state nodes, duration, faults, seeds and ops")
		case t != verdict.TierRelease && b.Duration == 0 && b.Ops == 0:
			l.report("budget-unbounded", b.Pos, u.id(), name, string(t)+" budget states neither a duration nor an op count",
				"add a duration (`2 min`) or an op count (`≥2k ops`)")
		}
	}
	l.stronger(u)
	l.floors(u)
}

func (l *linter) disclosure(u unit, name string, b *Budget) {
	d := b.NotProvided
	switch {
	case b.Tier == verdict.TierSmoke:
		l.report("budget-missing", b.Pos, u.id(), name, "the smoke budget cannot be not provided; it is the first thing that runs",
			"state the smallest configuration that exercises the scenario")
	case b.Tier == verdict.TierHardening:
		l.report("hardening-not-provided", b.Pos, u.id(), name, "hardening tier not provided: this scenario can reach PASS-smoke at most",
			"declare a hardening budget strictly stronger than smoke")
	case d.Reason == "" || d.RevisitWhen == "":
		l.report("release-disclosure", b.Pos, u.id(), name, "disclosure needs both a reason and a `Revisit when:` condition",
			"write `not provided — <reason>. Revisit when: <condition>.`")
	}
}

// stronger checks that hardening beats smoke on every dimension smoke states.
func (l *linter) stronger(u unit) {
	s, h := u.budget(verdict.TierSmoke), u.budget(verdict.TierHardening)
	if s == nil || h == nil || s.NotProvided != nil || h.NotProvided != nil {
		return
	}
	var weak []string
	cmpDim := func(dim string, sv, hv int64, sSet, hSet bool) {
		switch {
		case !sSet:
		case !hSet:
			weak = append(weak, "states no "+dim)
		case hv <= sv:
			weak = append(weak, fmt.Sprintf("%s %d ≤ smoke's %d", dim, hv, sv))
		}
	}
	cmpDim("nodes", int64(s.Nodes), int64(h.Nodes), s.Nodes > 0, h.Nodes > 0)
	if s.Duration > 0 {
		switch {
		case h.Duration == 0:
			weak = append(weak, "states no duration")
		case h.Duration <= s.Duration:
			weak = append(weak, fmt.Sprintf("duration %v ≤ smoke's %v", h.Duration, s.Duration))
		}
	}
	if f := u.field(FieldFaults); f == nil || !noneRe.MatchString(plain(f.Value)) {
		cmpDim("faults", intOr(s.Faults), intOr(h.Faults), s.Faults != nil, h.Faults != nil)
	}
	cmpDim("seeds", int64(s.Seeds), int64(h.Seeds), s.Seeds > 0, h.Seeds > 0)
	cmpDim("ops", s.Ops, h.Ops, s.Ops > 0, h.Ops > 0)
	if len(weak) > 0 {
		l.report("hardening-not-stronger", h.Pos, u.id(), FieldHardening, "hardening is not strictly stronger than smoke: "+strings.Join(weak, "; "),
			"raise every dimension smoke states: nodes, duration, faults, seeds, ops")
	}
}

func intOr(p *int) int64 {
	if p == nil {
		return 0
	}
	return int64(*p)
}

// Executor floors for a hardening budget (spec §1.6, executor choice).
const (
	minHistoryOps       = 10000
	minStatisticalSeeds = 3
)

func (l *linter) floors(u unit) {
	h := u.budget(verdict.TierHardening)
	if h == nil || h.NotProvided != nil {
		return
	}
	g := u.s.Gate
	if g.Serious && h.Ops > 0 && h.Ops < minHistoryOps {
		l.report("budget-floor", h.Pos, u.id(), FieldHardening, fmt.Sprintf("history-checked hardening run of %d ops; the floor is %d", h.Ops, minHistoryOps),
			"raise the op count to ≥10k")
	}
	if (slices.Contains(g.Categories, verdict.Performance) || slices.Contains(g.Categories, verdict.Fairness)) && h.Seeds < minStatisticalSeeds {
		got := "states no seed count"
		if h.Seeds > 0 {
			got = fmt.Sprintf("runs %d seed(s)", h.Seeds)
		}
		l.report("budget-floor", h.Pos, u.id(), FieldHardening, fmt.Sprintf("statistical claim %s; the floor is %d agreeing seeds", got, minStatisticalSeeds),
			"run ≥3 seeds")
	}
}
