package check

import (
	"fmt"
	"math"
	"strconv"

	"github.com/faultline/faultline/history"
)

// clientOp is one client operation: its invocation and its completion, which
// is nil when the op never completed (it then counts as info).
type clientOp struct {
	inv, comp     *history.Op
	invAt, compAt int // record positions; compAt is math.MaxInt when never completed
}

// outcome is the op's result type; an op that never completed is info.
func (c clientOp) outcome() history.Type {
	if c.comp == nil {
		return history.Info
	}
	return c.comp.Type
}

// value is what the op carried: the completion's value when it completed ok
// (reads return their result there), else the invocation's argument.
func (c clientOp) value() any {
	if c.comp != nil && c.comp.Type == history.OK {
		return c.comp.Value
	}
	return c.inv.Value
}

// key is the op's key: the completion's when the invocation has none.
func (c clientOp) key() any {
	if c.inv.Key == nil && c.comp != nil {
		return c.comp.Key
	}
	return c.inv.Key
}

// latency is completion.Time - invoke.Time; ok is false for an op that never
// completed, whose latency is unbounded.
func (c clientOp) latency() (int64, bool) {
	if c.comp == nil {
		return 0, false
	}
	return c.comp.Time - c.inv.Time, true
}

// clientOps pairs invocations with completions in invocation order, leaving
// out the nemesis.
func clientOps(h []history.Op) ([]clientOp, error) {
	pairs, err := history.Pair(h)
	if err != nil {
		return nil, fmt.Errorf("pair invocations with completions: %w", err)
	}
	ops := make([]clientOp, 0, len(pairs))
	for _, p := range pairs {
		inv := &h[p.Invoke]
		if inv.IsNemesis() {
			continue
		}
		c := clientOp{inv: inv, invAt: p.Invoke, compAt: math.MaxInt}
		if p.Complete >= 0 {
			c.comp, c.compAt = &h[p.Complete], p.Complete
		}
		ops = append(ops, c)
	}
	return ops, nil
}

// cannotCheck is the Unknown result for a history the checker cannot read.
func cannotCheck(name string, err error, blind []string) Result {
	return Result{
		Checker:    name,
		Valid:      Unknown,
		Summary:    "cannot check: " + err.Error(),
		BlindSpots: blind,
		Details:    map[string]any{"input_error": err.Error()},
		Input:      err,
	}
}

// asInt reads an integral number; 2.0 counts, 2.5 does not.
func asInt(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case int:
		return int64(x), true
	case float64:
		if x == math.Trunc(x) && x >= math.MinInt64 && x < math.MaxInt64 {
			return int64(x), true
		}
	}
	return 0, false
}

// asFloat reads any number.
func asFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case int:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

// elemKey is a map key for a value that agrees with history.Equal on the
// scalars set elements and ids are made of: 1 and 1.0 share a key, as do :x
// and "x", while "1" and 1 do not.
func elemKey(v any) string {
	switch x := v.(type) {
	case string:
		return strconv.Quote(x)
	case history.Keyword:
		return strconv.Quote(string(x))
	}
	if n, ok := asInt(v); ok {
		return strconv.FormatInt(n, 10)
	}
	return formatValue(v)
}

// elements reads a collection value (vector, list or set) as its elements;
// nil is the empty collection.
func elements(v any) ([]any, bool) {
	switch x := v.(type) {
	case nil:
		return nil, true
	case []any:
		return x, true
	case history.Set:
		return x, true
	}
	return nil, false
}

// keyCounter counts the distinct non-nil keys a checker consumed.
type keyCounter map[string]struct{}

// add notes a key; nil keys are not counted.
func (k keyCounter) add(key any) {
	if key != nil {
		k[history.KeyText(key)] = struct{}{}
	}
}

// sample lists at most n values for explanations, in the order given.
func sample[T any](xs []T, n int) string {
	s := ""
	for i, x := range xs {
		if i == n {
			s += fmt.Sprintf(" ... (%d more)", len(xs)-n)
			break
		}
		if i > 0 {
			s += " "
		}
		s += formatValue(x)
	}
	return s
}

// hasTimes reports whether the history carries real op times. Importers give
// an op without a time its ordinal, so times that all equal the record
// positions mean the source had none, and latencies would be meaningless.
func hasTimes(h []history.Op) bool {
	for i := range h {
		if h[i].Time != int64(i) {
			return true
		}
	}
	return false
}

// markInvalid records that the checker found a violation: the verdict, and a
// summary that says so first.
func (r *Result) markInvalid() {
	r.Valid = Invalid
	r.Summary = "invalid: " + r.Summary
}
