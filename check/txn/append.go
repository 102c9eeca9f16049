package txn

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// appendIndex is what list-append reads reveal about each key's version order.
// Every read of a list is a prefix of the order of appends to it, so the
// longest read gives the order of every element ever read; appends never read
// came after all of them, in an order nobody saw.
type appendIndex struct {
	longest  []int32 // key -> the longest read (index into hist.reads), -1 if none
	dupAt    []int32 // key -> index in the longest read of its first repeated element, -1 if none
	orderOff []int32 // key k's order is order[orderOff[k]:orderOff[k+1]]
	order    []int32 // versions in order, grouped by key
	unobsOff []int32 // key k's never-read appends are unobs[unobsOff[k]:unobsOff[k+1]]
	unobs    []int32
	// unappended holds, per key, the first read found holding an element
	// nobody appended, when the initial state is unknown (else that read is
	// a garbage-read).
	unappended []unappended
}

// unappended is a read holding val, an element no transaction appended.
type unappended struct {
	read int32 // index into hist.reads
	val  any
}

func (a *appendIndex) keyOrder(k int32) []int32 { return a.order[a.orderOff[k]:a.orderOff[k+1]] }
func (a *appendIndex) unread(k int32) []int32   { return a.unobs[a.unobsOff[k]:a.unobsOff[k+1]] }

// analyzeAppend infers list-append version orders, reports the anomalies that
// need no cycle, and adds ww, wr and rw edges. knownEmpty says every key
// started empty (Options.HasInit), so that an element nobody appended is a
// garbage read.
func (h *hist) analyzeAppend(f *found, e *edges, knownEmpty bool) *appendIndex {
	a := h.appendOrders()
	h.appendReads(a, f, knownEmpty)
	h.dirtyUpdates(a, f)
	h.appendInternal(f)
	h.lostUpdates(f, h.appendExtReads(a))
	h.appendEdges(a, e)
	return a
}

// appendOrders builds each key's version order from its longest read.
func (h *hist) appendOrders() *appendIndex {
	nk := len(h.in.keys)
	a := &appendIndex{longest: make([]int32, nk), dupAt: make([]int32, nk), orderOff: make([]int32, nk+1)}
	n := 0
	for k := range a.longest {
		a.longest[k], a.dupAt[k] = -1, -1
		if k < len(h.longest) {
			a.longest[k] = h.longest[k] // found by parse
			n += int(h.longestLen[k])
		}
	}
	a.order = make([]int32, 0, n) // grown by append it allocated five times its size
	for k := int32(0); k < int32(nk); k++ {
		start := int32(len(a.order))
		if l := a.longest[k]; l >= 0 {
			for i, v := range h.reads[l].list() {
				id := h.lookupOrAdd(k, v) // unwritten: no writer (see unappendedRead)
				if h.vers[id].pos >= 0 {
					if a.dupAt[k] < 0 {
						a.dupAt[k] = int32(i)
					}
					continue
				}
				h.vers[id].pos = int32(len(a.order)) - start
				a.order = append(a.order, id)
			}
		}
		a.orderOff[k+1] = int32(len(a.order))
	}
	// Appends that may have happened but were never read, grouped by key.
	a.unobsOff = make([]int32, nk+1)
	for i := range h.vers {
		if v := &h.vers[i]; v.pos < 0 && h.inGraph(v.writer) {
			a.unobsOff[v.key+1]++
		}
	}
	for k := 0; k < nk; k++ {
		a.unobsOff[k+1] += a.unobsOff[k]
	}
	a.unobs = make([]int32, a.unobsOff[nk])
	fill := slices.Clone(a.unobsOff[:nk])
	for i := range h.vers {
		if v := &h.vers[i]; v.pos < 0 && h.inGraph(v.writer) {
			a.unobs[fill[v.key]] = int32(i)
			fill[v.key]++
		}
	}
	return a
}

