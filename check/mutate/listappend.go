package mutate

import (
	"cmp"
	"math/rand/v2"
	"slices"

	"github.com/faultline/faultline/history"
)

// laRead is one list read inside an ok list-append transaction.
type laRead struct {
	call
	mop  int    // position of the micro-op in the completion's value
	key  string // valueKey of the key
	list []any  // the list read; nil is empty
}

// appends is a list-append history: reads, and who appended each element.
type appends struct {
	reads    []laRead
	byKey    map[string][]int           // key -> indexes into reads
	appender map[string]map[string]call // key -> valueKey(element) -> the txn that appended it
	longest  map[string]int             // key -> index into reads of its longest read
	values   *phantoms
}

// microOp decodes [f k v]: its function name, key and value.
func microOp(x any) (f string, k, val any, ok bool) {
	m, ok := x.([]any)
	if !ok || len(m) != 3 {
		return "", nil, nil, false
	}
	switch y := m[0].(type) {
	case string:
		f = y
	case history.Keyword:
		f = string(y)
	default:
		return "", nil, nil, false
	}
	return f, m[1], m[2], true
}

// splitAppends reads the list-append transactions of v; nil when no txn appends.
func splitAppends(v *view) *appends {
	a := &appends{byKey: map[string][]int{}, appender: map[string]map[string]call{}, longest: map[string]int{}, values: newPhantoms()}
	eachMicroOp(v, func(c call, i int, f string, k, x any) {
		key := valueKey(k)
		switch f {
		case "append":
			a.values.see(x)
			if a.appender[key] == nil {
				a.appender[key] = map[string]call{}
			}
			a.appender[key][valueKey(x)] = c
		case "r", "read":
			list, isList := x.([]any)
			if !v.ok(c) || !isList && x != nil {
				return
			}
			a.values.see(list)
			a.byKey[key] = append(a.byKey[key], len(a.reads))
			if j, seen := a.longest[key]; !seen || len(list) > len(a.reads[j].list) {
				a.longest[key] = len(a.reads)
			}
			a.reads = append(a.reads, laRead{call: c, mop: i, key: key, list: list})
		}
	})
	if len(a.appender) == 0 {
		return nil
	}
	return a
}

// eachMicroOp calls fn with every micro-op [f k x] of v's txn calls, read
// from the completion of an ok call and from the invocation otherwise.
func eachMicroOp(v *view, fn func(c call, i int, f string, k, x any)) {
	for _, c := range v.calls {
		if v.h[c.inv].F != "txn" {
			continue
		}
		src := v.h[c.inv].Value
		if v.ok(c) {
			src = v.h[c.comp].Value
		}
		mops, _ := src.([]any)
		for i, m := range mops {
			if f, k, x, ok := microOp(m); ok {
				fn(c, i, f, k, x)
			}
		}
	}
}

// editRead records in edits that read r now returns value, copying the
// completion's value (and any earlier edit of it) rather than sharing it.
func editRead(v *view, edits map[int]history.Op, r laRead, value any) {
	op, seen := edits[r.comp]
	if !seen {
		op = v.h[r.comp]
		op.Value = slices.Clone(op.Value.([]any))
	}
	mops := op.Value.([]any)
	m := slices.Clone(mops[r.mop].([]any))
	m[2] = value
	mops[r.mop] = m
	edits[r.comp] = op
}

// appendMutants derives list-append mutants.
func appendMutants(v *view, rng *rand.Rand, max int) ([]Mutant, string) {
	a := splitAppends(v)
	if a == nil {
		return nil, ""
	}
	if len(a.reads) == 0 {
		return nil, "no ok transaction reads a list"
	}
	order := pick(rng, a.reads)
	var dup, phantom []Mutant
	for _, r := range order {
		if len(dup) == max {
			break
		}
		if len(r.list) == 0 {
			continue
		}
		i := rng.IntN(len(r.list))
		edits := map[int]history.Op{}
		editRead(v, edits, r, slices.Insert(slices.Clone(r.list), i, r.list[i]))
		dup = append(dup, v.mutant(DuplicateEffect, false, edits, "op %d (process %d) reads key %s holding %s twice",
			v.h[r.comp].Index, v.h[r.comp].Process, r.key, history.FormatEDN(r.list[i])))
	}
	for _, r := range order[:min(max, len(order))] {
		x, ok := a.values.next()
		if !ok {
			break
		}
		edits := map[int]history.Op{}
		editRead(v, edits, r, append(slices.Clone(r.list), x))
		phantom = append(phantom, v.mutant(PhantomRead, false, edits, "op %d (process %d) reads key %s ending with %s, which no op appended",
			v.h[r.comp].Index, v.h[r.comp].Process, r.key, history.FormatEDN(x)))
	}
	swapped := a.swapped(v, rng, order, max)
	lost := a.lost(v, rng, max)
	ms := slices.Concat(byPos(lost), byPos(swapped), byPos(dup), byPos(phantom))
	if len(lost) == 0 || len(swapped) == 0 {
		return ms, "too few reads to hide an acknowledged append or reorder two appends for certain"
	}
	return ms, ""
}

