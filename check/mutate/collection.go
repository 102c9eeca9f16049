package mutate

import (
	"math/rand/v2"
	"slices"

	"github.com/faultline/faultline/history"
)

// adds is a history of add and read calls: a set or a counter.
type adds struct {
	adds  []call // every add, in invocation order
	reads []call // ok reads, in invocation order
	final int    // index in reads of the read that completed last
}

// splitAdds returns the add and ok read calls of v whose read results
// satisfy isResult, or nil when there are no adds or no such reads.
func splitAdds(v *view, isResult func(any) bool) *adds {
	a := &adds{}
	for _, c := range v.calls {
		switch v.h[c.inv].F {
		case "add":
			a.adds = append(a.adds, c)
		case "read":
			if v.ok(c) && isResult(v.h[c.comp].Value) {
				a.reads = append(a.reads, c)
			}
		}
	}
	if len(a.adds) == 0 || len(a.reads) == 0 {
		return nil
	}
	for i, r := range a.reads {
		if r.comp > a.reads[a.final].comp {
			a.final = i
		}
	}
	return a
}

// isCollection reports whether x is a set read's value.
func isCollection(x any) bool {
	switch x.(type) {
	case []any, history.Set:
		return true
	}
	return false
}

// elems returns a collection's elements.
func elems(x any) []any {
	switch y := x.(type) {
	case []any:
		return y
	case history.Set:
		return y
	}
	return nil
}

// sameShape wraps elements in the collection type of like.
func sameShape(like any, es []any) any {
	if _, ok := like.(history.Set); ok {
		return history.Set(es)
	}
	return es
}

// setMutants derives, on the final read of a set: an acknowledged add
// missing (lost-write), an element listed twice (duplicate-effect, list
// values only), and an element nobody added (phantom-read).
func setMutants(v *view, rng *rand.Rand, max int) ([]Mutant, string) {
	a := splitAdds(v, isCollection)
	if a == nil {
		return nil, ""
	}
	final := a.reads[a.final]
	fop := &v.h[final.comp]
	got := elems(fop.Value)
	present := map[string]bool{}
	for _, e := range got {
		present[valueKey(e)] = true
	}
	// Acknowledged adds that completed before the final read began, and are in it.
	var acked []any
	ph := newPhantoms()
	for _, c := range a.adds {
		x := v.h[c.inv].Value
		ph.see(x)
		if v.ok(c) && c.comp < final.inv && present[valueKey(x)] && !slices.ContainsFunc(acked, func(y any) bool { return history.Equal(x, y) }) {
			acked = append(acked, x)
		}
	}
	for _, r := range a.reads {
		ph.see(v.h[r.comp].Value)
	}
	var lost, dup, phantom []Mutant
	for _, x := range pick(rng, acked)[:min(max, len(acked))] {
		kept := slices.DeleteFunc(slices.Clone(got), func(y any) bool { return history.Equal(x, y) })
		lost = append(lost, v.mutant(LostWrite, false, v.withValue(final.comp, sameShape(fop.Value, kept)),
			"op %d (the final read, process %d) no longer holds %s, whose add was acknowledged before the read began",
			fop.Index, fop.Process, history.FormatEDN(x)))
	}
	if _, list := fop.Value.([]any); list && len(got) > 0 {
		for _, i := range pick(rng, indexes(len(got)))[:min(max, len(got))] {
			twice := slices.Insert(slices.Clone(got), i, got[i])
			dup = append(dup, v.mutant(DuplicateEffect, false, v.withValue(final.comp, twice),
				"op %d (the final read, process %d) holds %s twice", fop.Index, fop.Process, history.FormatEDN(got[i])))
		}
	}
	for range max {
		x, ok := ph.next()
		if !ok {
			break
		}
		phantom = append(phantom, v.mutant(PhantomRead, false, v.withValue(final.comp, sameShape(fop.Value, append(slices.Clone(got), x))),
			"op %d (the final read, process %d) also holds %s, which no op added", fop.Index, fop.Process, history.FormatEDN(x)))
	}
	ms := slices.Concat(lost, dup, phantom)
	if len(lost) == 0 {
		return ms, "no acknowledged add completed before the final read began"
	}
	return ms, ""
}

// indexes returns 0..n-1.
func indexes(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// isInt reports whether x is a counter read's value.
func isInt(x any) bool {
	_, ok := asInt(x)
	return ok
}

// counterMutants moves a read below the least (lost-write) or above the
// greatest (duplicate-effect) value any order of the adds allows, by the
// delta of an add acknowledged before the read began. The final read is used
// first, then others.
func counterMutants(v *view, rng *rand.Rand, max int) ([]Mutant, string) {
	a := splitAdds(v, isInt)
	if a == nil {
		return nil, ""
	}
	order := append([]call{a.reads[a.final]}, pick(rng, slices.Delete(slices.Clone(a.reads), a.final, a.final+1))...)
	var lost, dup []Mutant
	for _, r := range order {
		if len(lost) == max {
			break
		}
		lo, hi, add, delta, ok := counterBounds(v, a, r)
		if !ok {
			continue
		}
		rop := &v.h[r.comp]
		lost = append(lost, v.mutant(LostWrite, false, v.withValue(r.comp, lo-delta),
			"op %d (ok read, process %d) returns %d instead of %s: the acknowledged add of %d (op %d) is missing, below the least possible value %d",
			rop.Index, rop.Process, lo-delta, history.FormatEDN(rop.Value), delta, add, lo))
		dup = append(dup, v.mutant(DuplicateEffect, false, v.withValue(r.comp, hi+delta),
			"op %d (ok read, process %d) returns %d instead of %s: the add of %d (op %d) counted twice, above the greatest possible value %d",
			rop.Index, rop.Process, hi+delta, history.FormatEDN(rop.Value), delta, add, hi))
	}
	if len(lost) == 0 {
		return nil, "no positive add was acknowledged before an ok read began"
	}
	return append(byPos(lost), byPos(dup)...), ""
}

// counterBounds returns the least and greatest value read r could return
// under any order of the adds, and an acknowledged positive add (its Index
// and delta) that completed before r began. Adds that failed never count;
// those acknowledged before r began always count; any other may.
func counterBounds(v *view, a *adds, r call) (lo, hi, add, delta int64, ok bool) {
	for _, c := range a.adds {
		if c.inv > r.comp || v.outcome(c) == history.Fail {
			continue
		}
		d, isNum := asInt(v.h[c.inv].Value)
		if !isNum {
			return 0, 0, 0, 0, false
		}
		certain := v.ok(c) && c.comp < r.inv
		switch {
		case d >= 0 && certain:
			lo, hi = lo+d, hi+d
		case d >= 0:
			hi += d
		case certain:
			lo, hi = lo+d, hi+d
		default:
			lo += d
		}
		if certain && d > delta {
			add, delta, ok = v.h[c.comp].Index, d, true
		}
	}
	return lo, hi, add, delta, ok
}
