package check

import (
	"fmt"
	"sort"
	"strings"

	"github.com/anishathalye/porcupine"

	"github.com/faultline/faultline/history"
	"github.com/faultline/faultline/internal/plural"
)

// prefixTail is how many ops of the longest linearizable prefix the text shows.
const prefixTail = 8

// explanation is the text and data that accompany an Invalid verdict.
type explanation struct {
	summary, text string
	details       map[string]any
	ops           []int64 // the op that cannot take effect (Result.Ops)
}

// explain turns the longest partial linearization of the failing partition
// into a story a person can follow: the longest linearizable prefix, the op
// that cannot come next, the states it could have seen, and why each op that
// could come next does not fit.
func (c *linearizable) explain(h []history.Op, p *prepared, part int, best []int) explanation {
	pt := &p.parts[part]
	ops := pt.ops
	var b strings.Builder
	where := ""
	if c.s.kind == kindKV {
		where = " on key " + formatValue(pt.key)
	}
	fmt.Fprintf(&b, "Not linearizable%s (%s, %d with unknown outcome).\n\n", where, plural.Count(len(ops), "op"), pt.unknown)
	state := c.writePrefix(&b, h, ops, best)
	blocking, next := frontier(ops, best)
	c.writeBlocking(&b, h, ops, blocking, best)
	nextIdx := c.writeNext(&b, h, ops, next, state)

	// Faults around the end of the prefix and the blocking op.
	bo := ops[blocking]
	from, to := bo.Call, min(bo.Return, int64(len(h)-1))
	if len(best) > 0 {
		from = min(from, ops[best[max(0, len(best)-prefixTail)]].Call)
	}
	if ws := overlapping(nemesisWindows(h, p.pairs), int(from), int(to)); len(ws) > 0 {
		b.WriteString("\nNemesis activity overlapping these ops:\n")
		for _, w := range ws {
			fmt.Fprintf(&b, "  %s (ops %d..%d)\n", w.label(), h[w.start].Index, h[w.end].Index)
		}
	}
	if len(p.parts) > 1 {
		// Which key is reported depends on which search finished first, so
		// the text names no count that could change from run to run.
		b.WriteString("\nKeys are checked independently and the search stops at the first key proven not linearizable, so other keys may fail too.\n")
	}

	details := map[string]any{
		"prefix_ops":    len(best),
		"partition_ops": len(ops),
		"blocking_op":   h[opIn(bo).invoke].Index,
		"next_ops":      nextIdx,
	}
	if c.s.kind == kindKV {
		details["failing_key"] = pt.key
	}
	return explanation{
		summary: fmt.Sprintf("not linearizable%s: op %s cannot take effect after the longest linearizable prefix (%d of %d ops)",
			where, opTitle(h, bo), len(best), len(ops)),
		text:    b.String(),
		details: details,
		ops:     []int64{h[opIn(bo).invoke].Index},
	}
}

// writePrefix shows the end of the longest linearizable prefix, each op with
// the state it leaves behind, and returns the state after the whole prefix.
func (c *linearizable) writePrefix(b *strings.Builder, h []history.Op, ops []porcupine.Operation, best []int) any {
	state, states := c.s.initial(), make([]any, len(best))
	for i, id := range best {
		_, state = c.s.step(state, opIn(ops[id]), opOut(ops[id]))
		states[i] = state
	}
	if len(best) == 0 {
		fmt.Fprintf(b, "No op can take effect first: the initial state is %s.\n", formatValue(state))
		return state
	}
	from := max(0, len(best)-prefixTail)
	fmt.Fprintf(b, "Longest linearizable prefix: %d of %d ops. The last %d, in the order they take effect:\n", len(best), len(ops), len(best)-from)
	for i := from; i < len(best); i++ {
		fmt.Fprintf(b, "  %s  state -> %s\n", c.opLine(h, ops[best[i]]), formatValue(states[i]))
	}
	fmt.Fprintf(b, "State after the prefix: %s\n", formatValue(state))
	return state
}

// frontier finds, among the ops outside the prefix, the one that returned
// first (blocking: it must take effect before anything invoked after it
// returned) and the ops that could come next (invoked before that return).
func frontier(ops []porcupine.Operation, best []int) (blocking int, next []int) {
	in := make([]bool, len(ops))
	for _, id := range best {
		in[id] = true
	}
	blocking = -1
	for j := range ops {
		if !in[j] && (blocking < 0 || ops[j].Return < ops[blocking].Return) {
			blocking = j
		}
	}
	for j := range ops {
		if !in[j] && (ops[j].Call < ops[blocking].Return || j == blocking) {
			next = append(next, j)
		}
	}
	sort.Slice(next, func(x, y int) bool { return ops[next[x]].Call < ops[next[y]].Call })
	return blocking, next
}

