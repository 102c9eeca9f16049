package txn

import (
	"fmt"
	"strings"
)

// registerIndex is what rw-register reads and writes reveal about versions.
// Registers hide their history, so the version order is partial: the initial
// nil precedes every written value, and with Options.WritesFollowReads a
// committed transaction's read of a key precedes its own write of it.
type registerIndex struct {
	readOff []int32 // version v's external readers are readers[readOff[v]:readOff[v+1]]
	readers []int32
	wfr     []edge // version edges from writes-follow-reads (r is ww): read -> written
	cyclic  []bool // key -> its inferred version order has a cycle, so it is not used
}

func (x *registerIndex) readersOf(v int32) []int32 { return x.readers[x.readOff[v]:x.readOff[v+1]] }

// analyzeRegister infers what it can of rw-register version orders, reports
// the anomalies that need no cycle, and adds ww, wr and rw edges.
func (h *hist) analyzeRegister(f *found, e *edges, wfr bool) *registerIndex {
	x := &registerIndex{cyclic: make([]bool, len(h.in.keys))}
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
			h.registerRead(f, t, int32(i), m)
			if touchedBefore(ms[:i], m.key) {
				continue
			}
			pairs = append(pairs, edge{from: m.val, to: t})
			if w := lastWrite(ms[i+1:], m.key); w >= 0 {
				ext = append(ext, extRead{m.key, m.val, t})
				if wfr {
					x.wfr = append(x.wfr, edge{from: m.val, to: w, r: ww})
				}
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
	if wfr {
		h.cyclicVersions(f, x)
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

// registerRead checks one read of committed transaction t (micro-op i).
func (h *hist) registerRead(f *found, t, i int32, m mop) {
	v := &h.vers[m.val]
	if v.val == nil {
		return // the initial state
	}
	what := fmt.Sprintf("%s read key %s = %s", h.name(t), h.keyName(m.key), fmtv(v.val))
	switch {
	case v.writer < 0:
		f.add("garbage-read", func() Anomaly {
			return Anomaly{Ops: h.opIndexes(t), Explanation: fmt.Sprintf("Garbage read: %s, a value no transaction wrote.", what)}
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

// cyclicVersions finds keys whose writes-follow-reads version order has a
// cycle, reports them, and marks them so no dependency is inferred from them.
func (h *hist) cyclicVersions(f *found, x *registerIndex) {
	ve := &edges{h: h}
	for _, x := range x.wfr {
		ve.push(x) // unfiltered: these vertices are versions, not transactions
	}
	g := buildGraph(len(h.vers), ve)
	comp, n := tarjan(g, allRels)
	for _, vs := range components(comp, n) {
		k := h.vers[vs[0]].key
		x.cyclic[k] = true
		in := make(map[int32]bool, len(vs))
		for _, v := range vs {
			in[v] = true
		}
		var steps []string
		var ts []int32
		for _, ve := range x.wfr {
			if in[ve.from] && in[ve.to] {
				t := h.vers[ve.to].writer
				ts = append(ts, t)
				steps = append(steps, fmt.Sprintf("%s read %s then wrote %s, so %s < %s",
					h.name(t), fmtv(h.vers[ve.from].val), fmtv(h.vers[ve.to].val), fmtv(h.vers[ve.from].val), fmtv(h.vers[ve.to].val)))
			}
		}
		f.add("cyclic-versions", func() Anomaly {
			return Anomaly{Ops: h.opIndexes(ts...),
				Explanation: fmt.Sprintf("Cyclic versions of key %s: writes follow reads orders them in a circle, so no order of versions exists:\n  - %s.",
					h.keyName(k), strings.Join(steps, ";\n  - "))}
		})
	}
}

// registerEdges adds wr edges (a read of a value follows its write), rw edges
// from readers of the initial state to every writer of the key, and, with
// writes-follow-reads, ww and rw edges into a transaction from the writer and
// the other readers of the version it read before writing.
func (h *hist) registerEdges(x *registerIndex, e *edges) {
	initial := make([]int32, len(h.in.keys))
	for k := range initial {
		initial[k] = h.lookup(int32(k), nil)
	}
	for v := int32(0); v < int32(len(h.vers)); v++ {
		ver := &h.vers[v]
		if ver.writer < 0 || ver.inter {
			continue
		}
		for _, r := range x.readersOf(v) {
			e.add(ver.writer, r, wr)
		}
		if i := initial[ver.key]; i >= 0 {
			for _, r := range x.readersOf(i) {
				e.add(r, ver.writer, rw)
			}
		}
	}
	for _, ve := range x.wfr {
		if x.cyclic[h.vers[ve.from].key] {
			continue
		}
		t := h.vers[ve.to].writer
		if prev := &h.vers[ve.from]; prev.writer >= 0 && !prev.inter {
			e.add(prev.writer, t, ww)
		}
		for _, r := range x.readersOf(ve.from) {
			e.add(r, t, rw)
		}
	}
}
