package check

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/faultline/faultline/history"
)

func init() {
	Register(Spec{
		Name:    "recovery",
		NoModel: "it needs a bound (within=), which faultline check has no flag for",
		Plan:    []string{"bounded-recovery"},
		Oracle:  "history",
		Mutants: []string{"recovery"},
	})
}

// RecoveryOptions configures Recovery.
type RecoveryOptions struct {
	// Within is the bound on each gap; it must be positive.
	Within time.Duration
	// After names the nemesis functions whose completions start a gap; nil
	// means every fault-opening function (kill, pause, start-partition,
	// start-loss, ...: the ones a stop or restart op later ends).
	After []string
	// F names the client functions whose ok completion ends a gap; nil means
	// any client function.
	F []string
}

// Recovery returns the bounded-recovery checker: after each fault of the
// named kinds, an ok client op of the named functions must complete within
// the bound. The gap is measured on the history's clock from the fault op's
// completion (the moment faultline read back that the fault was in effect) to
// the completion of the first ok op after it. It is measured from the fault,
// not from its heal, because that is what such a claim promises ("writes
// resume within 10 s of each leader kill"): the system must recover while the
// fault holds, and a restart after 15 s must not excuse a re-election that
// never happened.
//
// Invalid when any gap exceeds the bound, or when clients kept working past
// the bound after a fault without one ok op; unknown when no such fault
// completed, the ops carry no times, or the history ends before the bound
// with no ok op to show recovery; valid otherwise.
func Recovery(o RecoveryOptions) (Checker, error) {
	if o.Within <= 0 {
		return nil, fmt.Errorf("recovery needs a positive bound (within), got %s", o.Within)
	}
	o.After, o.F = slices.Clone(o.After), slices.Clone(o.F)
	return recovery{o: o}, nil
}

type recovery struct{ o RecoveryOptions }

// Name implements Checker.
func (recovery) Name() string { return "recovery" }

// String describes the checker as it would be written in a scenario.
func (c recovery) String() string {
	args := []string{fmt.Sprintf("within=%q", c.o.Within)}
	if len(c.o.After) > 0 {
		args = append(args, "after="+quoteList(c.o.After))
	}
	if len(c.o.F) > 0 {
		args = append(args, "f="+quoteList(c.o.F))
	}
	return "check.recovery(" + strings.Join(args, ", ") + ")"
}

// opensFault reports whether f starts a fault that a later op ends: kill,
// pause, start-partition and the like; "start" restarts a killed node and
// is not a fault.
func opensFault(f string) bool { return f != "start" && stopOf(f) != "" }

// isFault reports whether the nemesis function f starts a measured gap.
func (c recovery) isFault(f string) bool {
	if len(c.o.After) == 0 {
		return opensFault(f)
	}
	return slices.Contains(c.o.After, f)
}

// judged reports whether the client function f can end a gap.
func (c recovery) judged(f string) bool { return len(c.o.F) == 0 || slices.Contains(c.o.F, f) }

// recoveryGap is one measured fault: when it took effect and what followed.
type recoveryGap struct {
	fault string
	at    int64 // the fault op's completion time
	gap   int64 // to the first ok op's completion; -1 if none followed
	index int64 // the fault completion's Op.Index, for a person to find it
}

// Check implements Checker.
func (c recovery) Check(_ context.Context, h []history.Op, _ Env) Result {
	blind := []string{
		"measured from the fault op's completion on the controller's clock: the moments between the fault taking effect and faultline reading it back are not counted",
		"recovery is the first acknowledged op from any client: a node or client that stays unavailable after it is not seen",
		"a fault op that failed did not happen and is not measured; one whose outcome is unknown (info) is measured from its completion",
	}
	if !hasTimes(h) {
		return nothingToCheck(c.Name(), "the ops carry no times, so recovery cannot be measured", blind)
	}
	pairs, err := history.Pair(h)
	if err != nil {
		return cannotCheck(c.Name(), fmt.Errorf("pair invocations with completions: %w", err), blind)
	}
	// A fault starts a gap at its completion record; Jepsen writes nemesis
	// invocations as info too, so completions are found by pairing.
	starts := map[int]bool{}
	for _, p := range pairs {
		if p.Complete >= 0 && h[p.Invoke].IsNemesis() && h[p.Complete].Type != history.Fail && c.isFault(h[p.Invoke].F) {
			starts[p.Complete] = true
		}
	}
	var faults []recoveryGap
	consumed, keys := 0, keyCounter{}
	horizon := int64(-1) // the last time a judged client op was seen at all
	for i := range h {
		op := &h[i]
		if op.IsNemesis() {
			if starts[i] {
				faults = append(faults, recoveryGap{fault: op.F, at: op.Time, gap: -1, index: op.Index})
			}
			continue
		}
		if !c.judged(op.F) {
			continue
		}
		horizon = max(horizon, op.Time)
		if op.Type == history.Invoke {
			consumed++
			keys.add(op.Key)
			continue
		}
		if op.Type != history.OK {
			continue
		}
		// Every fault still waiting is answered by this ok op: they are at
		// the end of the list, since a later fault cannot be answered first.
		for j := len(faults) - 1; j >= 0 && faults[j].gap < 0; j-- {
			faults[j].gap = max(op.Time-faults[j].at, 0)
		}
	}
	res := Result{Checker: c.Name(), Valid: Valid, Consumed: Consumed{Ops: consumed, Keys: len(keys)}, BlindSpots: blind}
	if len(faults) == 0 {
		res.Valid = Unknown
		res.Summary = fmt.Sprintf("unknown: no fault of %s completed, so there was nothing to recover from", c.faultKinds())
		return res
	}
	if consumed == 0 {
		return nothingToCheck(c.Name(), "no client ops of the judged functions", blind)
	}
	return c.judge(res, faults, horizon)
}

