package check

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/faultline/faultline/history"
)

func init() {
	Register(Spec{
		Name:            "queue",
		Models:          []string{"queue"},
		New:             plain(Queue),
		ModelsUnderTest: []string{"queue"},
		Mutants:         []string{"queue"},
	})
	Register(Spec{
		Name:            "total-queue",
		Models:          []string{"total-queue"},
		New:             plain(TotalQueue),
		ModelsUnderTest: []string{"queue"},
		Mutants:         []string{"queue", "total-queue"},
	})
}

// Queue ops, as in Jepsen: :enqueue with the element as value; :dequeue whose
// ok value is the element taken (nil: the queue was empty); :drain whose ok
// value is the list of every element taken until the queue was empty.

// Queue returns Jepsen's queue checker: every dequeue must come from
// somewhere. Every enqueue that did not fail is assumed to have happened when
// it was invoked, and every ok dequeue or drain takes its elements when it
// completes; taking an element not then in the queue is invalid. Order is not
// checked (an unordered queue).
func Queue() Checker { return queueChecker{total: false} }

// TotalQueue returns Jepsen's total-queue checker: every acknowledged enqueue
// must be dequeued (else lost), and nothing may be dequeued that no enqueue
// attempted (unexpected). An :info enqueue may or may not have happened:
// dequeued, it is recovered. Elements dequeued more often than enqueued are
// reported as duplicated but, as in Jepsen, are not by themselves invalid.
func TotalQueue() Checker { return queueChecker{total: true} }

type queueChecker struct{ total bool }

// Name implements Checker.
func (c queueChecker) Name() string {
	if c.total {
		return "total-queue"
	}
	return "queue"
}

// String describes the checker as it would be written in a scenario.
func (c queueChecker) String() string {
	if c.total {
		return "check.total_queue()"
	}
	return "check.queue()"
}

// queueEvent is one element entering or leaving the queue at a record position.
type queueEvent struct {
	at    int
	add   bool
	acked bool // an enqueue that completed ok
	value any
	op    clientOp
}

// Check implements Checker.
func (c queueChecker) Check(_ context.Context, h []history.Op, _ Env) Result {
	blind := []string{"order is not checked: a FIFO violation passes", "an empty dequeue (nil) is not judged"}
	if c.total {
		blind = []string{"order is not checked: a FIFO violation passes",
			"elements still queued at the end count as lost: the history must end with a :drain"}
	}
	ops, err := clientOps(h)
	if err != nil {
		return cannotCheck(c.Name(), err, blind)
	}
	var evs []queueEvent
	consumed, keys := 0, keyCounter{}
	for _, op := range ops {
		switch op.inv.F {
		case "enqueue":
			if op.outcome() != history.Fail {
				evs = append(evs, queueEvent{at: op.invAt, add: true, acked: op.outcome() == history.OK, value: op.inv.Value, op: op})
			}
		case "dequeue":
			if op.outcome() == history.OK && op.comp.Value != nil {
				evs = append(evs, queueEvent{at: op.compAt, value: op.comp.Value, op: op})
			}
		case "drain":
			if op.outcome() == history.OK {
				els, ok := elements(op.comp.Value)
				if !ok {
					return cannotCheck(c.Name(), history.OpErrorf(op.comp.Index, "op %d: a drain returns a list of elements, got %s", op.comp.Index, formatValue(op.comp.Value)), blind)
				}
				for _, e := range els {
					evs = append(evs, queueEvent{at: op.compAt, value: e, op: op})
				}
			}
		default:
			continue
		}
		consumed++
		keys.add(op.key())
	}
	if consumed == 0 {
		return nothingToCheck(c.Name(), "no :enqueue, :dequeue or :drain ops", blind)
	}
	sort.SliceStable(evs, func(i, j int) bool { return evs[i].at < evs[j].at })
	res := Result{Checker: c.Name(), Valid: Valid, Consumed: Consumed{Ops: consumed, Keys: len(keys)}, BlindSpots: blind}
	if c.total {
		c.judgeTotal(&res, evs)
	} else {
		c.judgeQueue(&res, evs)
	}
	return res
}

