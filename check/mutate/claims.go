package mutate

import (
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/faultline/faultline/check"
	"github.com/faultline/faultline/history"
)

// The families in this file and in dumps.go, perf.go and sessions.go break
// the claims of oracles beyond registers, sets, counters and list-append:
// most need the oracle's declared options (its bounds, its final dump
// function) to be wrong for certain. Here: bank, unique ids, queues, mutual
// exclusion, prefix order and tenant boundaries, and the helpers they share.

// keyOfCall is a client call's key the way the oracles read it: the
// invocation's, else the completion's.
func keyOfCall(v *view, c call) any {
	if k := v.h[c.inv].Key; k != nil || c.comp < 0 {
		return k
	}
	return v.h[c.comp].Key
}

// failed returns the completion at pos turned to fail: the op did not happen.
func failed(v *view, pos int) history.Op {
	op := v.h[pos]
	op.Type = history.Fail
	return op
}

// extra reads an op's Extra field from its invocation, else its completion.
func extra(v *view, c call, name string) (any, bool) {
	if x, ok := v.h[c.inv].Extra[name]; ok {
		return x, true
	}
	if c.comp >= 0 {
		x, ok := v.h[c.comp].Extra[name]
		return x, ok
	}
	return nil, false
}

// bankMutants adds one to one integer balance of one ok read: the balances
// no longer sum to the total. Without a declared total the oracle takes the
// first read's sum as the truth, so that read is then left alone.
func bankMutants(v *view, opts any, rng *rand.Rand, limit int) ([]Mutant, string) {
	o, ok := opts.(check.BankOptions)
	if !ok {
		return nil, ""
	}
	var reads []call
	firstSeen := false
	for _, c := range v.calls {
		if v.h[c.inv].F != "read" || !v.ok(c) {
			continue
		}
		if !firstSeen && o.Total == 0 {
			firstSeen = true
			continue
		}
		if _, ok := v.h[c.comp].Value.(map[string]any); ok {
			reads = append(reads, c)
		}
	}
	var ms []Mutant
	for _, r := range pick(rng, reads) {
		if len(ms) == limit {
			break
		}
		m := v.h[r.comp].Value.(map[string]any)
		var accts []string
		var sum float64
		for k, b := range m {
			if n, ok := asInt(b); ok && n < math.MaxInt64 {
				accts = append(accts, k)
				sum += float64(n)
			}
		}
		// The oracle sums in float64: past 2^52 one unit may not show.
		if len(accts) == 0 || math.Abs(sum) >= 1<<52 {
			continue
		}
		slices.Sort(accts)
		a := accts[rng.IntN(len(accts))]
		n, _ := asInt(m[a])
		out := maps.Clone(m)
		out[a] = n + 1
		rop := &v.h[r.comp]
		ms = append(ms, v.mutant(BrokenConservation, false, v.withValue(r.comp, out),
			"op %d (ok read, process %d) shows account %s with %d instead of %d, so the balances no longer sum to the total",
			rop.Index, rop.Process, a, n+1, n))
	}
	switch {
	case len(ms) > 0:
		return byPos(ms), ""
	case len(reads) == 0 && firstSeen:
		return nil, "only one ok read, whose sum is the total when none is declared"
	case len(reads) > 0:
		return nil, "no ok read shows an integer balance"
	}
	return nil, ""
}

