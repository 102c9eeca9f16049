package check

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/faultline/faultline/history"
)

func init() {
	Register(Spec{
		Name:    "no-lost-ack",
		NoModel: "faultline check has no flags for the writes it judges and the final read (writes=, final=)",
		Plan:    []string{"no-lost-ack"},
		Oracle:  "no-lost-ack",
		Mutants: []string{"no-lost-ack"},
	})
}

// NoLostAckOptions configures NoLostAck.
type NoLostAckOptions struct {
	Writes []string // the functions whose ok completions are acknowledgements; default DefaultWrites
	Final  string   // the function of the final dump; default "dump"
}

// DefaultWrites are the functions NoLostAck treats as writes by default. A
// "cas" writes the second element of its [from, to] value.
var DefaultWrites = []string{"write", "put", "add", "append", "insert", "enqueue", "cas"}

// NoLostAck returns a checker that every acknowledged write survives into the
// final state. Ops: writes (Options.Writes) with an optional Key and the
// written Value; the last ok :dump (Options.Final) carries the final state,
// either a map from key to value or a collection of elements. An ok write with
// a key must be in dump[key]: contained in it when the entry is a collection,
// equal to it when a scalar, unless another non-failed write to that key may
// have followed it (it was not over before this one began); a cas counts as
// a write of "to" in its [from, to] value, so it both is judged and may
// overwrite. An ok write with
// no key must be an element of a collection dump, or of the map's values.
// Writes that failed or ended :info were never acknowledged and are not
// judged. With no dump, or no acknowledged write, the verdict is unknown.
func NoLostAck(o NoLostAckOptions) Checker {
	if len(o.Writes) == 0 {
		o.Writes = DefaultWrites
	}
	if o.Final == "" {
		o.Final = "dump"
	}
	o.Writes = slices.Clone(o.Writes)
	return noLostAck{o: o}
}

type noLostAck struct{ o NoLostAckOptions }

// Name implements Checker.
func (noLostAck) Name() string { return "no-lost-ack" }

// String describes the checker as it would be written in a scenario.
func (c noLostAck) String() string {
	return fmt.Sprintf("check.no_lost_ack(writes=%s, final=%q)", quoteList(c.o.Writes), c.o.Final)
}