// appendReads checks every read against its key's order: prefix
// compatibility, duplicates, and elements that were aborted, intermediate or
// never appended.
func (h *hist) appendReads(a *appendIndex, f *found, knownEmpty bool) {
	nk := len(h.in.keys)
	firstFail, firstGarbage := make([]int32, nk), make([]int32, nk)
	for k := int32(0); k < int32(nk); k++ {
		firstFail[k], firstGarbage[k] = -1, -1
		for i, id := range a.keyOrder(k) {
			w := h.vers[id].writer
			if w < 0 && firstGarbage[k] < 0 {
				firstGarbage[k] = int32(i)
			}
			if w >= 0 && h.txns[w].st == aborted && firstFail[k] < 0 {
				firstFail[k] = int32(i)
			}
		}
	}
	incompatible := make(map[int32][]int32) // key -> reads that are not prefixes
	for ri := range h.reads {
		r := &h.reads[ri]
		k := r.key
		if h.compatible(a, int32(ri)) {
			r.prefix = h.distinctPrefix(a, r)
			if d := a.dupAt[k]; d >= 0 && int32(len(r.list())) > d {
				h.duplicates(f, r)
			}
			if x := firstFail[k]; x >= 0 && x < r.prefix {
				h.abortedRead(f, r, a.keyOrder(k)[x])
			}
			if x := firstGarbage[k]; x >= 0 && x < r.prefix {
				h.unappendedRead(a, f, int32(ri), h.vers[a.keyOrder(k)[x]].val, knownEmpty)
			}
			if r.prefix > 0 {
				h.intermediateRead(f, r, a.keyOrder(k)[r.prefix-1])
			}
			continue
		}
		incompatible[k] = append(incompatible[k], int32(ri))
		h.duplicates(f, r)
		h.badElements(a, f, int32(ri), knownEmpty)
		if n := len(r.list()); n > 0 {
			if id := h.lookup(k, r.list()[n-1]); id >= 0 {
				h.intermediateRead(f, r, id)
			}
		}
	}
	keys := make([]int32, 0, len(incompatible))
	for k := range incompatible {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		rs := incompatible[k]
		long := &h.reads[a.longest[k]]
		bad := &h.reads[rs[0]]
		f.add("incompatible-order", func() Anomaly {
			more := ""
			if len(rs) > 1 {
				more = fmt.Sprintf(" %d reads of %s disagree with the longest one in all.", len(rs), h.keyName(k))
			}
			return Anomaly{
				Ops: h.opIndexes(bad.txn, long.txn),
				Explanation: fmt.Sprintf("Incompatible orders of key %s: %s read %s and %s read %s. Neither is a prefix of the other, so no single order of appends explains both.%s",
					h.keyName(k), h.name(bad.txn), fmtv(bad.list()), h.name(long.txn), fmtv(long.list()), more),
			}
		})
	}
}

// badElements reports the first unappended and the first aborted element of
// read ri, which is not a prefix of its key's order.
func (h *hist) badElements(a *appendIndex, f *found, ri int32, knownEmpty bool) {
	r := &h.reads[ri]
	garbage, aborts := false, false
	for _, v := range r.list() {
		id := h.lookup(r.key, v)
		switch {
		case (id < 0 || h.vers[id].writer < 0) && !garbage:
			h.unappendedRead(a, f, ri, v, knownEmpty)
			garbage = true
		case id >= 0 && h.vers[id].writer >= 0 && h.txns[h.vers[id].writer].st == aborted && !aborts:
			h.abortedRead(f, r, id)
			aborts = true
		}
	}
}

// compatible reports whether read ri is a prefix of its key's longest read.
func (h *hist) compatible(a *appendIndex, ri int32) bool {
	r := &h.reads[ri]
	l := a.longest[r.key]
	if l == ri {
		return true
	}
	long := h.reads[l].list()
	for i, v := range r.list() {
		if !same(v, long[i]) {
			return false
		}
	}
	return true
}

// distinctPrefix is the number of distinct elements in r, a compatible read.
func (h *hist) distinctPrefix(a *appendIndex, r *readRec) int32 {
	if d := a.dupAt[r.key]; d < 0 || int32(len(r.list())) <= d {
		return int32(len(r.list()))
	}
	n := int32(0)
	for _, v := range r.list() {
		if h.vers[h.lookup(r.key, v)].pos == n {
			n++
		}
	}
	return n
}