// uniqueIDMutants makes one ok generate return an id another ok generate
// already returned.
func uniqueIDMutants(v *view, rng *rand.Rand, limit int) ([]Mutant, string) {
	var gens []call
	for _, c := range v.calls {
		if v.h[c.inv].F == "generate" && v.ok(c) {
			gens = append(gens, c)
		}
	}
	if len(gens) < 2 {
		return nil, ""
	}
	var ms []Mutant
	for _, g := range pick(rng, gens) {
		if len(ms) == limit {
			break
		}
		id := v.h[g.comp].Value
		// Another generate's id, different from this one's.
		for _, o := range pick(rng, gens) {
			x := v.h[o.comp].Value
			if o == g || history.Equal(x, id) {
				continue
			}
			ms = append(ms, v.mutant(DuplicateEffect, false, v.withValue(g.comp, x),
				"op %d (ok generate, process %d) returns %s, the id op %d already handed out, instead of %s",
				v.h[g.comp].Index, v.h[g.comp].Process, history.FormatEDN(x), v.h[o.comp].Index, history.FormatEDN(id)))
			break
		}
	}
	if len(ms) == 0 {
		return nil, "every ok generate returned the same id"
	}
	return byPos(ms), ""
}

// queueTaken is one element an ok dequeue or drain took: the call, and the
// element's position in a drain's list (-1 for a dequeue).
type queueTaken struct {
	c   call
	pos int
}

// queueOps reads a queue history: every value any enqueue carried, and the
// elements ok dequeues and drains took.
func queueOps(v *view) (ph *phantoms, enqueued []call, taken []queueTaken) {
	ph = newPhantoms()
	for _, c := range v.calls {
		inv := &v.h[c.inv]
		switch inv.F {
		case "enqueue":
			ph.see(inv.Value)
			enqueued = append(enqueued, c)
		case "dequeue":
			if v.ok(c) && v.h[c.comp].Value != nil {
				ph.see(v.h[c.comp].Value)
				taken = append(taken, queueTaken{c, -1})
			}
		case "drain":
			if v.ok(c) && isCollection(v.h[c.comp].Value) {
				for i, e := range elems(v.h[c.comp].Value) {
					ph.see(e)
					taken = append(taken, queueTaken{c, i})
				}
			}
		}
	}
	return ph, enqueued, taken
}

// takes returns a copy of the completion of t's call taking x in t's place.
func (t queueTaken) takes(v *view, x any) map[int]history.Op {
	if t.pos < 0 {
		return v.withValue(t.c.comp, x)
	}
	list := slices.Clone(elems(v.h[t.c.comp].Value))
	list[t.pos] = x
	return v.withValue(t.c.comp, sameShape(v.h[t.c.comp].Value, list))
}

// queueMutants makes an ok dequeue (or one element of a drain) take a value
// no enqueue carried: every queue oracle rejects an element from nowhere.
func queueMutants(v *view, rng *rand.Rand, limit int) ([]Mutant, string) {
	ph, enqueued, taken := queueOps(v)
	if len(enqueued) == 0 || len(taken) == 0 {
		return nil, ""
	}
	var ms []Mutant
	for _, t := range pick(rng, taken)[:min(limit, len(taken))] {
		x, ok := ph.next()
		if !ok {
			break
		}
		op := &v.h[t.c.comp]
		ms = append(ms, v.mutant(PhantomRead, false, t.takes(v, x),
			"op %d (ok %s, process %d) takes %s, which no op enqueued", op.Index, op.F, op.Process, history.FormatEDN(x)))
	}
	return byPos(ms), ""
}

// totalQueueMutants loses an acknowledged element: every take of it becomes
// an empty dequeue, or leaves its drain. The total-queue oracle demands
// every acknowledged enqueue be taken at least once.
func totalQueueMutants(v *view, rng *rand.Rand, limit int) ([]Mutant, string) {
	_, enqueued, taken := queueOps(v)
	if len(enqueued) == 0 || len(taken) == 0 {
		return nil, ""
	}
	var ms []Mutant
	done := map[string]bool{}
	for _, e := range pick(rng, enqueued) {
		if len(ms) == limit {
			break
		}
		x := v.h[e.inv].Value
		if !v.ok(e) || done[valueKey(x)] {
			continue
		}
		done[valueKey(x)] = true
		edits := map[int]history.Op{}
		n := 0
		for _, t := range taken {
			op, seen := edits[t.c.comp]
			if !seen {
				op = v.h[t.c.comp]
			}
			if t.pos < 0 {
				if history.Equal(op.Value, x) {
					op.Value = nil
					edits[t.c.comp] = op
					n++
				}
				continue
			}
			kept, ok := without(elems(op.Value), x)
			if ok {
				op.Value = sameShape(op.Value, kept)
				edits[t.c.comp] = op
				n++
			}
		}
		if n == 0 {
			continue
		}
		ms = append(ms, v.mutant(LostWrite, false, edits,
			"no op takes %s any more (%d takes removed), though op %d acknowledged enqueueing it", history.FormatEDN(x), n, v.h[e.comp].Index))
	}
	if len(ms) == 0 {
		return nil, "no acknowledged enqueue's element was taken"
	}
	return byPos(ms), ""
}