// quoteList renders strings as a Starlark list literal.
func quoteList(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = fmt.Sprintf("%q", x)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

var noLostAckBlind = []string{
	"a write that ended :info (timed out) is not an acknowledgement and is not judged",
	"judges the final dump only: a write lost and later restored passes",
	"a scalar entry overwritten by a concurrent or later write is not judged against the earlier write",
}

// finalDump finds the last ok op of function f, the final state.
func finalDump(ops []clientOp, f string) (clientOp, bool) {
	var last clientOp
	found := false
	for _, op := range ops {
		if op.inv.F == f && op.outcome() == history.OK && (!found || op.compAt > last.compAt) {
			last, found = op, true
		}
	}
	return last, found
}

// Check implements Checker.
func (c noLostAck) Check(_ context.Context, h []history.Op, _ Env) Result {
	ops, err := clientOps(h)
	if err != nil {
		return cannotCheck(c.Name(), err, noLostAckBlind)
	}
	dump, haveDump := finalDump(ops, c.o.Final)
	var acked []clientOp
	byKey := map[string][]clientOp{} // non-failed writes per key, for overwrites
	keys := keyCounter{}
	unacked := 0
	for _, op := range ops {
		if !slices.Contains(c.o.Writes, op.inv.F) || op.outcome() == history.Fail {
			continue
		}
		if _, ok := written(op); !ok {
			continue // a malformed cas wrote nothing judgeable
		}
		if op.key() != nil {
			k := history.KeyText(op.key())
			byKey[k] = append(byKey[k], op)
		}
		if op.outcome() != history.OK {
			unacked++
			continue
		}
		acked = append(acked, op)
		keys.add(op.key())
	}
	if len(acked) == 0 {
		return nothingToCheck(c.Name(), fmt.Sprintf("no acknowledged %s", strings.Join(c.o.Writes, "/")), noLostAckBlind)
	}
	res := Result{Checker: c.Name(), Valid: Valid, Consumed: Consumed{Ops: len(acked), Keys: len(keys)}, BlindSpots: noLostAckBlind}
	if !haveDump {
		res.Valid = Unknown
		res.Summary = fmt.Sprintf("unknown: %d acknowledged writes but no ok :%s with the final state", len(acked), c.o.Final)
		return res
	}
	res.Consumed.Ops++
	var lost []string
	overwritten := 0
	for _, w := range acked {
		switch present(w, dump.comp.Value, byKey) {
		case presentNo:
			lost = append(lost, fmt.Sprintf("op %d (process %d) %s %s%s", w.comp.Index, w.inv.Process, w.inv.F, keyPrefix(w.key()), formatValue(w.inv.Value)))
		case presentOverwritten:
			overwritten++
		}
	}
	res.Details = map[string]any{"acknowledged": len(acked), "unacknowledged": unacked, "overwritten": overwritten,
		"lost_count": len(lost), "final_op": dump.comp.Index}
	res.Summary = fmt.Sprintf("%d acknowledged writes, %d lost from the final dump (op %d); %d overwritten, %d unacknowledged not judged",
		len(acked), len(lost), dump.comp.Index, overwritten, unacked)
	if len(lost) > 0 {
		res.markInvalid()
		res.Details["lost"] = lost
		res.Explanation = "Acknowledged writes missing from the final state:\n  " + strings.Join(lost[:min(len(lost), 20)], "\n  ") + "\n"
		if len(lost) > 20 {
			res.Explanation += fmt.Sprintf("  ... %d more\n", len(lost)-20)
		}
	}
	return res
}

// keyPrefix renders "key=" for a keyed write.
func keyPrefix(k any) string {
	if k == nil {
		return ""
	}
	return history.KeyText(k) + "="
}

// presence is whether an acknowledged write shows in the final state.
type presence int

const (
	presentYes presence = iota
	presentNo
	presentOverwritten // absent, but a write that may have followed replaced it
)

// written is the value a write op stores: a cas's "to", any other write's
// argument. ok is false for a cas whose value is not a [from, to] pair.
func written(w clientOp) (any, bool) {
	if w.inv.F != "cas" {
		return w.inv.Value, true
	}
	pair, ok := w.inv.Value.([]any)
	if !ok || len(pair) != 2 {
		return nil, false
	}
	return pair[1], true
}

// present judges one acknowledged write w against the final state.
func present(w clientOp, final any, byKey map[string][]clientOp) presence {
	v, _ := written(w)
	if w.key() == nil {
		if els, ok := elements(final); ok {
			return yesIf(containsValue(els, v))
		}
		if m, ok := final.(map[string]any); ok {
			for _, e := range m {
				if history.Equal(e, v) {
					return presentYes
				}
			}
		}
		return presentNo
	}
	m, ok := final.(map[string]any)
	if !ok {
		return presentNo
	}
	k := history.KeyText(w.key())
	entry, ok := m[k]
	if !ok {
		return presentNo
	}
	if els, ok := elements(entry); ok && entry != nil {
		return yesIf(containsValue(els, v))
	}
	if history.Equal(entry, v) {
		return presentYes
	}
	for _, o := range byKey[k] {
		if ov, _ := written(o); o.inv != w.inv && o.compAt > w.invAt && history.Equal(entry, ov) {
			return presentOverwritten
		}
	}
	return presentNo
}

// yesIf maps a containment test to a presence.
func yesIf(ok bool) presence {
	if ok {
		return presentYes
	}
	return presentNo
}

// containsValue reports whether v is among els.
func containsValue(els []any, v any) bool {
	return slices.ContainsFunc(els, func(e any) bool { return history.Equal(e, v) })
}
