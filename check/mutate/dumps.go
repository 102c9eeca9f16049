package mutate

// The families in this file break claims about a final state: an
// acknowledged write or effect that must be in the final dump, replicas and
// replays that must agree with each other.

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"

	"github.com/faultline/faultline/check"
	"github.com/faultline/faultline/history"
)

// lostAckMutants removes an acknowledged write from the final dump, the last
// ok op of the declared final function: its key's entry, or the element from
// a collection entry or dump. The oracle promises every acknowledged write
// survives into that dump, so each mutant breaks it for certain. Only writes
// the dump holds as themselves are used: an entry another write overwrote
// says nothing about this one.
func lostAckMutants(v *view, opts any, rng *rand.Rand, limit int) ([]Mutant, string) {
	o, ok := opts.(check.NoLostAckOptions)
	if !ok {
		return nil, ""
	}
	dump := call{comp: -1}
	var acked []call
	for _, c := range v.calls {
		f := v.h[c.inv].F
		switch {
		case !v.ok(c):
		case f == o.Final:
			if dump.comp < 0 || c.comp > dump.comp {
				dump = c
			}
		case slices.Contains(o.Writes, f):
			acked = append(acked, c)
		}
	}
	if dump.comp < 0 || len(acked) == 0 {
		return nil, ""
	}
	final := v.h[dump.comp].Value
	type cand struct {
		w     call
		val   any
		value any // the dump without the write
	}
	var cands []cand
	seen := map[string]bool{}
	for _, w := range acked {
		x, ok := writtenValue(v, w)
		if !ok {
			continue
		}
		k := keyOfCall(v, w)
		id := valueKey(x)
		if k != nil {
			id = history.KeyText(k) + "=" + id
		}
		if seen[id] {
			continue // the same edit as an earlier write's
		}
		if without, ok := dropWrite(final, k, x); ok {
			seen[id] = true
			cands = append(cands, cand{w, x, without})
		}
	}
	if len(cands) == 0 {
		return nil, fmt.Sprintf("no acknowledged write is in the final %s as itself (every one was overwritten)", o.Final)
	}
	var ms []Mutant
	for _, c := range pick(rng, cands)[:min(limit, len(cands))] {
		fop := &v.h[dump.comp]
		ms = append(ms, v.mutant(LostAck, false, v.withValue(dump.comp, c.value),
			"op %d (the final %s, process %d) no longer holds %s%s, whose %s op %d acknowledged",
			fop.Index, o.Final, fop.Process, keyText(keyOfCall(v, c.w)), history.FormatEDN(c.val), v.h[c.w.inv].F, v.h[c.w.comp].Index))
	}
	return byPos(ms), ""
}

// keyText renders "key=" for a keyed write, "" for a keyless one.
func keyText(k any) string {
	if k == nil {
		return ""
	}
	return history.KeyText(k) + "="
}

// writtenValue is what a write stores: a cas's "to", any other's argument.
func writtenValue(v *view, w call) (any, bool) {
	inv := &v.h[w.inv]
	if inv.F != "cas" {
		return inv.Value, true
	}
	pair, ok := inv.Value.([]any)
	if !ok || len(pair) != 2 {
		return nil, false
	}
	return pair[1], true
}

// dropWrite returns a copy of the final state without write x (to key k, or
// keyless when k is nil), and false when the state does not hold x as
// no-lost-ack reads it: in dump[k] (an element of a collection entry, or
// equal to a scalar one), or for a keyless write among a collection dump's
// elements or a map dump's values.
func dropWrite(final, k, x any) (any, bool) {
	m, isMap := final.(map[string]any)
	if k == nil {
		if isCollection(final) {
			kept, ok := without(elems(final), x)
			return sameShape(final, kept), ok
		}
		if !isMap {
			return nil, false
		}
		out := maps.Clone(m)
		maps.DeleteFunc(out, func(_ string, e any) bool { return history.Equal(e, x) })
		return out, len(out) < len(m)
	}
	if !isMap {
		return nil, false
	}
	key := history.KeyText(k)
	entry, ok := m[key]
	if !ok {
		return nil, false
	}
	out := maps.Clone(m)
	if entry != nil && isCollection(entry) {
		kept, ok := without(elems(entry), x)
		out[key] = sameShape(entry, kept)
		return out, ok
	}
	if !history.Equal(entry, x) {
		return nil, false
	}
	// A scalar entry goes with its key: an absent key holds no write.
	delete(out, key)
	return out, true
}

// without returns a copy of es with every element equal to x removed, and
// whether there was one.
func without(es []any, x any) ([]any, bool) {
	kept := slices.DeleteFunc(slices.Clone(es), func(e any) bool { return history.Equal(e, x) })
	return kept, len(kept) < len(es)
}