func (h *hist) duplicates(f *found, r *readRec) {
	seen := make(map[any]bool, len(r.list()))
	var dups []any
	for _, v := range r.list() {
		c := canon(v)
		if seen[c] {
			dups = append(dups, v)
		}
		seen[c] = true
	}
	if len(dups) == 0 {
		return
	}
	f.add("duplicate-elements", func() Anomaly {
		return Anomaly{
			Ops: h.opIndexes(r.txn),
			Explanation: fmt.Sprintf("%s read key %s = %s, which holds %s more than once, though every element is appended once.",
				h.name(r.txn), h.keyName(r.key), fmtv(r.list()), fmtList(dups)),
		}
	})
}

func (h *hist) abortedRead(f *found, r *readRec, id int32) {
	v := &h.vers[id]
	f.add("G1a", func() Anomaly {
		return Anomaly{
			Ops: h.opIndexes(r.txn, v.writer),
			Explanation: fmt.Sprintf("Aborted read: %s read key %s = %s, which contains %s, appended by %s, which failed: its writes must never be seen.",
				h.name(r.txn), h.keyName(r.key), fmtv(r.list()), fmtv(v.val), h.name(v.writer)),
		}
	})
}

// unappendedRead handles read ri holding val, which nobody appended: a
// garbage read when every key is known to have started empty; else, as in
// Elle, an element that may predate the history, noted (first per key) for
// the verdict (see checker.noteUnappended).
func (h *hist) unappendedRead(a *appendIndex, f *found, ri int32, val any, knownEmpty bool) {
	if knownEmpty {
		h.garbageRead(f, &h.reads[ri], val)
		return
	}
	if a.unappended == nil {
		a.unappended = make([]unappended, len(h.in.keys))
		for k := range a.unappended {
			a.unappended[k].read = -1
		}
	}
	if u := &a.unappended[h.reads[ri].key]; u.read < 0 {
		u.read, u.val = ri, val
	}
}

func (h *hist) garbageRead(f *found, r *readRec, val any) {
	f.add("garbage-read", func() Anomaly {
		return Anomaly{
			Ops: h.opIndexes(r.txn),
			Explanation: fmt.Sprintf("Garbage read: %s read key %s = %s, but no transaction appended %s to %s.",
				h.name(r.txn), h.keyName(r.key), fmtv(r.list()), fmtv(val), h.keyName(r.key)),
		}
	})
}

// intermediateRead reports r if the version it ends with, id, is one its
// writer later overwrote in the same transaction.
func (h *hist) intermediateRead(f *found, r *readRec, id int32) {
	v := &h.vers[id]
	if !v.inter || v.writer == r.txn || v.writer < 0 {
		return
	}
	f.add("G1b", func() Anomaly {
		return Anomaly{
			Ops: h.opIndexes(r.txn, v.writer),
			Explanation: fmt.Sprintf("Intermediate read: %s read key %s = %s, ending with %s, but %s appended more to %s after %s in the same transaction, so that state was never committed.",
				h.name(r.txn), h.keyName(r.key), fmtv(r.list()), fmtv(v.val), h.name(v.writer), h.keyName(r.key), fmtv(v.val)),
		}
	})
}

// dirtyUpdates finds committed appends built on state an aborted transaction
// wrote: walking each key's order, an aborted element followed (past any
// indeterminate ones) by a committed one.
func (h *hist) dirtyUpdates(a *appendIndex, f *found) {
	for k := int32(0); k < int32(len(h.in.keys)); k++ {
		var abortedBy int32 = -1 // the aborted version the state rests on
		for _, id := range a.keyOrder(k) {
			w := h.vers[id].writer
			if w < 0 {
				continue
			}
			switch h.txns[w].st {
			case aborted:
				if abortedBy < 0 {
					abortedBy = id
				}
			case committed:
				if abortedBy >= 0 {
					bad, good := &h.vers[abortedBy], &h.vers[id]
					f.add("dirty-update", func() Anomaly {
						return Anomaly{
							Ops: h.opIndexes(bad.writer, good.writer),
							Explanation: fmt.Sprintf("Dirty update of key %s: %s failed, yet in the order of appends its element %s is followed by %s, appended by %s, which committed on top of the aborted state (elements %s).",
								h.keyName(k), h.name(bad.writer), fmtv(bad.val), fmtv(good.val), h.name(good.writer), fmtList(h.versionVals(a.keyOrder(k)[bad.pos:good.pos+1]))),
						}
					})
				}
				abortedBy = -1
			}
		}
	}
}

