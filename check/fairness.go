package check

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/faultline/faultline/history"
)

func init() {
	Register(Spec{
		Name:    "fairness",
		NoModel: "it needs a bound (max_p99_ratio=, min_throughput=, ...), which faultline check has no flags for",
		Plan:    []string{"fairness"},
		Oracle:  "per-group",
		Mutants: []string{"fairness"},
	})
}

// FairnessOptions configures Fairness. A zero bound is not checked; at least
// one must be set.
type FairnessOptions struct {
	Group         string   // the Op.Extra field naming the group (tenant, shard, ...); "" uses Op.Key
	F             []string // the functions judged; nil judges every client op
	MaxP99Ratio   float64  // bound on worst group p99 / aggregate p99
	MinThroughput float64  // bound on the slowest group's ok ops per second over the run
	MaxErrorRate  *float64 // bound on each group's error rate; nil is unchecked, 0 demands none
	Repeat        string   // the Op.Extra field naming the repeat (run) an op belongs to
	MaxSpread     float64  // bound on (max - min) / min of aggregate p99 across repeats
}

// Fairness returns the formula checker for per-group performance: the worst
// group's p99 latency against the aggregate p99, the slowest group's
// throughput, each group's error rate, and the spread of p99 across repeats.
// Latency is completion.Time - invoke.Time of ok ops; errors are fail, info
// and never-completed ops. Ops without a group are not judged.
func Fairness(o FairnessOptions) (Checker, error) {
	if o.MaxP99Ratio <= 0 && o.MinThroughput <= 0 && o.MaxErrorRate == nil && o.MaxSpread <= 0 {
		return nil, fmt.Errorf("fairness needs a bound: max_p99_ratio, min_throughput, max_error_rate or max_spread")
	}
	if o.MaxSpread > 0 && o.Repeat == "" {
		return nil, fmt.Errorf("fairness max_spread needs repeat, the field naming each op's repeat")
	}
	if o.MaxErrorRate != nil && (*o.MaxErrorRate < 0 || *o.MaxErrorRate > 1) {
		return nil, fmt.Errorf("fairness max_error_rate must be within [0, 1], got %v", *o.MaxErrorRate)
	}
	o.F = slices.Clone(o.F)
	return fairness{o: o}, nil
}

type fairness struct{ o FairnessOptions }

// Name implements Checker.
func (fairness) Name() string { return "fairness" }

// String describes the checker as it would be written in a scenario.
func (c fairness) String() string {
	var args []string
	if c.o.Group != "" {
		args = append(args, fmt.Sprintf("group=%q", c.o.Group))
	}
	if c.o.MaxP99Ratio > 0 {
		args = append(args, fmt.Sprintf("max_p99_ratio=%v", c.o.MaxP99Ratio))
	}
	if c.o.MinThroughput > 0 {
		args = append(args, fmt.Sprintf("min_throughput=%v", c.o.MinThroughput))
	}
	if c.o.MaxErrorRate != nil {
		args = append(args, fmt.Sprintf("max_error_rate=%v", *c.o.MaxErrorRate))
	}
	if c.o.Repeat != "" {
		args = append(args, fmt.Sprintf("repeat=%q", c.o.Repeat))
	}
	if c.o.MaxSpread > 0 {
		args = append(args, fmt.Sprintf("max_spread=%v", c.o.MaxSpread))
	}
	if len(c.o.F) > 0 {
		args = append(args, "f="+quoteList(c.o.F))
	}
	return "check.fairness(" + strings.Join(args, ", ") + ")"
}

// extraField reads a field from the invocation's Extra, else the completion's.
func extraField(op clientOp, name string) (any, bool) {
	if v, ok := op.inv.Extra[name]; ok {
		return v, true
	}
	if op.comp != nil {
		v, ok := op.comp.Extra[name]
		return v, ok
	}
	return nil, false
}

