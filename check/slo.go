package check

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/faultline/faultline/history"
)

func init() {
	Register(Spec{
		Name:    "slo",
		NoModel: "it needs a bound (p99=, error_rate=, ...), which faultline check has no flags for",
		Plan:    []string{"slo"},
		Oracle:  "metric-slo",
		Mutants: []string{"slo"},
	})
}

// SLOOptions configures SLO. A zero bound is not checked; at least one bound
// must be set.
type SLOOptions struct {
	F         []string      // the functions judged; nil judges every client op
	P50       time.Duration // latency bounds on ok ops, by nearest rank
	P99       time.Duration
	P999      time.Duration
	ErrorRate *float64      // bound on (fail + info) / completed-or-not ops; nil is unchecked
	Window    time.Duration // tumbling window over op completion time; 0 is the whole history
	MinOps    int           // windows with fewer ops are not judged; 0 means 1
}

// SLO returns a checker of a metric service-level objective: in every window,
// the latency percentiles of ok ops (completion.Time - invoke.Time, nearest
// rank) and the error rate (fail, info and never-completed ops over all ops)
// stay within the declared bounds. The bounds must be fixed before the run:
// a threshold taken from the same run proves nothing.
func SLO(o SLOOptions) (Checker, error) {
	if o.P50 <= 0 && o.P99 <= 0 && o.P999 <= 0 && o.ErrorRate == nil {
		return nil, fmt.Errorf("slo needs a bound: p50, p99, p999 or error_rate")
	}
	if o.ErrorRate != nil && (*o.ErrorRate < 0 || *o.ErrorRate > 1) {
		return nil, fmt.Errorf("slo error_rate must be within [0, 1], got %v", *o.ErrorRate)
	}
	if o.Window < 0 || o.MinOps < 0 {
		return nil, fmt.Errorf("slo window and min_ops must not be negative")
	}
	o.MinOps = max(o.MinOps, 1)
	o.F = slices.Clone(o.F)
	return slo{o: o}, nil
}

type slo struct{ o SLOOptions }

// Name implements Checker.
func (slo) Name() string { return "slo" }

// String describes the checker as it would be written in a scenario.
func (c slo) String() string {
	var args []string
	for _, b := range c.bounds() {
		args = append(args, fmt.Sprintf("%s=%q", b.name, b.bound))
	}
	if c.o.ErrorRate != nil {
		args = append(args, fmt.Sprintf("error_rate=%v", *c.o.ErrorRate))
	}
	if c.o.Window > 0 {
		args = append(args, fmt.Sprintf("window=%q", c.o.Window))
	}
	if c.o.MinOps > 1 {
		args = append(args, fmt.Sprintf("min_ops=%d", c.o.MinOps))
	}
	if len(c.o.F) > 0 {
		args = append(args, "f="+quoteList(c.o.F))
	}
	return "check.slo(" + strings.Join(args, ", ") + ")"
}

// latencyBound is one declared percentile bound.
type latencyBound struct {
	name  string
	q     float64
	bound time.Duration
}

// bounds lists the declared percentile bounds.
func (c slo) bounds() []latencyBound {
	var bs []latencyBound
	for _, b := range []latencyBound{{"p50", 0.50, c.o.P50}, {"p99", 0.99, c.o.P99}, {"p999", 0.999, c.o.P999}} {
		if b.bound > 0 {
			bs = append(bs, b)
		}
	}
	return bs
}

// Percentile is the nearest-rank q-quantile of sorted values, as the
// performance oracles define it (the sensitivity audit's SLO mutants use it
// to break a bound for certain).
func Percentile(sorted []int64, q float64) int64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(q*float64(len(sorted))+0.999999999) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// opStats gathers one group's latencies (ok ops) and outcome counts.
type opStats struct {
	lat        []int64
	ops, errs  int
	first, end int64 // span of op times, for throughput
}

// add records one op.
func (s *opStats) add(op clientOp) {
	if s.ops == 0 || op.inv.Time < s.first {
		s.first = op.inv.Time
	}
	s.ops++
	if l, ok := op.latency(); ok && op.outcome() == history.OK {
		s.lat = append(s.lat, l)
		s.end = max(s.end, op.comp.Time)
	} else {
		s.errs++
	}
}