// versionVals returns the values of versions.
func (h *hist) versionVals(ids []int32) []any {
	out := make([]any, len(ids))
	for i, id := range ids {
		out[i] = h.vers[id].val
	}
	return out
}

// appendInternal checks every committed transaction against itself: a read
// must show the transaction's own earlier reads and appends of the key, and
// must not show an element the transaction only appends later.
func (h *hist) appendInternal(f *found) {
	for t := int32(0); t < int32(len(h.txns)); t++ {
		if h.txns[t].st != committed {
			continue
		}
		ms := h.txnMops(t)
		for i, m := range ms {
			if m.kind != mRead {
				continue
			}
			got := h.reads[m.val].list()
			if want, exact, ok := h.expectedList(ms[:i], m.key); ok && !matches(got, want, exact) {
				shown := fmtv(want)
				if !exact {
					shown = "[... " + strings.TrimPrefix(shown, "[")
				}
				f.add("internal", func() Anomaly {
					return Anomaly{
						Ops: h.opIndexes(t),
						Explanation: fmt.Sprintf("Internal inconsistency: %s read key %s = %s in micro-op %d, but its own earlier micro-ops say the list should be %s.",
							h.name(t), h.keyName(m.key), fmtv(got), i, shown),
					}
				})
			}
			for _, later := range ms[i+1:] {
				if later.kind == mAppend && later.key == m.key && containsVal(got, h.vers[later.val].val) {
					val := h.vers[later.val].val
					f.add("future-read", func() Anomaly {
						return Anomaly{
							Ops: h.opIndexes(t),
							Explanation: fmt.Sprintf("Future read: %s read key %s = %s, which contains %s, an element the same transaction only appends later.",
								h.name(t), h.keyName(m.key), fmtv(got), fmtv(val)),
						}
					})
					break
				}
			}
		}
	}
}

// expectedList is what a read of key k after the micro-ops before should
// return: the last earlier read plus the appends since (exact), or, with no
// earlier read, a list ending with the appends (not exact). ok is false when
// the transaction touched k no earlier.
func (h *hist) expectedList(before []mop, k int32) (want []any, exact, ok bool) {
	j := len(before) - 1
	for ; j >= 0; j-- {
		if before[j].key == k && before[j].kind == mRead {
			break
		}
	}
	if j >= 0 {
		want = slices.Clone(h.reads[before[j].val].list())
		exact, ok = true, true
	}
	for _, m := range before[j+1:] {
		if m.key == k && m.kind == mAppend {
			want = append(want, h.vers[m.val].val)
			ok = true
		}
	}
	return want, exact, ok
}

// matches reports whether got equals want (exact) or ends with it.
func matches(got, want []any, exact bool) bool {
	if len(got) < len(want) || (exact && len(got) != len(want)) {
		return false
	}
	tail := got[len(got)-len(want):]
	for i := range want {
		if !same(tail[i], want[i]) {
			return false
		}
	}
	return true
}

func containsVal(list []any, v any) bool {
	return slices.ContainsFunc(list, func(x any) bool { return same(x, v) })
}

// extRead is a committed transaction that read a key before writing it: the
// version it read (a list prefix length, or a register version id).
type extRead struct {
	key, ver, txn int32
}

