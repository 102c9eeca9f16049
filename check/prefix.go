package check

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/faultline/faultline/history"
)

func init() {
	Register(Spec{
		Name:    "prefix-order",
		NoModel: "faultline check has no flags for the producing and viewing functions (produce=, views=)",
		Plan:    []string{"prefix-order"},
		Mutants: []string{"prefix-order"},
	})
}

// PrefixOrderOptions configures PrefixOrder.
type PrefixOrderOptions struct {
	Produce []string // functions that add one value to the log; default append, enqueue, produce, send, publish, add
	Views   []string // functions whose ok value is a consumer's view, a list; default read, poll, consume, subscribe
}

// PrefixOrder returns the prefix/order checker (spec §4.2 #9, queue and log
// ordering): each consumer view is a prefix of the producer order.
//
// Ops carry the log's name in Op.Key (nil is the one log); a produce op's
// value is the value it adds, and values are unique per log. A view is the
// list an ok view op returned. Producer order is real time: a value whose
// produce was acknowledged before another's produce was invoked comes first.
// A view is wrong when it holds a value twice, a value nobody produced (or
// whose produce failed), two values against producer order, or a gap: it
// leaves out an acknowledged value produced before one it shows. Values
// whose produces overlap may appear in either order, and a produce still in
// flight may or may not be in the view: that is the in-flight window.
func PrefixOrder(o PrefixOrderOptions) (Checker, error) {
	if len(o.Produce) == 0 {
		o.Produce = []string{"append", "enqueue", "produce", "send", "publish", "add"}
	}
	if len(o.Views) == 0 {
		o.Views = []string{"read", "poll", "consume", "subscribe"}
	}
	o.Produce, o.Views = slices.Clone(o.Produce), slices.Clone(o.Views)
	return prefixOrder{o: o}, nil
}

type prefixOrder struct{ o PrefixOrderOptions }

// Name implements Checker.
func (prefixOrder) Name() string { return "prefix-order" }

// String describes the checker as it would be written in a scenario.
func (c prefixOrder) String() string {
	return fmt.Sprintf("check.prefix_order(produce=%s, views=%s)", quoteList(c.o.Produce), quoteList(c.o.Views))
}

// produced is one value's produce op, by record position.
type produced struct {
	value         any
	invAt, compAt int // compAt is math.MaxInt unless acknowledged (ok)
	failed        bool
}

// Check implements Checker.
func (c prefixOrder) Check(_ context.Context, h []history.Op, _ Env) Result {
	blind := []string{
		"producer order is real time only: two produces that overlap may be seen in either order",
		"views are judged one at a time: a consumer whose later view drops what an earlier one showed is not caught unless that is a gap",
	}
	ops, err := clientOps(h)
	if err != nil {
		return cannotCheck(c.Name(), err, blind)
	}
	logs := map[string]map[string]*produced{}
	acked := map[string][]*produced{} // per log, in order of acknowledgement
	var views []clientOp
	consumed := 0
	var bad []string
	for _, op := range ops {
		switch {
		case slices.Contains(c.o.Produce, op.inv.F):
			consumed++
			log := elemKey(op.key())
			if logs[log] == nil {
				logs[log] = map[string]*produced{}
			}
			v := elemKey(op.inv.Value)
			if _, dup := logs[log][v]; dup {
				return cannotCheck(c.Name(), history.OpErrorf(op.inv.Index, "op %d: value %v is produced twice to log %s; prefix order needs unique values", op.inv.Index, op.inv.Value, log), blind)
			}
			p := &produced{value: op.inv.Value, invAt: op.invAt, compAt: math.MaxInt, failed: op.outcome() == history.Fail}
			if op.outcome() == history.OK {
				p.compAt = op.compAt
				acked[log] = append(acked[log], p)
			}
			logs[log][v] = p
		case slices.Contains(c.o.Views, op.inv.F) && op.outcome() == history.OK:
			consumed++
			views = append(views, op)
		}
	}
	if len(views) == 0 {
		return nothingToCheck(c.Name(), fmt.Sprintf("no ok %s op: no consumer view to judge", strings.Join(c.o.Views, "/")), blind)
	}
	for _, a := range acked {
		slices.SortFunc(a, func(x, y *produced) int { return x.compAt - y.compAt })
	}
	for _, op := range views {
		log := elemKey(op.key())
		list, ok := op.comp.Value.([]any)
		if !ok && op.comp.Value != nil {
			return cannotCheck(c.Name(), history.OpErrorf(op.comp.Index, "op %d: a view must be a list, got %T", op.comp.Index, op.comp.Value), blind)
		}
		seen := map[string]bool{}
		maxInv, maxInvVal := -1, any(nil)
		for _, v := range list {
			k := elemKey(v)
			p := logs[log][k]
			switch {
			case seen[k]:
				bad = append(bad, fmt.Sprintf("op %d: view of log %s holds %v twice", op.comp.Index, log, v))
			case p == nil:
				bad = append(bad, fmt.Sprintf("op %d: view of log %s holds %v, which no op produced", op.comp.Index, log, v))
			case p.failed:
				bad = append(bad, fmt.Sprintf("op %d: view of log %s holds %v, whose produce failed", op.comp.Index, log, v))
			case p.compAt < maxInv:
				bad = append(bad, fmt.Sprintf("op %d: view of log %s shows %v before %v, but %v was acknowledged before %v was produced",
					op.comp.Index, log, maxInvVal, v, v, maxInvVal))
			}
			seen[k] = true
			if p != nil && p.invAt > maxInv {
				maxInv, maxInvVal = p.invAt, v
			}
		}
		// A gap: an acknowledged value produced before the view's latest
		// one was invoked, missing from the view.
		for _, p := range acked[log] {
			if p.compAt >= maxInv {
				break
			}
			if !seen[elemKey(p.value)] {
				bad = append(bad, fmt.Sprintf("op %d: view of log %s is not a prefix: it lacks %v, acknowledged before %v was produced",
					op.comp.Index, log, p.value, maxInvVal))
			}
		}
	}
	res := Result{Checker: c.Name(), Valid: Valid, Consumed: Consumed{Ops: consumed, Keys: len(logs)}, BlindSpots: blind,
		Details: map[string]any{"views": len(views), "logs": len(logs), "violations": len(bad)}}
	if len(bad) > 0 {
		res.Valid = Invalid
		res.Summary = fmt.Sprintf("%d order violations in %d views; first: %s", len(bad), len(views), bad[0])
		res.Explanation = strings.Join(bad[:min(len(bad), 20)], "\n")
		return res
	}
	res.Summary = fmt.Sprintf("%d views of %d logs, each a prefix of the producer order", len(views), len(logs))
	return res
}