// judgeQueue replays the events against a multiset.
func (c queueChecker) judgeQueue(res *Result, evs []queueEvent) {
	in := map[string]int{}
	enq, deq := 0, 0
	var bad []string
	for _, e := range evs {
		k := elemKey(e.value)
		if e.add {
			enq++
			in[k]++
			continue
		}
		deq++
		if in[k] == 0 {
			bad = append(bad, fmt.Sprintf("op %d (process %d, %s) took %s, which was not in the queue",
				e.op.comp.Index, e.op.inv.Process, e.op.inv.F, formatValue(e.value)))
			continue
		}
		in[k]--
	}
	res.Details = map[string]any{"enqueues": enq, "dequeued": deq, "errors": len(bad)}
	res.Summary = fmt.Sprintf("%d enqueues, %d elements dequeued, every one from the queue", enq, deq)
	if len(bad) > 0 {
		res.Valid = Invalid
		res.Summary = fmt.Sprintf("%d dequeues took an element not in the queue; first: %s", len(bad), bad[0])
		res.Details["problems"] = bad
		res.Explanation = "Every dequeue must take an element some non-failed enqueue invoked earlier put there, and not yet taken:\n  " +
			strings.Join(bad[:min(len(bad), 20)], "\n  ") + "\n"
	}
}

// judgeTotal compares what was enqueued with what was dequeued, as multisets.
func (c queueChecker) judgeTotal(res *Result, evs []queueEvent) {
	attempts, acks, deqs := map[string]int{}, map[string]int{}, map[string]int{}
	values := map[string]any{}
	var order []string
	for _, e := range evs {
		k := elemKey(e.value)
		if _, ok := values[k]; !ok {
			values[k] = e.value
			order = append(order, k)
		}
		switch {
		case e.add && e.acked:
			acks[k]++
			attempts[k]++
		case e.add:
			attempts[k]++
		default:
			deqs[k]++
		}
	}
	var lost, unexpected, duplicated, recovered []any
	nAttempt, nAck, nDeq := 0, 0, 0
	for _, k := range order {
		a, ok, d, v := attempts[k], acks[k], deqs[k], values[k]
		nAttempt, nAck, nDeq = nAttempt+a, nAck+ok, nDeq+d
		switch {
		case a == 0 && d > 0:
			unexpected = append(unexpected, v)
		case d > a:
			duplicated = append(duplicated, v)
		}
		if d < ok {
			lost = append(lost, v)
		}
		if d > ok && a > ok {
			recovered = append(recovered, v)
		}
	}
	res.Details = map[string]any{
		"attempt_count": nAttempt, "acknowledged_count": nAck, "dequeued_count": nDeq,
		"lost_count": len(lost), "unexpected_count": len(unexpected), "duplicated_count": len(duplicated), "recovered_count": len(recovered),
		"lost": lost, "unexpected": unexpected, "duplicated": duplicated, "recovered": recovered,
	}
	res.Summary = fmt.Sprintf("%d attempted, %d acknowledged, %d dequeued, %d lost, %d unexpected, %d duplicated, %d recovered",
		nAttempt, nAck, nDeq, len(lost), len(unexpected), len(duplicated), len(recovered))
	var b strings.Builder
	if len(lost) > 0 {
		fmt.Fprintf(&b, "Lost: %d acknowledged elements were never dequeued: %s\n", len(lost), sample(lost, 20))
	}
	if len(unexpected) > 0 {
		fmt.Fprintf(&b, "Unexpected: %d dequeued elements no enqueue attempted: %s\n", len(unexpected), sample(unexpected, 20))
	}
	if b.Len() > 0 {
		res.markInvalid()
	}
	if len(duplicated) > 0 {
		fmt.Fprintf(&b, "Duplicated (not by itself invalid): %d elements dequeued more often than enqueued: %s\n", len(duplicated), sample(duplicated, 20))
	}
	res.Explanation = b.String()
}