// exactlyOnceMutants commits one business key twice (a copy of its record
// in the final dump) or loses an acknowledged one (its records removed).
// Only keys some effect op attempted are used: a record with no attempt is
// another finding.
func exactlyOnceMutants(v *view, opts any, rng *rand.Rand, limit int) ([]Mutant, string) {
	o, ok := opts.(check.ExactlyOnceOptions)
	if !ok {
		return nil, ""
	}
	effect := func(f string) bool {
		if len(o.Writes) > 0 {
			return slices.Contains(o.Writes, f)
		}
		return f != o.Final && !isSessionRead(f)
	}
	attempted, acked := map[string]bool{}, map[string]bool{}
	dump := call{comp: -1}
	for _, c := range v.calls {
		f := v.h[c.inv].F
		if f == o.Final && v.ok(c) && (dump.comp < 0 || c.comp > dump.comp) {
			dump = c
		}
		if !effect(f) || v.outcome(c) == history.Fail {
			continue
		}
		if bk, ok := businessKey(v, c, o.Key); ok {
			attempted[valueKey(bk)] = true
			acked[valueKey(bk)] = acked[valueKey(bk)] || v.ok(c)
		}
	}
	if dump.comp < 0 || len(attempted) == 0 {
		return nil, ""
	}
	final := v.h[dump.comp].Value
	m, isMap := final.(map[string]any)
	if !isMap && !isCollection(final) {
		return nil, ""
	}
	recordKey := func(e any) string {
		if r, ok := e.(map[string]any); ok {
			return valueKey(r[o.Key])
		}
		return valueKey(e)
	}
	// The dump's records by business key: map entries by their map key.
	byKey := map[string][]string{} // business key -> map keys (or "" per element of a collection)
	var order []string
	if isMap {
		for _, mk := range slices.Sorted(maps.Keys(m)) {
			k := recordKey(m[mk])
			if byKey[k] == nil {
				order = append(order, k)
			}
			byKey[k] = append(byKey[k], mk)
		}
	} else {
		for _, e := range elems(final) {
			k := recordKey(e)
			if byKey[k] == nil {
				order = append(order, k)
			}
			byKey[k] = append(byKey[k], "")
		}
	}
	fop := &v.h[dump.comp]
	var dup, lost []Mutant
	for _, k := range pick(rng, order) {
		if !attempted[k] {
			continue
		}
		if len(dup) < limit {
			var twice any
			if isMap {
				out := maps.Clone(m)
				mk := byKey[k][0]
				fresh := mk + phantomMarker
				for out[fresh] != nil {
					fresh += phantomMarker
				}
				out[fresh] = cloneRecord(m[mk])
				twice = out
			} else {
				es := elems(final)
				i := slices.IndexFunc(es, func(e any) bool { return recordKey(e) == k })
				twice = sameShape(final, slices.Insert(slices.Clone(es), i+1, cloneRecord(es[i])))
			}
			dup = append(dup, v.mutant(DuplicateEffect, false, v.withValue(dump.comp, twice),
				"op %d (the final %s, process %d) holds business key %s twice", fop.Index, o.Final, fop.Process, k))
		}
		if acked[k] && len(lost) < limit {
			var gone any
			if isMap {
				out := maps.Clone(m)
				for _, mk := range byKey[k] {
					delete(out, mk)
				}
				gone = out
			} else {
				gone = sameShape(final, slices.DeleteFunc(slices.Clone(elems(final)), func(e any) bool { return recordKey(e) == k }))
			}
			lost = append(lost, v.mutant(LostAck, false, v.withValue(dump.comp, gone),
				"op %d (the final %s, process %d) no longer holds business key %s, whose effect was acknowledged", fop.Index, o.Final, fop.Process, k))
		}
	}
	ms := append(byPos(dup), byPos(lost)...)
	if len(ms) == 0 {
		return nil, "no record in the final " + o.Final + " belongs to an attempted business key"
	}
	return ms, ""
}

// businessKey finds a call's business key as exactly-once does: the Extra
// field, or the field of a map value, of the invocation, else the completion.
func businessKey(v *view, c call, field string) (any, bool) {
	for _, pos := range []int{c.inv, c.comp} {
		if pos < 0 {
			continue
		}
		if x, ok := v.h[pos].Extra[field]; ok {
			return x, true
		}
		if m, ok := v.h[pos].Value.(map[string]any); ok {
			if x, ok := m[field]; ok {
				return x, true
			}
		}
	}
	return nil, false
}