// swapped swaps two adjacent elements appended by different transactions in
// one read. It is certainly wrong when another read shows them in the
// original order (the reads then disagree on the order); otherwise only when
// the first append completed before the second began (real time).
func (a *appends) swapped(v *view, rng *rand.Rand, order []laRead, max int) []Mutant {
	var out []Mutant
	for _, r := range order {
		if len(out) == max {
			break
		}
		if len(r.list) < 2 {
			continue
		}
		i := rng.IntN(len(r.list) - 1)
		x, y := r.list[i], r.list[i+1]
		wx, okx := a.appender[r.key][valueKey(x)]
		wy, oky := a.appender[r.key][valueKey(y)]
		if !okx || !oky || wx == wy {
			continue
		}
		witness := -1
		for _, j := range a.byKey[r.key] {
			o := a.reads[j]
			if o.comp != r.comp && len(o.list) > i+1 && history.Equal(o.list[i], x) && history.Equal(o.list[i+1], y) {
				witness = j
				break
			}
		}
		realtime := witness < 0
		if realtime && !(v.ok(wx) && wx.comp < wy.inv) {
			continue
		}
		list := slices.Clone(r.list)
		list[i], list[i+1] = y, x
		edits := map[int]history.Op{}
		editRead(v, edits, r, list)
		why := "completed before the second began"
		if !realtime {
			why = "is shown first by op " + history.FormatEDN(v.h[a.reads[witness].comp].Index)
		}
		out = append(out, v.mutant(SwappedAppends, realtime, edits,
			"op %d (process %d) reads key %s with %s before %s, though the append of %s (op %d) %s",
			v.h[r.comp].Index, v.h[r.comp].Process, r.key, history.FormatEDN(y), history.FormatEDN(x),
			history.FormatEDN(x), v.index(wx), why))
	}
	return out
}

// lost drops an element, appended by an acknowledged transaction, from every
// read of its key that began after that transaction completed. It is
// certainly wrong when a read not edited still shows the element and an
// edited one shows an element after it (the reads disagree on the order);
// otherwise only in real time (the edited reads began after the append was
// acknowledged yet miss it).
func (a *appends) lost(v *view, rng *rand.Rand, max int) []Mutant {
	type cand struct {
		key string
		pos int
	}
	var cands []cand
	for key, j := range a.longest {
		for p := range a.reads[j].list {
			cands = append(cands, cand{key, p})
		}
	}
	// Map iteration order is random: sort before the seeded sample.
	slices.SortFunc(cands, func(x, y cand) int { return cmp.Or(cmp.Compare(x.key, y.key), cmp.Compare(x.pos, y.pos)) })
	const attempts = 256 // candidates tried: bounds the work on long histories
	var certain, realtime []Mutant
	for _, c := range pick(rng, cands)[:min(attempts, len(cands))] {
		if len(certain) == max {
			break
		}
		e := a.reads[a.longest[c.key]].list[c.pos]
		w, ok := a.appender[c.key][valueKey(e)]
		if !ok || !v.ok(w) {
			continue
		}
		edits := map[int]history.Op{}
		kept, after, first := false, false, -1
		n := 0
		for _, j := range a.byKey[c.key] {
			r := a.reads[j]
			at := slices.IndexFunc(r.list, func(x any) bool { return history.Equal(x, e) })
			if at < 0 {
				continue
			}
			if r.inv < w.comp {
				kept = true
				continue
			}
			after = after || at < len(r.list)-1
			editRead(v, edits, r, slices.Delete(slices.Clone(r.list), at, at+1))
			if first < 0 || r.comp < first {
				first = r.comp
			}
			n++
		}
		if n == 0 {
			continue
		}
		sure := kept && after
		if !sure && len(realtime) == max {
			continue
		}
		m := v.mutant(LostWrite, !sure, edits,
			"%d reads of key %s that began after op %d acknowledged appending %s no longer hold it (first: op %d)",
			n, c.key, v.h[w.comp].Index, history.FormatEDN(e), v.h[first].Index)
		if sure {
			certain = append(certain, m)
		} else {
			realtime = append(realtime, m)
		}
	}
	return append(certain, realtime[:min(max-len(certain), len(realtime))]...)
}

// rwRegisterMutants makes one read inside an ok rw-register transaction
// ([:r k v] beside [:w k v] micro-ops) return a value no transaction wrote:
// a garbage read, which every consistency model forbids. Only reads of keys
// some transaction writes are used.
func rwRegisterMutants(v *view, rng *rand.Rand, limit int) ([]Mutant, string) {
	ph := newPhantoms()
	written := map[string]bool{}
	var reads []laRead
	eachMicroOp(v, func(c call, i int, f string, k, x any) {
		switch f {
		case "w", "write":
			ph.see(x)
			written[valueKey(k)] = true
		case "r", "read":
			ph.see(x)
			if _, list := x.([]any); v.ok(c) && !list {
				reads = append(reads, laRead{call: c, mop: i, key: valueKey(k)})
			}
		}
	})
	if len(written) == 0 {
		return nil, ""
	}
	reads = slices.DeleteFunc(reads, func(r laRead) bool { return !written[r.key] })
	if len(reads) == 0 {
		return nil, "no ok transaction reads a written key"
	}
	var ms []Mutant
	for _, r := range pick(rng, reads)[:min(limit, len(reads))] {
		x, ok := ph.next()
		if !ok {
			break
		}
		edits := map[int]history.Op{}
		editRead(v, edits, r, x)
		op := edits[r.comp]
		ms = append(ms, v.mutant(PhantomRead, false, edits,
			"op %d (process %d) reads key %s as %s, which no transaction wrote", op.Index, op.Process, r.key, history.FormatEDN(x)))
	}
	return byPos(ms), ""
}
