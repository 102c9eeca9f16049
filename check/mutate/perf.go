package mutate

// The families in this file break performance claims: latency and error
// bounds (slo), per-group bounds (fairness) and bounded recovery. Each reads
// the oracle's declared bounds and recomputes the oracle's measure on the
// mutant the way the oracle defines it, so every mutant breaks a bound.

import (
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/faultline/faultline/check"
	"github.com/faultline/faultline/history"
)

// sloWindow is one tumbling window of the SLO's judged ops.
type sloWindow struct {
	index int
	calls []call
}

// sloWindows groups the judged calls the way check.SLO does: by completion
// time (invocation time for an op that never completed) from the first
// judged op's invocation. first is the call whose invocation fixes the
// windows' start, which a mutant must not move.
func sloWindows(v *view, o check.SLOOptions) (ws []sloWindow, first call, ok bool) {
	byIndex := map[int]*sloWindow{}
	var start int64
	for _, c := range v.calls {
		if len(o.F) > 0 && !slices.Contains(o.F, v.h[c.inv].F) {
			continue
		}
		if !ok {
			first, start, ok = c, v.h[c.inv].Time, true
		}
		t := v.h[c.inv].Time
		if c.comp >= 0 {
			t = v.h[c.comp].Time
		}
		i := 0
		if o.Window > 0 {
			i = int(max(t-start, 0) / int64(o.Window))
		}
		if byIndex[i] == nil {
			byIndex[i] = &sloWindow{index: i}
		}
		byIndex[i].calls = append(byIndex[i].calls, c)
	}
	for _, i := range slices.Sorted(maps.Keys(byIndex)) {
		ws = append(ws, *byIndex[i])
	}
	return ws, first, ok
}

// sloMutants slows down the ok ops of one judged window past every declared
// latency bound (their invocations moved earlier, so no op changes window),
// or fails enough of them to exceed the declared error rate. The window's
// percentile is recomputed from the mutant to make sure a bound breaks.
func sloMutants(v *view, opts any, rng *rand.Rand, limit int) ([]Mutant, string) {
	o, ok := opts.(check.SLOOptions)
	if !ok {
		return nil, ""
	}
	ws, first, ok := sloWindows(v, o)
	if !ok {
		return nil, ""
	}
	bounds := []struct {
		name  string
		q     float64
		bound time.Duration
	}{{"p50", 0.50, o.P50}, {"p99", 0.99, o.P99}, {"p999", 0.999, o.P999}}
	var worst time.Duration
	for _, b := range bounds {
		worst = max(worst, b.bound)
	}
	slow := 2*worst + time.Millisecond
	var slowMs, failMs []Mutant
	for _, w := range pick(rng, ws) {
		if (worst == 0 || len(slowMs) == limit) && (o.ErrorRate == nil || len(failMs) == limit) {
			break
		}
		if len(w.calls) < max1(o.MinOps) {
			continue
		}
		var oks []call
		for _, c := range w.calls {
			if v.ok(c) {
				oks = append(oks, c)
			}
		}
		if len(oks) == 0 {
			continue
		}
		where := "the run"
		if o.Window > 0 {
			where = fmt.Sprintf("window %d (+%s)", w.index, time.Duration(int64(w.index)*int64(o.Window)))
		}
		if worst > 0 && len(slowMs) < limit {
			edits := map[int]history.Op{}
			var lat []int64
			for _, c := range oks {
				if c == first {
					lat = append(lat, v.h[c.comp].Time-v.h[c.inv].Time)
					continue
				}
				inv := v.h[c.inv]
				inv.Time = v.h[c.comp].Time - int64(slow)
				edits[c.inv] = inv
				lat = append(lat, int64(slow))
			}
			slices.Sort(lat)
			for _, b := range bounds {
				if b.bound > 0 && len(edits) > 0 && check.Percentile(lat, b.q) > int64(b.bound) {
					slowMs = append(slowMs, v.mutant(SlowOps, false, edits,
						"%d ok ops in %s take %s each, so %s is %s, past the declared %s",
						len(edits), where, slow, b.name, time.Duration(check.Percentile(lat, b.q)), b.bound))
					break
				}
			}
		}
		if o.ErrorRate != nil && *o.ErrorRate < 1 && len(failMs) < limit {
			errs := len(w.calls) - len(oks)
			// The fewest failures that push errors/ops past the bound.
			need := int(math.Floor(*o.ErrorRate*float64(len(w.calls)))) - errs + 1
			if need > 0 && need <= len(oks) {
				edits := map[int]history.Op{}
				for _, c := range pick(rng, oks)[:need] {
					edits[c.comp] = failed(v, c.comp)
				}
				failMs = append(failMs, v.mutant(FailedOps, false, edits,
					"%d ok ops in %s fail instead, so %d of %d ops are errors, past the declared error rate %v",
					need, where, errs+need, len(w.calls), *o.ErrorRate))
			}
		}
	}
	ms := append(byPos(slowMs), byPos(failMs)...)
	if len(ms) == 0 {
		return nil, fmt.Sprintf("no window of at least %d ops has an ok op whose slowing or failure breaks a declared bound", max1(o.MinOps))
	}
	return ms, ""
}

// max1 is n, at least 1: a MinOps of 0 means 1.
func max1(n int) int { return max(n, 1) }

