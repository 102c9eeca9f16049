// Package reduce shrinks a failing input by delta debugging (Zeller and
// Hildebrandt's ddmin): it removes halves, then smaller chunks and their
// complements, re-testing each candidate, until removing any single item
// makes the failure go away (1-minimal) or the run budget is spent.
//
// A test here may be a whole cluster run, so the package counts runs, never
// tests the same candidate twice, and lets the caller rule candidates out
// before they cost a run.
package reduce

import (
	"context"
	"errors"
	"fmt"
	"strconv"
)

// ErrNoFailure is returned when the full input does not fail: there is
// nothing to reduce.
var ErrNoFailure = errors.New("reduce: the full input does not fail")

// Options configure Minimize.
type Options[T any] struct {
	// Test runs one candidate and reports whether it fails. An error stops
	// the reduction.
	Test func(ctx context.Context, candidate []T) (fails bool, err error)
	// Keep, if set, says whether a candidate is admissible (say, it still
	// holds one fault of each category the failure needs); inadmissible
	// candidates are never run.
	Keep func(candidate []T) bool
	// MaxRuns bounds the calls to Test, repeats included; 0 means no bound.
	MaxRuns int
	// Runs is how many times a candidate is tried before it counts as
	// passing; it fails as soon as one run fails. 0 means 1.
	Runs int
}

// Attempt is one candidate that was run.
type Attempt struct {
	Size       int  // items in the candidate
	Failed     bool // some run of it failed
	Reproduced int  // runs that failed
	Of         int  // runs made
}

// Result is the outcome of Minimize.
type Result[T any] struct {
	Minimal []T // the smallest failing candidate found
	Runs    int // calls to Test
	Tried   []Attempt
	// OneMinimal is true when removing any single item of Minimal was tried
	// (or ruled out by Keep) and did not fail; false when the budget ran out
	// first.
	OneMinimal bool
}

// errBudget stops the search when MaxRuns is reached.
var errBudget = errors.New("run budget spent")

// Minimize reduces items, which must fail, to a 1-minimal failing subset,
// keeping the items' order. It first runs the full input (ErrNoFailure if it
// passes). On a Test error or a cancelled ctx it returns the smallest failing
// candidate found so far with the error.
func Minimize[T any](ctx context.Context, items []T, o Options[T]) (Result[T], error) {
	m := &minimizer[T]{ctx: ctx, items: items, o: o, seen: map[string]bool{}}
	if m.o.Runs <= 0 {
		m.o.Runs = 1
	}
	all := make([]int, len(items))
	for i := range all {
		all[i] = i
	}
	res, err := m.run(all)
	res.Runs, res.Tried = m.runs, m.tried
	if errors.Is(err, errBudget) {
		err = nil
	}
	return res, err
}

type minimizer[T any] struct {
	ctx   context.Context
	items []T
	o     Options[T]
	seen  map[string]bool // candidate (item indexes) -> failed
	runs  int
	tried []Attempt
}

// run is ddmin over the item indexes in cur.
func (m *minimizer[T]) run(cur []int) (Result[T], error) {
	res := Result[T]{Minimal: m.pick(cur)}
	fails, err := m.test(cur)
	if err != nil {
		return res, err
	}
	if !fails {
		return res, ErrNoFailure
	}
	for n := 2; len(cur) >= 2; {
		n = min(n, len(cur))
		chunks := split(cur, n)
		next, err := m.firstFailing(chunks, n > 2)
		if err != nil {
			res.Minimal = m.pick(cur)
			return res, err
		}
		switch {
		case next.ok && next.subset:
			cur, n = next.cand, 2
		case next.ok:
			cur, n = next.cand, max(n-1, 2)
		case n == len(cur):
			// Every single item was removed on its own and nothing failed.
			res.Minimal, res.OneMinimal = m.pick(cur), true
			return res, nil
		default:
			n *= 2
		}
	}
	// One item (or none) left: it is 1-minimal if the empty input passes.
	res.Minimal = m.pick(cur)
	if len(cur) == 1 {
		fails, err := m.test([]int{})
		if err != nil {
			return res, err
		}
		if fails {
			cur = cur[:0]
			res.Minimal = m.pick(cur)
		}
	}
	res.OneMinimal = true
	return res, nil
}

// found is the first failing candidate of a round, if any.
type found struct {
	cand       []int
	subset, ok bool
}

// firstFailing tries each chunk, then (when there are more than two; with
// two they are each other's complement) each chunk's complement.
func (m *minimizer[T]) firstFailing(chunks [][]int, complements bool) (found, error) {
	for _, c := range chunks {
		fails, err := m.test(c)
		if err != nil || fails {
			return found{cand: c, subset: true, ok: fails}, err
		}
	}
	if !complements && len(chunks) > 1 {
		return found{}, nil
	}
	for i := range chunks {
		c := complement(chunks, i)
		fails, err := m.test(c)
		if err != nil || fails {
			return found{cand: c, ok: fails}, err
		}
	}
	return found{}, nil
}

// test runs a candidate unless it was run before or Keep rules it out; a
// ruled-out candidate counts as passing.
func (m *minimizer[T]) test(cand []int) (bool, error) {
	key := keyOf(cand)
	if fails, ok := m.seen[key]; ok {
		return fails, nil
	}
	items := m.pick(cand)
	if m.o.Keep != nil && !m.o.Keep(items) {
		m.seen[key] = false
		return false, nil
	}
	a := Attempt{Size: len(cand)}
	defer func() { m.tried = append(m.tried, a) }()
	for a.Of < m.o.Runs && !a.Failed {
		if m.o.MaxRuns > 0 && m.runs >= m.o.MaxRuns {
			return false, errBudget
		}
		if err := m.ctx.Err(); err != nil {
			return false, fmt.Errorf("reduce: %w", err)
		}
		m.runs++
		a.Of++
		fails, err := m.o.Test(m.ctx, items)
		if err != nil {
			return false, fmt.Errorf("reduce: run %d (a candidate of %d items): %w", m.runs, len(cand), err)
		}
		if fails {
			a.Failed = true
			a.Reproduced++
		}
	}
	m.seen[key] = a.Failed
	return a.Failed, nil
}

// pick returns the items at the indexes of cand, in a fresh slice (the caller
// and Test may keep it).
func (m *minimizer[T]) pick(cand []int) []T {
	out := make([]T, len(cand))
	for i, j := range cand {
		out[i] = m.items[j]
	}
	return out
}

// split cuts s into n chunks of nearly equal size, in order.
func split(s []int, n int) [][]int {
	out := make([][]int, 0, n)
	for i := 0; i < n; i++ {
		out = append(out, s[len(s)*i/n:len(s)*(i+1)/n])
	}
	return out
}

// complement returns every chunk but chunks[skip], concatenated in order.
func complement(chunks [][]int, skip int) []int {
	var out []int
	for i, c := range chunks {
		if i != skip {
			out = append(out, c...)
		}
	}
	return out
}

// keyOf identifies a candidate by its item indexes.
func keyOf(cand []int) string {
	b := make([]byte, 0, 4*len(cand))
	for _, i := range cand {
		b = strconv.AppendInt(b, int64(i), 36)
		b = append(b, ',')
	}
	return string(b)
}