// lockHold is a certain hold of a lock as mutual-exclusion measures it:
// from the acquire's completion to the holder's next release invocation
// (record positions), or with a lease on op times, at most the lease after
// the acquire's invocation.
type lockHold struct {
	process    int
	start, end int64
}

// overlaps reports whether two non-empty holds share a moment.
func (a lockHold) overlaps(b lockHold) bool {
	return a.start < a.end && b.start < b.end && a.start < b.end && b.start < a.end
}

// mutexMutants grants a lock twice: an acquire that failed or timed out
// while another process certainly held the lock completes ok instead, so
// two certain holds overlap.
func mutexMutants(v *view, opts any, rng *rand.Rand, limit int) ([]Mutant, string) {
	o, ok := opts.(check.MutexOptions)
	if !ok {
		return nil, ""
	}
	lockOf := func(c call) string { return valueKey(keyOfCall(v, c)) }
	releases := map[string][]call{} // lock and process -> releases in invocation order
	var acquires []call
	for _, c := range v.calls {
		f := v.h[c.inv].F
		switch {
		case slices.Contains(o.Release, f):
			k := lockOf(c) + "/" + fmt.Sprint(v.h[c.inv].Process)
			releases[k] = append(releases[k], c)
		case slices.Contains(o.Acquire, f) && c.comp >= 0:
			acquires = append(acquires, c)
		}
	}
	holdOf := func(c call) lockHold {
		p := v.h[c.inv].Process
		hd := lockHold{process: p, start: int64(c.comp), end: math.MaxInt64}
		var rel *call
		for i, r := range releases[lockOf(c)+"/"+fmt.Sprint(p)] {
			if r.inv > c.comp {
				rel = &releases[lockOf(c)+"/"+fmt.Sprint(p)][i]
				break
			}
		}
		if rel != nil {
			hd.end = int64(rel.inv)
		}
		if o.Lease > 0 {
			hd.start, hd.end = v.h[c.comp].Time, v.h[c.inv].Time+int64(o.Lease)
			if rel != nil {
				hd.end = min(hd.end, v.h[rel.inv].Time)
			}
		}
		return hd
	}
	var ms []Mutant
	for _, q := range pick(rng, acquires) {
		if len(ms) == limit {
			break
		}
		if v.ok(q) {
			continue
		}
		hq := holdOf(q)
		for _, p := range acquires {
			if !v.ok(p) || lockOf(p) != lockOf(q) || v.h[p.inv].Process == v.h[q.inv].Process || !holdOf(p).overlaps(hq) {
				continue
			}
			op := v.h[q.comp]
			op.Type = history.OK
			ms = append(ms, v.mutant(DuplicateEffect, false, map[int]history.Op{q.comp: op},
				"op %d (%s by process %d) completes ok instead of %s while process %d holds the lock since op %d",
				op.Index, op.F, op.Process, v.h[q.comp].Type, v.h[p.inv].Process, v.h[p.comp].Index))
			break
		}
	}
	if len(ms) == 0 && len(acquires) > 0 {
		return nil, "no acquire failed while another process held the lock"
	}
	return byPos(ms), ""
}

