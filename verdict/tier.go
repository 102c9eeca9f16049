package verdict

import (
	"fmt"
	"iter"
	"math"
	"slices"
	"strings"
	"time"
)

// Tier is a budget tier (§1.6), or TierNone when the run met none.
type Tier string

// The tiers, weakest first, and the "met none" mark the report prints.
const (
	TierNone      Tier = "—"
	TierSmoke     Tier = "smoke"
	TierHardening Tier = "hardening"
	TierRelease   Tier = "release"
)

// tiers lists the real tiers weakest first.
var tiers = []Tier{TierSmoke, TierHardening, TierRelease}

// Tiers yields the real tiers weakest first, the order a plan declares them
// and a linter reports them in.
func Tiers() iter.Seq[Tier] { return slices.Values(tiers) }

// rank orders tiers: TierNone (and anything unknown) lowest.
func (t Tier) rank() int {
	for i, x := range tiers {
		if t == x {
			return i + 1
		}
	}
	return 0
}

// AtLeast reports whether t is as strong as min.
func (t Tier) AtLeast(min Tier) bool { return t.rank() >= min.rank() }

// TierRequirement is one declared budget tier. A zero field declares no floor
// on that dimension.
type TierRequirement struct {
	Nodes       int           `json:"nodes,omitempty"`
	Duration    time.Duration `json:"duration,omitempty"`
	Ops         int64         `json:"ops,omitempty"`
	Faults      int           `json:"faults,omitempty"` // faults that must land
	Seeds       int           `json:"seeds,omitempty"`
	Repetitions int           `json:"repetitions,omitempty"`
}

// Measured is what a run actually achieved on the tier dimensions.
type Measured struct {
	Nodes       int
	Duration    time.Duration
	Ops         int64 // ops with a known outcome (ok or fail) the oracle saw: an info op is no load
	Faults      int   // faults whose landing evidence was seen, not merely injected
	Seeds       int
	Repetitions int
	Scale       float64 // the nodes' slowdown as budgets allow it (Run.Scale)
}

// TierMet returns the strongest tier the measurement meets, with one line per
// declared tier saying whether it was met and, if not, by how much it fell
// short. A tier is met when every dimension reaches its declared floor and
// every weaker declared tier is met too (tiers are cumulative). Undeclared
// tiers are skipped; no declared tier, or none met, yields TierNone.
func TierMet(req map[Tier]TierRequirement, m Measured) (Tier, []string) {
	met, notes := TierNone, make([]string, 0, len(tiers))
	blocked := false
	for _, t := range tiers {
		r, ok := req[t]
		if !ok {
			continue
		}
		short := shortfalls(r, m)
		switch {
		case len(short) > 0:
			notes = append(notes, fmt.Sprintf("%s tier not met: %s", t, strings.Join(short, ", ")))
			blocked = true
		case blocked:
			notes = append(notes, fmt.Sprintf("%s tier's floors reached, but a weaker tier was not met", t))
		default:
			notes = append(notes, fmt.Sprintf("%s tier met", t))
			met = t
		}
	}
	if len(notes) == 0 {
		notes = append(notes, "no budget tier declared")
	}
	return met, notes
}

// shortfalls lists the dimensions on which m falls short of r.
func shortfalls(r TierRequirement, m Measured) []string {
	var s []string
	if m.Nodes < r.Nodes {
		s = append(s, fmt.Sprintf("nodes %d < %d", m.Nodes, r.Nodes))
	}
	if m.Duration < r.Duration {
		s = append(s, fmt.Sprintf("duration %s < %s", m.Duration, r.Duration))
	}
	if m.Ops < ScaledFloor(r.Ops, m.Scale) {
		s = append(s, fmt.Sprintf("ops %d < %s", m.Ops, FloorText(r.Ops, m.Scale)))
	}
	if m.Faults < r.Faults {
		s = append(s, fmt.Sprintf("faults landed %d < %d", m.Faults, r.Faults))
	}
	if m.Seeds < r.Seeds {
		s = append(s, fmt.Sprintf("seeds %d < %d", m.Seeds, r.Seeds))
	}
	if m.Repetitions < r.Repetitions {
		s = append(s, fmt.Sprintf("repetitions %d < %d", m.Repetitions, r.Repetitions))
	}
	return s
}

// ScaledFloor is an op floor for nodes scale times slower than the
// controller: a slower system completes fewer ops in the same time, so the
// floor a budget declares is divided by the scale (rounded up). A scale of
// 1 or less leaves it alone.
func ScaledFloor(ops int64, scale float64) int64 {
	if scale <= 1 || ops <= 0 {
		return ops
	}
	return int64(math.Ceil(float64(ops) / scale))
}

// FloorText names an op floor as ScaledFloor applies it, saying so when it
// was scaled: "100 (1000 for nodes as fast as the controller; these ran
// 10x slower)".
func FloorText(ops int64, scale float64) string {
	if n := ScaledFloor(ops, scale); n != ops {
		return fmt.Sprintf("%d (%d for nodes as fast as the controller; these ran %.3gx slower)", n, ops, scale)
	}
	return fmt.Sprint(ops)
}
