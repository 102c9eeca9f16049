package check

import (
	"context"
	"fmt"
	"strings"

	"github.com/faultline/faultline/history"
)

func init() {
	Register(Spec{Name: "set", Models: []string{"set"}, New: plain(Set), Plan: []string{"set"}, Mutants: []string{"set"}})
}

// Set returns Jepsen's set checker. Ops: :add with the element as value, and
// :read whose ok value is the whole set (vector, list or set). The last ok read
// is the final read; every acknowledged add that completed before it began
// must be in it (else lost), and it may hold nothing that was never attempted
// (unexpected), nor hold any element twice (duplicated: a set has each
// element once, so a store that returns one twice has applied or reported an
// add twice). An :info add may or may not have happened: present, it is
// recovered; absent, it is no fault. With no ok read the verdict is unknown.
func Set() Checker { return setChecker{} }

type setChecker struct{}

// Name implements Checker.
func (setChecker) Name() string { return "set" }

// String describes the checker as it would be written in a scenario.
func (setChecker) String() string { return "check.set()" }

var setBlind = []string{
	"judges the final read only: an element lost and re-added before it is not seen",
	"adds concurrent with or after the final read are not judged (reported as unread)",
}

// setAdd is one add attempt.
type setAdd struct {
	op    clientOp
	value any
}

// setHistory is a set history split into adds by element and ok reads.
type setHistory struct {
	adds     map[string]*setAdd // non-failed attempts by elemKey; an ok one wins over an info one
	order    []string           // element keys in first-add order
	reads    []clientOp         // ok reads in invocation order
	contents [][]any            // the elements of each ok read
	dups     [][]any            // per ok read, the elements it holds more than once (each listed once)
	consumed Consumed
}

// splitSet reads a set history.
func splitSet(h []history.Op) (*setHistory, error) {
	ops, err := clientOps(h)
	if err != nil {
		return nil, err
	}
	s := &setHistory{adds: map[string]*setAdd{}}
	keys := keyCounter{}
	for _, op := range ops {
		switch op.inv.F {
		case "add":
			// A failed add did not happen: its element, if read, is unexpected.
			if k := elemKey(op.inv.Value); op.outcome() != history.Fail {
				if a, ok := s.adds[k]; !ok || a.op.outcome() != history.OK {
					if !ok {
						s.order = append(s.order, k)
					}
					s.adds[k] = &setAdd{op: op, value: op.inv.Value}
				}
			}
		case "read":
			if op.outcome() != history.OK {
				continue // a read with no result shows nothing
			}
			els, ok := elements(op.comp.Value)
			if !ok {
				return nil, history.OpErrorf(op.comp.Index, "op %d: a set read returns a collection, got %s", op.comp.Index, formatValue(op.comp.Value))
			}
			s.reads = append(s.reads, op)
			s.contents = append(s.contents, els)
			s.dups = append(s.dups, duplicates(els))
		default:
			continue
		}
		s.consumed.Ops++
		keys.add(op.key())
	}
	s.consumed.Keys = len(keys)
	return s, nil
}

// duplicates lists the elements that occur more than once in els, each once,
// in reading order; nil when there are none (the common case allocates only
// the lookup map).
func duplicates(els []any) []any {
	if len(els) < 2 {
		return nil
	}
	count := make(map[string]int, len(els))
	var dups []any
	for _, e := range els {
		k := elemKey(e)
		count[k]++
		if count[k] == 2 {
			dups = append(dups, e)
		}
	}
	return dups
}

// Check implements Checker.
func (c setChecker) Check(_ context.Context, h []history.Op, _ Env) Result {
	s, err := splitSet(h)
	if err != nil {
		return cannotCheck(c.Name(), err, setBlind)
	}
	if s.consumed.Ops == 0 {
		return nothingToCheck(c.Name(), "no :add or :read ops", setBlind)
	}
	if len(s.reads) == 0 {
		r := nothingToCheck(c.Name(), "the set was never read (no ok :read)", setBlind)
		r.Consumed = s.consumed
		return r
	}
	// The final read is the one that completed last.
	fi := 0
	for i, r := range s.reads {
		if r.compAt > s.reads[fi].compAt {
			fi = i
		}
	}
	final := s.reads[fi]
	present := map[string]bool{}
	var unexpected []any
	for _, e := range s.contents[fi] {
		k := elemKey(e)
		present[k] = true
		if _, ok := s.adds[k]; !ok {
			unexpected = append(unexpected, e)
		}
	}
	dups := s.dups[fi]
	var ok, lost, recovered, unread []any
	for _, k := range s.order {
		a := s.adds[k]
		acked := a.op.outcome() == history.OK
		switch {
		case present[k] && acked:
			ok = append(ok, a.value)
		case present[k]:
			recovered = append(recovered, a.value)
		case acked && a.op.compAt < final.invAt:
			lost = append(lost, a.value)
		case acked:
			unread = append(unread, a.value)
		}
	}
	res := Result{
		Checker:    c.Name(),
		Valid:      Valid,
		Consumed:   s.consumed,
		BlindSpots: setBlind,
		Details: map[string]any{
			"attempt_count": len(s.adds), "ok_count": len(ok), "lost_count": len(lost),
			"unexpected_count": len(unexpected), "recovered_count": len(recovered), "unread_count": len(unread),
			"duplicated_count": len(dups), "lost": lost, "unexpected": unexpected, "recovered": recovered, "duplicated": dups,
		},
	}
	res.Summary = fmt.Sprintf("%d attempted, %d ok, %d lost, %d unexpected, %d duplicated, %d recovered in the final read (op %d)",
		len(s.adds), len(ok), len(lost), len(unexpected), len(dups), len(recovered), final.comp.Index)
	var b strings.Builder
	if len(lost) > 0 {
		fmt.Fprintf(&b, "Lost: %d acknowledged adds completed before the final read began but are not in it: %s\n", len(lost), sample(lost, 20))
	}
	if len(unexpected) > 0 {
		fmt.Fprintf(&b, "Unexpected: the final read holds %d elements nobody added (or whose add failed): %s\n", len(unexpected), sample(unexpected, 20))
	}
	if len(dups) > 0 {
		fmt.Fprintf(&b, "Duplicated: the final read holds %d elements more than once; a set holds each once: %s\n", len(dups), sample(dups, 20))
	}
	if b.Len() > 0 {
		res.markInvalid()
	}
	if len(unread) > 0 {
		fmt.Fprintf(&b, "Not judged: %d acknowledged adds completed after the final read began: %s\n", len(unread), sample(unread, 10))
	}
	res.Explanation = b.String()
	return res
}