// cloneRecord copies a dump record so the mutant shares no map with the
// original.
func cloneRecord(e any) any {
	if r, ok := e.(map[string]any); ok {
		return maps.Clone(r)
	}
	return e
}

// replicaMutants makes one replica's final dump diverge: it also holds a
// value no op wrote (a fresh entry in a map, an element in a collection),
// so it no longer equals the others'.
func replicaMutants(v *view, opts any, rng *rand.Rand, limit int) ([]Mutant, string) {
	o, ok := opts.(check.ReplicasOptions)
	if !ok {
		return nil, ""
	}
	ph := newPhantoms()
	dumps := map[string]call{}
	for _, c := range v.calls {
		ph.see(v.h[c.inv].Value)
		if c.comp >= 0 {
			ph.see(v.h[c.comp].Value)
		}
		if v.h[c.inv].F != o.Final || !v.ok(c) {
			continue
		}
		n, ok := nodeOf(v, c)
		if !ok {
			continue
		}
		if d, seen := dumps[n]; !seen || c.comp > d.comp {
			dumps[n] = c
		}
	}
	if len(dumps) < 2 {
		return nil, ""
	}
	var ms []Mutant
	for _, n := range pick(rng, slices.Sorted(maps.Keys(dumps)))[:min(limit, len(dumps))] {
		x, ok := ph.next()
		if !ok {
			break
		}
		d := dumps[n]
		val := v.h[d.comp].Value
		var diverged any
		switch {
		case isCollection(val):
			diverged = sameShape(val, append(slices.Clone(elems(val)), x))
		default:
			m, isMap := val.(map[string]any)
			if !isMap {
				diverged = x
				break
			}
			out := maps.Clone(m)
			k := "phantom" + phantomMarker
			for _, taken := out[k]; taken; _, taken = out[k] {
				k += phantomMarker
			}
			out[k] = x
			diverged = out
		}
		ms = append(ms, v.mutant(PhantomRead, false, v.withValue(d.comp, diverged),
			"op %d (the final %s of replica %s) also holds %s, which no op wrote, so it differs from the other replicas",
			v.h[d.comp].Index, o.Final, n, history.FormatEDN(x)))
	}
	return byPos(ms), ""
}

// nodeOf names the replica a dump came from as the replicas oracle does:
// the op's node, else its "node" Extra field.
func nodeOf(v *view, c call) (string, bool) {
	if c.comp >= 0 && v.h[c.comp].Node != "" {
		return v.h[c.comp].Node, true
	}
	if n := v.h[c.inv].Node; n != "" {
		return n, true
	}
	if x, ok := extra(v, c, "node"); ok {
		return history.KeyText(x), true
	}
	return "", false
}

// withPhantom returns x (a map, a collection or a scalar) changed to also
// hold phantom value p: a fresh map entry, an extra element, or p itself.
func withPhantom(x, p any) any {
	if isCollection(x) {
		return sameShape(x, append(slices.Clone(elems(x)), p))
	}
	m, isMap := x.(map[string]any)
	if !isMap {
		return p
	}
	out := maps.Clone(m)
	k := "phantom" + phantomMarker
	for _, taken := out[k]; taken; _, taken = out[k] {
		k += phantomMarker
	}
	out[k] = p
	return out
}

// replayMutants makes the rebuilt state of one key differ from the live
// one: the last ok replay of the key also holds a value no op wrote.
func replayMutants(v *view, opts any, rng *rand.Rand, limit int) ([]Mutant, string) {
	o, ok := opts.(check.ReplayOptions)
	if !ok {
		return nil, ""
	}
	ph := newPhantoms()
	last := map[string]call{}
	for _, c := range v.calls {
		ph.see(v.h[c.inv].Value)
		if c.comp >= 0 {
			ph.see(v.h[c.comp].Value)
		}
		if v.h[c.inv].F != o.Replay || !v.ok(c) {
			continue
		}
		k := keyText(keyOfCall(v, c))
		if d, seen := last[k]; !seen || c.comp > d.comp {
			last[k] = c
		}
	}
	var ms []Mutant
	for _, k := range pick(rng, slices.Sorted(maps.Keys(last)))[:min(limit, len(last))] {
		x, ok := ph.next()
		if !ok {
			break
		}
		c := last[k]
		op := &v.h[c.comp]
		ms = append(ms, v.mutant(PhantomRead, false, v.withValue(c.comp, withPhantom(op.Value, x)),
			"op %d (the last ok %s, process %d) also holds %s, which no op wrote, so it differs from the live state",
			op.Index, o.Replay, op.Process, history.FormatEDN(x)))
	}
	return byPos(ms), ""
}