// judge turns the measured gaps into the verdict and its explanation.
func (c recovery) judge(res Result, faults []recoveryGap, horizon int64) Result {
	bound := int64(c.o.Within)
	var slow, open []string
	gaps := make([]any, 0, len(faults))
	worst := int64(-1)
	for _, f := range faults {
		where := fmt.Sprintf("%s (op %d, completed at %s)", f.fault, f.index, time.Duration(f.at))
		switch {
		case f.gap >= 0:
			gaps = append(gaps, map[string]any{"fault": f.fault, "index": f.index, "at_ns": f.at, "gap_ns": f.gap})
			worst = max(worst, f.gap)
			if f.gap > bound {
				slow = append(slow, fmt.Sprintf("%s: first ok op %s later, bound %s", where, time.Duration(f.gap), c.o.Within))
			}
		case horizon-f.at > bound:
			gaps = append(gaps, map[string]any{"fault": f.fault, "index": f.index, "at_ns": f.at, "gap_ns": nil})
			slow = append(slow, fmt.Sprintf("%s: no ok op at all, though clients kept trying for %s after it, bound %s",
				where, time.Duration(horizon-f.at), c.o.Within))
		default:
			gaps = append(gaps, map[string]any{"fault": f.fault, "index": f.index, "at_ns": f.at, "gap_ns": nil})
			open = append(open, fmt.Sprintf("%s: the load ended %s after it with no ok op, before the %s bound could show recovery",
				where, time.Duration(max(horizon-f.at, 0)), c.o.Within))
		}
	}
	res.Details = map[string]any{"faults": len(faults), "gaps": gaps, "within_ns": bound}
	if worst >= 0 {
		res.Details["worst_gap_ns"] = worst
	}
	switch {
	case len(slow) > 0:
		res.Valid = Invalid
		res.Summary = fmt.Sprintf("invalid: %d of %d faults not followed by an ok %s within %s; first: %s",
			len(slow), len(faults), c.opKinds(), c.o.Within, slow[0])
		res.Details["slow"] = slow
		res.Explanation = "Recovery is measured from each fault op's completion to the completion of the first ok " +
			c.opKinds() + " after it.\n  " + strings.Join(slow[:min(len(slow), 20)], "\n  ") + "\n"
	case len(open) > 0:
		res.Valid = Unknown
		res.Summary = fmt.Sprintf("unknown: %d of %d faults have no ok %s after them and the history ends before %s; first: %s",
			len(open), len(faults), c.opKinds(), c.o.Within, open[0])
		res.Details["unmeasured"] = open
		res.Explanation = strings.Join(open, "\n") + "\n"
	default:
		res.Summary = fmt.Sprintf("every one of %d faults followed by an ok %s within %s (worst %s)",
			len(faults), c.opKinds(), c.o.Within, time.Duration(worst))
	}
	return res
}

// faultKinds names the measured nemesis functions for a summary.
func (c recovery) faultKinds() string {
	if len(c.o.After) == 0 {
		return "any fault-opening kind"
	}
	return strings.Join(c.o.After, "/")
}

// opKinds names the judged client functions for a summary.
func (c recovery) opKinds() string {
	if len(c.o.F) == 0 {
		return "client op"
	}
	return strings.Join(c.o.F, "/")
}