// writeBlocking names the op that cannot be linearized and the states it
// could have seen.
func (c *linearizable) writeBlocking(b *strings.Builder, h []history.Op, ops []porcupine.Operation, blocking int, best []int) {
	bo := ops[blocking]
	reach, complete := c.s.reachableStates(ops, blocking, best)
	fmt.Fprintf(b, "\nOp %s cannot be linearized. ", opTitle(h, bo))
	if bo.Return == infinity {
		b.WriteString("Its outcome is unknown, so it may take effect any time after its invocation; the states it could meet there: ")
	} else {
		b.WriteString("It had to take effect before it returned, and by then the state could only be: ")
	}
	b.WriteString(joinValues(reach))
	if !complete {
		b.WriteString(" (and possibly more; the search for states was cut short)")
	}
	b.WriteString(".\n")
	var fits []any
	for _, st := range reach {
		if c.s.whyNot(st, opIn(bo), opOut(bo)) == "" {
			fits = append(fits, st)
		}
	}
	if len(fits) > 0 {
		fmt.Fprintf(b, "It would fit after %s, but no order through there gets further than the prefix above.\n", joinValues(fits))
	}
}

// writeNext says why each op that could follow the prefix does not fit, and
// returns their history indices.
func (c *linearizable) writeNext(b *strings.Builder, h []history.Op, ops []porcupine.Operation, next []int, state any) []int64 {
	b.WriteString("\nOps that could come next after the prefix, and why none fits:\n")
	idx := make([]int64, len(next))
	for i, j := range next {
		why := c.s.whyNot(state, opIn(ops[j]), opOut(ops[j]))
		if why == "" {
			why = "it fits, but every order continuing with it fails later"
		}
		fmt.Fprintf(b, "  %s  %s\n", c.opLine(h, ops[j]), why)
		idx[i] = h[opIn(ops[j]).invoke].Index
	}
	return idx
}

func opIn(o porcupine.Operation) *input   { return o.Input.(*input) }
func opOut(o porcupine.Operation) *output { return o.Output.(*output) }

// opRef names an op by its history indices: "#12->#15", or "#12->?" when it
// never completed.
func opRef(h []history.Op, o porcupine.Operation) string {
	in, out := opIn(o), opOut(o)
	if out.complete < 0 {
		return fmt.Sprintf("#%d->?", h[in.invoke].Index)
	}
	return fmt.Sprintf("#%d->#%d", h[in.invoke].Index, h[out.complete].Index)
}

// opLine is one op as a row of text: indices, process, what it did and
// the extra fields its client recorded.
func (c *linearizable) opLine(h []history.Op, o porcupine.Operation) string {
	in := opIn(o)
	return fmt.Sprintf("%-12s p%-3s %-22s", opRef(h, o), history.ProcessName(h[in.invoke].Process), describeOp(in, opOut(o))+opExtra(h, o))
}

// opTitle names an op in a sentence: "#84->#85 (p11 read -> 2)", or
// "#84->#85 (p11 read -> 2; zxid=12)" with the client's extra fields.
func opTitle(h []history.Op, o porcupine.Operation) string {
	return fmt.Sprintf("%s (p%s %s%s)", opRef(h, o), history.ProcessName(h[opIn(o).invoke].Process), describeOp(opIn(o), opOut(o)), opExtra(h, o))
}

// opExtra is "; " and the extra fields a client recorded on the op (a
// zxid, a stream sequence: what tells a reader where the op landed), from
// its completion or, when it never completed, its invocation; "" when none.
func opExtra(h []history.Op, o porcupine.Operation) string {
	src := &h[opIn(o).invoke]
	if out := opOut(o); out.complete >= 0 {
		src = &h[out.complete]
	}
	if len(src.Extra) == 0 {
		return ""
	}
	return "; " + history.ExtraText(src.Extra)
}

func joinValues(vs []any) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = formatValue(v)
	}
	return strings.Join(s, ", ")
}

func joinKeys(keys []string) string {
	s := make([]string, len(keys))
	for i, k := range keys {
		s[i] = formatValue(k)
	}
	return strings.Join(s, ", ")
}