// appendExtReads lists, as Elle's lost-update-cases, committed transactions
// that read a key and then appended to it: the first read of the key in the
// transaction, if the key's order holds it, and an append after it. A read of
// nil is its own version, apart from a read of [], as Elle tells them apart.
func (h *hist) appendExtReads(a *appendIndex) []extRead {
	var out []extRead
	for t := int32(0); t < int32(len(h.txns)); t++ {
		if h.txns[t].st != committed {
			continue
		}
		ms := h.txnMops(t)
		for i, m := range ms {
			if m.kind != mRead || readBefore(ms[:i], m.key) {
				continue
			}
			r := &h.reads[m.val]
			if r.prefix < 0 || !slices.ContainsFunc(ms[i+1:], func(x mop) bool { return x.kind == mAppend && x.key == m.key }) {
				continue
			}
			ver := r.prefix
			if r.val == nil {
				ver = -1
			}
			out = append(out, extRead{m.key, ver, t})
		}
	}
	return out
}

// readBefore reports whether ms read key k.
func readBefore(ms []mop, k int32) bool {
	return slices.ContainsFunc(ms, func(m mop) bool { return m.kind == mRead && m.key == k })
}

func touchedBefore(ms []mop, k int32) bool {
	return slices.ContainsFunc(ms, func(m mop) bool { return m.key == k })
}

// lostUpdates reports committed transactions that read the same version of a
// key and then both wrote it: whichever wrote second overwrote an update it
// never saw.
func (h *hist) lostUpdates(f *found, ext []extRead) {
	slices.SortFunc(ext, func(x, y extRead) int {
		return cmp.Or(cmp.Compare(x.key, y.key), cmp.Compare(x.ver, y.ver), cmp.Compare(x.txn, y.txn))
	})
	for i := 0; i < len(ext); {
		j := i + 1
		for ; j < len(ext) && ext[j].key == ext[i].key && ext[j].ver == ext[i].ver; j++ {
		}
		if j-i > 1 {
			group := ext[i:j]
			f.add("lost-update", func() Anomaly {
				ts := make([]int32, len(group))
				names := make([]string, len(group))
				for n, x := range group {
					ts[n], names[n] = x.txn, h.name(x.txn)
				}
				return Anomaly{
					Ops: h.opIndexes(ts...),
					Explanation: fmt.Sprintf("Lost update of key %s: %s committed after reading the same version of it, %s, and each then wrote it, so whichever wrote last overwrote a change it never saw.",
						h.keyName(group[0].key), strings.Join(names, " and "), h.readVersion(group[0])),
				}
			})
		}
		i = j
	}
}

// readVersion spells the version an extRead saw.
func (h *hist) readVersion(x extRead) string {
	if h.w == RWRegister {
		return fmtv(h.vers[x.ver].val)
	}
	for _, m := range h.txnMops(x.txn) {
		if m.kind == mRead && m.key == x.key {
			return fmtv(h.reads[m.val].list())
		}
	}
	return "?"
}

// appendEdges adds the dependencies the version orders reveal: consecutive
// appends (ww), the append a read ends with (wr), and the append that came
// right after what a read saw (rw). Appends never read came after every read
// element, so they follow the last one (ww), and every read of the whole order
// precedes them (rw).
func (h *hist) appendEdges(a *appendIndex, e *edges) {
	for k := int32(0); k < int32(len(h.in.keys)); k++ {
		order := a.keyOrder(k)
		for i := 1; i < len(order); i++ {
			e.add(h.vers[order[i-1]].writer, h.vers[order[i]].writer, ww)
		}
		if len(order) > 0 {
			last := h.vers[order[len(order)-1]].writer
			for _, u := range a.unread(k) {
				e.add(last, h.vers[u].writer, ww)
			}
		}
	}
	for ri := range h.reads {
		r := &h.reads[ri]
		if r.prefix < 0 {
			continue // incompatible with the order: nothing certain to infer
		}
		order := a.keyOrder(r.key)
		if r.prefix > 0 {
			e.add(h.vers[order[r.prefix-1]].writer, r.txn, wr)
		}
		if int(r.prefix) < len(order) {
			e.add(r.txn, h.vers[order[r.prefix]].writer, rw)
			continue
		}
		for _, u := range a.unread(r.key) {
			e.add(r.txn, h.vers[u].writer, rw)
		}
	}
}
