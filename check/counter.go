package check

import (
	"context"
	"fmt"
	"strings"

	"github.com/faultline/faultline/history"
)

func init() {
	Register(Spec{
		Name:            "counter",
		Models:          []string{"counter"},
		New:             plain(Counter),
		Plan:            []string{"counter"},
		ModelsUnderTest: []string{"counter"},
		Mutants:         []string{"counter"},
	})
}

// Counter returns Jepsen's counter checker, widened to allow decrements. Ops:
// :add with an integer delta, :read whose ok value is the counter (initially
// 0). Each ok read must lie between the lowest and highest value the counter
// could have had while it ran: adds that completed ok before the read began
// certainly count; adds that were in flight, or ended :info, may or may not;
// failed adds never do.
func Counter() Checker { return counter{} }

type counter struct{}

// Name implements Checker.
func (counter) Name() string { return "counter" }

// String describes the checker as it would be written in a scenario.
func (counter) String() string { return "check.counter()" }

var counterBlind = []string{
	"bounds each read by sums of adds: an add applied twice within the bounds is not seen",
	"reads that disagree with one another but each fit their bounds pass",
}

// Check implements Checker.
func (c counter) Check(_ context.Context, h []history.Op, _ Env) Result {
	ops, err := clientOps(h)
	if err != nil {
		return cannotCheck(c.Name(), err, counterBlind)
	}
	// Sums evolve at record positions: a possible add counts from its
	// invocation, a certain one from its ok completion. A read's lower bound
	// takes certain adds at its invocation, its upper bound possible adds at
	// its completion.
	type read struct {
		op         clientOp
		value      int64
		lower, upp int64
	}
	var reads []read
	n := len(h)
	possiblePos := make([]int64, n+1) // sum of max(0,d) of non-failed adds invoked at position i
	possibleNeg := make([]int64, n+1)
	consumed, keys := 0, keyCounter{}
	for _, op := range ops {
		switch op.inv.F {
		case "add":
			consumed++
			keys.add(op.key())
			if op.outcome() == history.Fail {
				continue
			}
			d, ok := asInt(op.inv.Value)
			if !ok {
				return cannotCheck(c.Name(), history.OpErrorf(op.inv.Index, "op %d: an add takes an integer, got %s", op.inv.Index, formatValue(op.inv.Value)), counterBlind)
			}
			if d >= 0 {
				possiblePos[op.invAt] += d
			} else {
				possibleNeg[op.invAt] += d
			}
		case "read":
			if op.outcome() != history.OK {
				continue
			}
			consumed++
			keys.add(op.key())
			v, ok := asInt(op.comp.Value)
			if !ok {
				return cannotCheck(c.Name(), history.OpErrorf(op.comp.Index, "op %d: a counter read returns an integer, got %s", op.comp.Index, formatValue(op.comp.Value)), counterBlind)
			}
			reads = append(reads, read{op: op, value: v})
		}
	}
	if consumed == 0 {
		return nothingToCheck(c.Name(), "no :add or :read ops", counterBlind)
	}
	if len(reads) == 0 {
		r := nothingToCheck(c.Name(), "the counter was never read (no ok :read)", counterBlind)
		r.Consumed = Consumed{Ops: consumed, Keys: len(keys)}
		return r
	}
	// Prefix sums turn each bound into two lookups.
	certPos, certNeg := make([]int64, n+1), make([]int64, n+1)
	for _, op := range ops {
		if op.inv.F != "add" || op.outcome() != history.OK {
			continue
		}
		d, _ := asInt(op.inv.Value)
		if d >= 0 {
			certPos[op.compAt] += d
		} else {
			certNeg[op.compAt] += d
		}
	}
	prefix := func(xs []int64) {
		for i := 1; i < len(xs); i++ {
			xs[i] += xs[i-1]
		}
	}
	prefix(possiblePos)
	prefix(possibleNeg)
	prefix(certPos)
	prefix(certNeg)
	var bad []string
	for i := range reads {
		r := &reads[i]
		before, end := r.op.invAt, r.op.compAt
		// lower: every certain positive before the read began, and every
		// possible negative by its end; upper: the mirror image.
		r.lower = certPos[before] + possibleNeg[end]
		r.upp = possiblePos[end] + certNeg[before]
		if r.value < r.lower || r.value > r.upp {
			bad = append(bad, fmt.Sprintf("op %d (process %d) read %d, outside [%d, %d]",
				r.op.comp.Index, r.op.inv.Process, r.value, r.lower, r.upp))
		}
	}
	res := Result{
		Checker:    c.Name(),
		Valid:      Valid,
		Consumed:   Consumed{Ops: consumed, Keys: len(keys)},
		BlindSpots: counterBlind,
		Details:    map[string]any{"reads": len(reads), "errors": len(bad)},
	}
	last := reads[len(reads)-1]
	res.Summary = fmt.Sprintf("%d reads within bounds (last read %d in [%d, %d])", len(reads), last.value, last.lower, last.upp)
	if len(bad) > 0 {
		res.Valid = Invalid
		res.Summary = fmt.Sprintf("%d of %d reads outside the possible range; first: %s", len(bad), len(reads), bad[0])
		res.Details["bad_reads"] = bad
		var b strings.Builder
		b.WriteString("Each read must lie between certain adds (ok before it began) and possible adds (not failed, invoked before it ended):\n")
		for i, s := range bad {
			if i == 20 {
				fmt.Fprintf(&b, "... %d more\n", len(bad)-20)
				break
			}
			b.WriteString("  " + s + "\n")
		}
		res.Explanation = b.String()
	}
	return res
}