// errorRate is the share of ops that did not complete ok.
func (s *opStats) errorRate() float64 { return float64(s.errs) / float64(max(s.ops, 1)) }

// Check implements Checker.
func (c slo) Check(_ context.Context, h []history.Op, _ Env) Result {
	blind := []string{
		"info and never-completed ops count as errors but not in latency: their latency is unbounded",
		"client-observed latency only: server-side queueing before the client timer started is not seen",
	}
	if c.o.Window == 0 {
		blind = append(blind, "one window over the whole run: a bad minute averaged with good ones can pass")
	}
	ops, err := clientOps(h)
	if err != nil {
		return cannotCheck(c.Name(), err, blind)
	}
	windows := map[int]*opStats{} // by window index; only windows with ops exist
	var start int64
	consumed := 0
	keys := keyCounter{}
	for _, op := range ops {
		if len(c.o.F) > 0 && !slices.Contains(c.o.F, op.inv.F) {
			continue
		}
		if consumed == 0 {
			start = op.inv.Time
		}
		consumed++
		keys.add(op.key())
		t := op.inv.Time
		if op.comp != nil {
			t = op.comp.Time
		}
		w := 0
		if c.o.Window > 0 {
			w = int(max(t-start, 0) / int64(c.o.Window))
		}
		if windows[w] == nil {
			windows[w] = &opStats{}
		}
		windows[w].add(op)
	}
	if consumed == 0 {
		return nothingToCheck(c.Name(), "no client ops of the judged functions", blind)
	}
	if !hasTimes(h) {
		r := nothingToCheck(c.Name(), "the ops carry no times, so latency cannot be measured", blind)
		r.Consumed = Consumed{Ops: consumed, Keys: len(keys)}
		return r
	}
	order := slices.Sorted(maps.Keys(windows))
	var bad []string
	judged, skipped := 0, 0
	worst := map[string]any{}
	for _, i := range order {
		w := windows[i]
		if w.ops < c.o.MinOps {
			skipped++
			continue
		}
		judged++
		slices.Sort(w.lat)
		where := "the run"
		if c.o.Window > 0 {
			where = fmt.Sprintf("window %d (+%s)", i, time.Duration(int64(i)*int64(c.o.Window)))
		}
		if len(w.lat) == 0 && len(c.bounds()) > 0 {
			bad = append(bad, fmt.Sprintf("%s: no op completed ok, so latency is unbounded (%d ops)", where, w.ops))
		}
		for _, b := range c.bounds() {
			if len(w.lat) == 0 {
				break
			}
			p := time.Duration(Percentile(w.lat, b.q))
			if d, ok := worst[b.name].(time.Duration); !ok || p > d {
				worst[b.name] = p
			}
			if p > b.bound {
				bad = append(bad, fmt.Sprintf("%s: %s %s > %s over %d ok ops", where, b.name, p, b.bound, len(w.lat)))
			}
		}
		if c.o.ErrorRate != nil {
			r := w.errorRate()
			if d, ok := worst["error_rate"].(float64); !ok || r > d {
				worst["error_rate"] = r
			}
			if r > *c.o.ErrorRate {
				bad = append(bad, fmt.Sprintf("%s: error rate %.4f > %v (%d of %d ops)", where, r, *c.o.ErrorRate, w.errs, w.ops))
			}
		}
	}
	res := Result{Checker: c.Name(), Valid: Valid, Consumed: Consumed{Ops: consumed, Keys: len(keys)}, BlindSpots: blind,
		Details: map[string]any{"windows": len(windows), "judged_windows": judged, "skipped_windows": skipped, "worst": worst}}
	res.Summary = fmt.Sprintf("%d ops in %d judged windows within %s", consumed, judged, c.String())
	switch {
	case len(bad) > 0:
		res.Valid = Invalid
		res.Summary = fmt.Sprintf("%d SLO breaches; first: %s", len(bad), bad[0])
		res.Details["breaches"] = bad
		res.Explanation = "Declared bounds " + c.String() + " were exceeded:\n  " + strings.Join(bad[:min(len(bad), 20)], "\n  ") + "\n"
	case judged == 0:
		res.Valid = Unknown
		res.Summary = fmt.Sprintf("unknown: no window had %d ops (%d windows skipped)", c.o.MinOps, skipped)
	}
	return res
}