// fairnessMutants starves one group: every ok op of it fails, so its
// throughput is 0, its error rate 1 and its p99 the whole run. A mutant is
// kept only when that breaks a declared bound for certain: min_throughput,
// a max_error_rate below 1, or a max_p99_ratio the starved group's p99 (the
// run's span, as the oracle counts a group with no ok op) exceeds against
// the other groups' aggregate p99. The repeat spread is not mutated.
func fairnessMutants(v *view, opts any, rng *rand.Rand, limit int) ([]Mutant, string) {
	o, ok := opts.(check.FairnessOptions)
	if !ok {
		return nil, ""
	}
	groups := map[string][]call{}
	var first, last int64
	n := 0
	for _, c := range v.calls {
		if len(o.F) > 0 && !slices.Contains(o.F, v.h[c.inv].F) {
			continue
		}
		g, ok := keyOfCall(v, c), keyOfCall(v, c) != nil
		if o.Group != "" {
			g, ok = extra(v, c, o.Group)
		}
		if !ok {
			continue
		}
		inv := v.h[c.inv].Time
		if n == 0 {
			first = inv
		}
		n++
		first, last = min(first, inv), max(last, inv)
		if c.comp >= 0 {
			last = max(last, v.h[c.comp].Time)
		}
		groups[history.KeyText(g)] = append(groups[history.KeyText(g)], c)
	}
	if len(groups) < 2 {
		return nil, ""
	}
	span := max(last-first, 1)
	var ms []Mutant
	for _, g := range pick(rng, slices.Sorted(maps.Keys(groups))) {
		if len(ms) == limit {
			break
		}
		edits := map[int]history.Op{}
		for _, c := range groups[g] {
			if v.ok(c) {
				edits[c.comp] = failed(v, c.comp)
			}
		}
		if len(edits) == 0 {
			continue
		}
		var rest []int64 // the ok latencies left in the aggregate
		for name, cs := range groups {
			for _, c := range cs {
				if name != g && v.ok(c) {
					rest = append(rest, v.h[c.comp].Time-v.h[c.inv].Time)
				}
			}
		}
		slices.Sort(rest)
		var why string
		switch ratio := float64(span) / float64(max(check.Percentile(rest, 0.99), 1)); {
		case o.MinThroughput > 0:
			why = fmt.Sprintf("its throughput is 0, below the declared %v ok ops/s", o.MinThroughput)
		case o.MaxErrorRate != nil && *o.MaxErrorRate < 1:
			why = fmt.Sprintf("its error rate is 1, above the declared %v", *o.MaxErrorRate)
		case o.MaxP99Ratio > 0 && ratio > o.MaxP99Ratio:
			why = fmt.Sprintf("its p99 is the run's %s, %.2fx the others' p99, above the declared %v", time.Duration(span), ratio, o.MaxP99Ratio)
		default:
			continue
		}
		ms = append(ms, v.mutant(StarvedGroup, false, edits, "all %d ok ops of group %s fail instead: %s", len(edits), g, why))
	}
	if len(ms) == 0 {
		return nil, "starving no group breaks a declared bound for certain (max_spread is not mutated)"
	}
	return byPos(ms), ""
}

// recoveryMutants stretches the gap after one measured fault: every judged
// client op that completed ok, after the fault's completion record and no
// later than the bound, fails instead. The first ok op after the fault then
// comes past the bound, or none comes while clients kept trying past it;
// a fault for which neither is sure (the load ends within the bound) is not
// used.
func recoveryMutants(v *view, opts any, rng *rand.Rand, limit int) ([]Mutant, string) {
	o, ok := opts.(check.RecoveryOptions)
	if !ok {
		return nil, ""
	}
	judged := func(f string) bool { return len(o.F) == 0 || slices.Contains(o.F, f) }
	// Client completion and invocation records in history order, judged only.
	var recs []int
	for i := range v.h {
		if !v.h[i].IsNemesis() && judged(v.h[i].F) {
			recs = append(recs, i)
		}
	}
	var ms []Mutant
	found := false
	for _, nc := range pick(rng, v.nemesis) {
		if len(ms) == limit {
			break
		}
		f := v.h[nc.inv].F
		isFault := slices.Contains(o.After, f) || len(o.After) == 0 && check.OpensFault(f)
		if nc.comp < 0 || v.h[nc.comp].Type == history.Fail || !isFault {
			continue
		}
		deadline := v.h[nc.comp].Time + int64(o.Within)
		edits := map[int]history.Op{}
		// sure: some judged record comes after the bound: an ok op there
		// is a gap past it, any other op means clients kept trying past
		// it, which the oracle counts as no recovery.
		sure := false
		for _, i := range recs {
			op := &v.h[i]
			switch {
			case i < nc.comp:
			case op.Time > deadline:
				sure = true
			case op.Type == history.OK:
				edits[i] = failed(v, i)
			}
		}
		if len(edits) == 0 {
			continue // no ok op answered the fault within the bound: nothing to stretch
		}
		found = true
		if !sure {
			continue
		}
		ms = append(ms, v.mutant(SlowRecovery, false, edits,
			"the %d ok ops within %s after %s (op %d) fail instead, so the first ok op after it comes later than the bound",
			len(edits), o.Within, f, v.h[nc.comp].Index))
	}
	if len(ms) == 0 && found {
		return nil, "every fault answered within the bound is followed by no op after the bound, so a stretched gap would be unmeasured, not slow"
	}
	return byPos(ms), ""
}