// prefixMutants edits one consumer view: it also holds a value nobody
// produced (phantom-read), or one of its values twice (duplicate-effect).
// Prefix-order rejects both whatever the producer order.
func prefixMutants(v *view, opts any, rng *rand.Rand, limit int) ([]Mutant, string) {
	o, ok := opts.(check.PrefixOrderOptions)
	if !ok {
		return nil, ""
	}
	ph := newPhantoms()
	var views []call
	produced := false
	for _, c := range v.calls {
		f := v.h[c.inv].F
		switch {
		case slices.Contains(o.Produce, f):
			ph.see(v.h[c.inv].Value)
			produced = true
		case slices.Contains(o.Views, f) && v.ok(c):
			if list, isList := v.h[c.comp].Value.([]any); isList || v.h[c.comp].Value == nil {
				ph.see(list)
				views = append(views, c)
			}
		}
	}
	if !produced || len(views) == 0 {
		return nil, ""
	}
	var phantom, dup []Mutant
	for _, c := range pick(rng, views)[:min(limit, len(views))] {
		op := &v.h[c.comp]
		list, _ := op.Value.([]any)
		if x, ok := ph.next(); ok {
			phantom = append(phantom, v.mutant(PhantomRead, false, v.withValue(c.comp, append(slices.Clone(list), x)),
				"op %d (ok %s, process %d) also shows %s, which nobody produced", op.Index, op.F, op.Process, history.FormatEDN(x)))
		}
		if len(list) > 0 {
			i := rng.IntN(len(list))
			dup = append(dup, v.mutant(DuplicateEffect, false, v.withValue(c.comp, slices.Insert(slices.Clone(list), i+1, list[i])),
				"op %d (ok %s, process %d) shows %s twice", op.Index, op.F, op.Process, history.FormatEDN(list[i])))
		}
	}
	return append(byPos(phantom), byPos(dup)...), ""
}

// boundaryMutants leaks one tenant's data into another's response: an ok
// read-like response of a tenant's own key also holds a key of another
// tenant the history knows ("<other><sep>...").
func boundaryMutants(v *view, opts any, rng *rand.Rand, limit int) ([]Mutant, string) {
	o, ok := opts.(check.BoundaryOptions)
	if !ok {
		return nil, ""
	}
	owner := func(k any) string {
		s, ok := k.(string)
		if !ok {
			return ""
		}
		t, _, found := strings.Cut(s, o.Sep)
		if !found {
			return ""
		}
		return t
	}
	issuer := func(c call) string {
		for _, pos := range []int{c.inv, c.comp} {
			if pos < 0 {
				continue
			}
			if x, ok := v.h[pos].Extra[o.Tenant]; ok && x != nil {
				return fmt.Sprint(x)
			}
		}
		return owner(keyOfCall(v, c))
	}
	tenants := map[string]bool{}
	var own []call
	for _, c := range v.calls {
		who := issuer(c)
		if who == "" {
			continue
		}
		tenants[who] = true
		if t := owner(keyOfCall(v, c)); t != "" {
			tenants[t] = true
		}
		if v.ok(c) && slices.Contains(o.Reads, v.h[c.inv].F) && owner(keyOfCall(v, c)) == who {
			own = append(own, c)
		}
	}
	if len(tenants) < 2 || len(own) == 0 {
		return nil, ""
	}
	names := slices.Sorted(maps.Keys(tenants))
	var ms []Mutant
	for _, c := range pick(rng, own)[:min(limit, len(own))] {
		who := issuer(c)
		others := slices.DeleteFunc(slices.Clone(names), func(n string) bool { return n == who })
		other := others[rng.IntN(len(others))]
		leaked := other + o.Sep + "leaked" + phantomMarker
		op := &v.h[c.comp]
		ms = append(ms, v.mutant(CrossTenantLeak, false, v.withValue(c.comp, withPhantom(op.Value, leaked)),
			"op %d (tenant %s's ok %s of its own key) also holds %q, tenant %s's data", op.Index, who, op.F, leaked, other))
	}
	return byPos(ms), ""
}