// Check implements Checker.
func (c fairness) Check(_ context.Context, h []history.Op, _ Env) Result {
	blind := []string{
		"a group too coarse hides an unfair subgroup: the verdict is only as fine as the group field",
		"info and never-completed ops count as errors but not in latency",
	}
	if c.o.Repeat == "" {
		blind = append(blind, "one run: repeat spread is not measured")
	}
	ops, err := clientOps(h)
	if err != nil {
		return cannotCheck(c.Name(), err, blind)
	}
	groups := map[string]*opStats{}
	repeats := map[string]*opStats{}
	var all opStats
	ungrouped := 0
	var first, last int64
	for _, op := range ops {
		if len(c.o.F) > 0 && !slices.Contains(c.o.F, op.inv.F) {
			continue
		}
		g, ok := op.key(), op.key() != nil
		if c.o.Group != "" {
			g, ok = extraField(op, c.o.Group)
		}
		if !ok {
			ungrouped++
			continue
		}
		if all.ops == 0 {
			first = op.inv.Time
		}
		first, last = min(first, op.inv.Time), max(last, op.inv.Time)
		if op.comp != nil {
			last = max(last, op.comp.Time)
		}
		all.add(op)
		gs := groups[history.KeyText(g)]
		if gs == nil {
			gs = &opStats{}
			groups[history.KeyText(g)] = gs
		}
		gs.add(op)
		if r, ok := extraField(op, c.o.Repeat); ok && c.o.Repeat != "" {
			rs := repeats[history.KeyText(r)]
			if rs == nil {
				rs = &opStats{}
				repeats[history.KeyText(r)] = rs
			}
			rs.add(op)
		}
	}
	if all.ops == 0 {
		return nothingToCheck(c.Name(), fmt.Sprintf("no client op carries a group (%d ungrouped)", ungrouped), blind)
	}
	res := Result{Checker: c.Name(), Valid: Valid, Consumed: Consumed{Ops: all.ops, Keys: len(groups)}, BlindSpots: blind}
	if !hasTimes(h) {
		res.Valid = Unknown
		res.Summary = "unknown: the ops carry no times, so latency and throughput cannot be measured"
		return res
	}
	if len(groups) < 2 {
		res.Valid = Unknown
		res.Summary = fmt.Sprintf("unknown: fairness needs two groups, found %d", len(groups))
		return res
	}
	names := make([]string, 0, len(groups))
	for g := range groups {
		names = append(names, g)
	}
	sort.Strings(names)
	slices.Sort(all.lat)
	aggP99 := Percentile(all.lat, 0.99)
	span := time.Duration(max(last-first, 1))
	byGroup := map[string]any{}
	var bad []string
	worstName, worstP99 := "", int64(-1)
	slowName, slowTput := "", -1.0
	for _, g := range names {
		s := groups[g]
		slices.Sort(s.lat)
		p99 := Percentile(s.lat, 0.99)
		if len(s.lat) == 0 {
			p99 = int64(span) // no ok op: as slow as the whole run
		}
		tput := float64(len(s.lat)) / span.Seconds()
		byGroup[g] = map[string]any{"ops": s.ops, "errors": s.errs, "p99_ns": p99, "throughput": tput}
		if p99 > worstP99 {
			worstName, worstP99 = g, p99
		}
		if slowTput < 0 || tput < slowTput {
			slowName, slowTput = g, tput
		}
		if c.o.MaxErrorRate != nil && s.errorRate() > *c.o.MaxErrorRate {
			bad = append(bad, fmt.Sprintf("group %s: error rate %.4f > %v (%d of %d ops)", g, s.errorRate(), *c.o.MaxErrorRate, s.errs, s.ops))
		}
	}
	ratio := float64(worstP99) / float64(max(aggP99, 1))
	if c.o.MaxP99Ratio > 0 && ratio > c.o.MaxP99Ratio {
		bad = append(bad, fmt.Sprintf("group %s: p99 %s is %.2fx the aggregate p99 %s (bound %v)",
			worstName, time.Duration(worstP99), ratio, time.Duration(aggP99), c.o.MaxP99Ratio))
	}
	if c.o.MinThroughput > 0 && slowTput < c.o.MinThroughput {
		bad = append(bad, fmt.Sprintf("group %s: throughput %.2f ok ops/s < %v over %s", slowName, slowTput, c.o.MinThroughput, span))
	}
	spread := c.spread(repeats, &bad)
	res.Details = map[string]any{"groups": byGroup, "aggregate_p99_ns": aggP99, "worst_p99_ratio": ratio,
		"worst_group": worstName, "min_throughput": slowTput, "slowest_group": slowName, "ungrouped": ungrouped}
	if spread >= 0 {
		res.Details["repeat_spread"] = spread
	}
	res.Summary = fmt.Sprintf("%d groups: worst p99 %s is %.2fx aggregate; slowest group %.2f ok ops/s", len(groups), worstName, ratio, slowTput)
	if len(bad) > 0 {
		res.Valid = Invalid
		res.Summary = fmt.Sprintf("%d fairness bounds broken; first: %s", len(bad), bad[0])
		res.Details["breaches"] = bad
		res.Explanation = "Declared bounds " + c.String() + " were exceeded:\n  " + strings.Join(bad[:min(len(bad), 20)], "\n  ") + "\n"
	} else if c.o.MaxSpread > 0 && spread < 0 {
		res.Valid = Unknown
		res.Summary = fmt.Sprintf("unknown: max_spread needs two repeats, found %d", len(repeats))
	}
	return res
}

// spread is (max - min) / min of each repeat's p99, checked against the
// bound; -1 when fewer than two repeats have ok ops.
func (c fairness) spread(repeats map[string]*opStats, bad *[]string) float64 {
	var lo, hi int64 = -1, -1
	n := 0
	for _, r := range repeats {
		if len(r.lat) == 0 {
			continue
		}
		slices.Sort(r.lat)
		p := Percentile(r.lat, 0.99)
		if n == 0 || p < lo {
			lo = p
		}
		hi = max(hi, p)
		n++
	}
	if n < 2 {
		return -1
	}
	s := float64(hi-lo) / float64(max(lo, 1))
	if c.o.MaxSpread > 0 && s > c.o.MaxSpread {
		*bad = append(*bad, fmt.Sprintf("repeat p99 spread %.2f > %v (p99 from %s to %s)", s, c.o.MaxSpread, time.Duration(lo), time.Duration(hi)))
	}
	return s
}
