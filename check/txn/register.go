package txn

import (
	"fmt"
	"strings"
)

// registerIndex is what rw-register reads and writes reveal about versions.
// Registers hide their history, so the version order is partial; see
// versionOrder for where its edges come from.
type registerIndex struct {
	readOff []int32 // version v's external readers are readers[readOff[v]:readOff[v+1]]
	readers []int32
	initial []int32            // key -> its initial version, -1 if nobody read or wrote it
	order   []vedge            // version order edges kept
	before  map[[2]int32]vedge // (from, to) -> its edge, to explain dependencies
}

func (x *registerIndex) readersOf(v int32) []int32 { return x.readers[x.readOff[v]:x.readOff[v+1]] }

// initFunc returns the initial value of each key o implies.
func (h *hist) initFunc(o *Options) func(k int32) any {
	if !o.HasInit {
		return func(int32) any { return nil }
	}
	m, ok := o.Init.(map[string]any)
	if !ok {
		return func(int32) any { return o.Init }
	}
	return func(k int32) any { return m[strings.TrimPrefix(h.keyName(k), ":")] }
}

// analyzeRegister infers what it can of rw-register version orders, reports
// the anomalies that need no cycle, and adds ww, wr and rw edges.
func (h *hist) analyzeRegister(f *found, e *edges, o *Options) *registerIndex {
	init := h.initFunc(o)
	x := &registerIndex{initial: h.initialVersions(init)}
	var ext []extRead
	var pairs []edge // (version read externally, committed reader)
	for t := int32(0); t < int32(len(h.txns)); t++ {
		if h.txns[t].st != committed {
			continue
		}
		ms := h.txnMops(t)
		h.registerInternal(f, t, ms)
		for i, m := range ms {
			if m.kind != mRead {
				continue
			}
			h.registerRead(f, t, int32(i), m, x.initial[m.key] == m.val, o.HasInit)
			if touchedBefore(ms[:i], m.key) {
				continue
			}
			pairs = append(pairs, edge{from: m.val, to: t})
			if lastWrite(ms[i+1:], m.key) >= 0 {
				ext = append(ext, extRead{m.key, m.val, t})
			}
		}
	}
	// Group external readers by version.
	x.readOff = make([]int32, len(h.vers)+1)
	for _, p := range pairs {
		x.readOff[p.from+1]++
	}
	for v := range h.vers {
		x.readOff[v+1] += x.readOff[v]
	}
	x.readers = make([]int32, len(pairs))
	fill := make([]int32, len(h.vers))
	copy(fill, x.readOff)
	for _, p := range pairs {
		x.readers[fill[p.from]] = p.to
		fill[p.from]++
	}
	h.lostUpdates(f, ext)
	x.order = h.versionOrder(f, o, x.initial, ext)
	x.before = make(map[[2]int32]vedge, len(x.order))
	for _, ve := range x.order {
		if _, ok := x.before[[2]int32{ve.from, ve.to}]; !ok {
			x.before[[2]int32{ve.from, ve.to}] = ve
		}
	}
	h.registerEdges(x, e)
	return x
}

// lastWrite returns the version of the last write of key k in ms, -1 if none.
func lastWrite(ms []mop, k int32) int32 {
	for i := len(ms) - 1; i >= 0; i-- {
		if ms[i].kind == mWrite && ms[i].key == k {
			return ms[i].val
		}
	}
	return -1
}

// registerRead checks one read of committed transaction t (micro-op i);
// initial says it read the key's initial value, known that the initial state
// was given rather than assumed nil.
func (h *hist) registerRead(f *found, t, i int32, m mop, initial, known bool) {
	v := &h.vers[m.val]
	if initial && v.writer < 0 {
		return // the initial state
	}
	what := fmt.Sprintf("%s read key %s = %s", h.name(t), h.keyName(m.key), fmtv(v.val))
	switch {
	case v.writer < 0 && !known:
		// Nobody wrote it, but with no initial state given it may have been
		// there before the history began (Elle's reading).
	case v.writer < 0:
		f.add("garbage-read", func() Anomaly {
			return Anomaly{Ops: h.opIndexes(t), Explanation: fmt.Sprintf("Garbage read: %s, a value no transaction wrote and not the initial state.", what)}
		})
	case v.writer == t:
		if v.wmop > h.txns[t].mop0+i {
			f.add("future-read", func() Anomaly {
				return Anomaly{Ops: h.opIndexes(t), Explanation: fmt.Sprintf("Future read: %s, a value the same transaction only writes later.", what)}
			})
		}
	case h.txns[v.writer].st == aborted:
		f.add("G1a", func() Anomaly {
			return Anomaly{Ops: h.opIndexes(t, v.writer),
				Explanation: fmt.Sprintf("Aborted read: %s, written by %s, which failed: its writes must never be seen.", what, h.name(v.writer))}
		})
	case v.inter:
		f.add("G1b", func() Anomaly {
			return Anomaly{Ops: h.opIndexes(t, v.writer),
				Explanation: fmt.Sprintf("Intermediate read: %s, but %s wrote %s again after %s in the same transaction, so that state was never committed.",
					what, h.name(v.writer), h.keyName(m.key), fmtv(v.val))}
		})
	}
}

// registerInternal checks that every read of committed transaction t returns
// what its own earlier read or write of the key says.
func (h *hist) registerInternal(f *found, t int32, ms []mop) {
	for i, m := range ms {
		if m.kind != mRead {
			continue
		}
		for j := i - 1; j >= 0; j-- {
			p := ms[j]
			if p.key != m.key {
				continue
			}
			if p.val != m.val { // versions are per value, so different values
				how := "read"
				if p.kind == mWrite {
					how = "wrote"
				}
				f.add("internal", func() Anomaly {
					return Anomaly{Ops: h.opIndexes(t),
						Explanation: fmt.Sprintf("Internal inconsistency: %s read key %s = %s in micro-op %d, but it %s %s in micro-op %d.",
							h.name(t), h.keyName(m.key), fmtv(h.vers[m.val].val), i, how, fmtv(h.vers[p.val].val), j)}
				})
			}
			break
		}
	}
}

// registerEdges adds wr edges (a read of a value follows its write), and for
// every version order edge v1 -> v2, ww edges from v1's writer to v2's and rw
// edges from v1's external readers to v2's writer (Elle's
// version-graphs->transaction-graph).
func (h *hist) registerEdges(x *registerIndex, e *edges) {
	for v := int32(0); v < int32(len(h.vers)); v++ {
		ver := &h.vers[v]
		if ver.writer < 0 || ver.inter {
			continue
		}
		for _, r := range x.readersOf(v) {
			e.add(ver.writer, r, wr)
		}
	}
	for _, ve := range x.order {
		to := &h.vers[ve.to]
		if to.writer < 0 || to.inter {
			continue
		}
		if from := &h.vers[ve.from]; from.writer >= 0 && !from.inter {
			e.add(from.writer, to.writer, ww)
		}
		for _, r := range x.readersOf(ve.from) {
			e.add(r, to.writer, rw)
		}
	}
}
