package txn

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// rw-register version orders, as Elle's rw-register infers them: registers
// hide their history, so each key's version order is a partial order pieced
// together from sources, each an assumption the user opts into (except the
// first):
//
//   - initial-state: the initial value (nil, or Options.Init) precedes every
//     other value read or written;
//   - transaction-order: a given commit order of transactions orders the
//     values they wrote (Options.TransactionOrder);
//   - wfr-keys: a committed transaction that read a key and then wrote it
//     wrote after the version it read (Options.WritesFollowReads);
//   - sequential-keys: each key is sequentially consistent, so along each
//     process the value a transaction left a key at precedes the value the
//     next transaction on that process to touch the key found
//     (Options.SequentialKeys);
//   - linearizable-keys: each key is linearizable, so the same holds along
//     real-time order (Options.LinearizableKeys).
//
// Sources are added in that order. One that would make some key's order
// cyclic is reported as cyclic-versions and left out entirely, as Elle does,
// so the dependencies come only from assumptions the history does not refute.

// vsource is one source of version order edges.
type vsource uint8

const (
	srcInitial vsource = iota
	srcTxnOrder
	srcWFR
	srcSequential
	srcLinearizable
)

var vsourceNames = [...]string{"initial-state", "transaction-order", "wfr-keys", "sequential-keys", "linearizable-keys"}

// vedge is one inferred version order edge: version from precedes version to
// (of the same key).
type vedge struct {
	from, to int32
	src      vsource
}

// touch is what a transaction did to one key, as Elle's rw-register
// version inference takes it (transaction-graph->version-graphs): the
// version it found the key at (first) and the one it left it at (last).
// first is its external read (its first read of the key, before any write
// of it), except that a read of nil or no read at all gives way to its final
// write; last is its final write, else its read. Intermediate writes are not
// external, and an indeterminate transaction's reads are unknown, so only its
// final write counts.
type touch struct{ key, first, last int32 }

// touches lists t's external values per key, in the order it first touched
// them.
func (h *hist) touches(t int32) []touch {
	tr := &h.txns[t]
	if tr.st == aborted {
		return nil
	}
	const read, written = 1, 2
	var out []touch
	var flagBuf [8]uint8 // per touch; on the stack for the usual few keys
	flags := flagBuf[:0]
	for _, m := range h.txnMops(t) {
		if m.kind == mRead && tr.st != committed {
			continue
		}
		i := slices.IndexFunc(out, func(x touch) bool { return x.key == m.key })
		if i < 0 {
			out = append(out, touch{key: m.key, first: -1, last: -1})
			flags = append(flags, 0)
			i = len(out) - 1
		}
		switch {
		case m.kind == mWrite:
			out[i].last = m.val
			flags[i] |= written
		case flags[i] == 0:
			out[i].first = m.val
			flags[i] |= read
		}
	}
	for i := range out {
		x := &out[i]
		if flags[i]&written == 0 {
			x.last = x.first
		} else if flags[i]&read == 0 || h.vers[x.first].val == nil {
			x.first = x.last
		}
	}
	return out
}

// initialVersions returns each key's initial version id, -1 when no
// transaction read or wrote the initial value.
func (h *hist) initialVersions(init func(k int32) any) []int32 {
	out := make([]int32, len(h.in.keys))
	for k := range out {
		out[k] = h.lookup(int32(k), init(int32(k)))
	}
	return out
}

// versionOrder infers the version order edges of every key from the sources
// o asks for, reports cyclic-versions for each source it had to leave out,
// and returns the edges kept.
func (h *hist) versionOrder(f *found, o *Options, initial []int32, ext []extRead) []vedge {
	tt := make([][]touch, len(h.txns))
	for t := range tt {
		tt[t] = h.touches(int32(t))
	}
	type source struct {
		src   vsource
		edges func() []vedge
	}
	sources := []source{{srcInitial, func() []vedge { return h.initialOrder(tt, initial) }}}
	if len(o.TransactionOrder) > 0 {
		sources = append(sources, source{srcTxnOrder, func() []vedge { return h.txnOrder(o.TransactionOrder) }})
	}
	if o.WritesFollowReads {
		sources = append(sources, source{srcWFR, func() []vedge { return h.wfrOrder(ext) }})
	}
	if o.SequentialKeys {
		sources = append(sources, source{srcSequential, func() []vedge { return h.chainOrder(tt, false) }})
	}
	if o.LinearizableKeys {
		sources = append(sources, source{srcLinearizable, func() []vedge { return h.chainOrder(tt, true) }})
	}
	var kept []vedge
	var used []string
	for _, s := range sources {
		add := s.edges()
		try := append(slices.Clone(kept), add...)
		if sccs := h.versionCycles(try); len(sccs) > 0 {
			names := append(slices.Clone(used), vsourceNames[s.src])
			for _, scc := range sccs {
				h.reportCyclicVersions(f, scc, try, names, tt)
			}
			continue
		}
		kept = try
		used = append(used, vsourceNames[s.src])
	}
	return kept
}

// initialOrder links each key's initial version to every other version of it
// a transaction read or wrote.
func (h *hist) initialOrder(tt [][]touch, initial []int32) []vedge {
	var out []vedge
	seen := make(map[int32]bool)
	link := func(k, v int32) {
		if i := initial[k]; i >= 0 && v != i && !seen[v] {
			seen[v] = true
			out = append(out, vedge{i, v, srcInitial})
		}
	}
	for _, ts := range tt {
		for _, x := range ts {
			link(x.key, x.first)
			link(x.key, x.last)
		}
	}
	return out
}

// txnOrder orders each key's values as the transactions that wrote them are
// ordered by order (completion op index -> position). As Elle's
// transaction-order-keys, every ok or info completion's writes take part:
// those of transactions the order leaves out come first, in history order,
// then the ordered ones by position (equal positions in history order), and
// each key's values are chained in that sequence. So a partial order still
// claims that the transactions it names committed after all the others.
func (h *hist) txnOrder(order map[int64]int) []vedge {
	type w struct {
		ordered bool
		pos, at int // position in the order; the completion's place in the history
		ver     int32
	}
	byKey := map[int32][]w{}
	for t := int32(0); t < int32(len(h.txns)); t++ {
		tr := &h.txns[t]
		if tr.comp < 0 || tr.st == aborted {
			continue
		}
		pos, ok := order[h.ops[tr.comp].Index]
		for _, x := range h.touches(t) {
			if m := lastWrite(h.txnMops(t), x.key); m >= 0 {
				byKey[x.key] = append(byKey[x.key], w{ok, pos, int(tr.comp), m})
			}
		}
	}
	var out []vedge
	for _, ws := range byKey {
		slices.SortFunc(ws, func(a, b w) int {
			switch {
			case a.ordered != b.ordered:
				if a.ordered {
					return 1
				}
				return -1
			case a.ordered && a.pos != b.pos:
				return cmp.Compare(a.pos, b.pos)
			}
			return cmp.Compare(a.at, b.at)
		})
		for i := 1; i < len(ws); i++ {
			out = append(out, vedge{ws[i-1].ver, ws[i].ver, srcTxnOrder})
		}
	}
	return out
}

// wfrOrder orders, in each committed transaction that read a key and then
// wrote it, the version it read before the one it wrote. A read of the
// initial state adds nothing the initial-state source does not.
func (h *hist) wfrOrder(ext []extRead) []vedge {
	var out []vedge
	for _, x := range ext {
		if w := lastWrite(h.txnMops(x.txn), x.key); w >= 0 && w != x.ver && h.vers[x.ver].val != nil {
			out = append(out, vedge{x.ver, w, srcWFR})
		}
	}
	return out
}

// chainOrder orders versions along process order (realtime false) or
// real-time order (true): the last value a transaction left a key at precedes
// the first value the next transactions to touch that key found there. For
// real time, "next" are the transactions invoked after it completed with no
// other transaction touching the key completed in between, kept per key as a
// frontier the way realtimeEdges keeps one for all keys.
func (h *hist) chainOrder(tt [][]touch, rt bool) []vedge {
	var out []vedge
	if !rt {
		// As Elle's process-graph, process order relates ok transactions
		// only.
		last := map[[2]int]int32{} // (process, key) -> last transaction
		for t := int32(0); t < int32(len(h.txns)); t++ {
			if h.txns[t].st != committed {
				continue
			}
			for _, x := range tt[t] {
				pk := [2]int{h.proc(t), int(x.key)}
				if prev, ok := last[pk]; ok {
					link1(tt, prev, t, x, &out, srcSequential)
				}
				last[pk] = t
			}
		}
		return out
	}
	if h.completionsOnly {
		return nil // no transaction's start is known
	}
	// events[pos] is t+1 for the invocation of t, -(t+1) for the completion
	// of committed t.
	events := make([]int32, len(h.ops))
	for t := range h.txns {
		tr := &h.txns[t]
		if tr.st == aborted || len(tt[t]) == 0 {
			continue
		}
		events[tr.inv] = int32(t) + 1
		if tr.st == committed {
			events[tr.comp] = -int32(t) - 1
		}
	}
	frontier := map[int32][]int32{} // key -> completed txns touching it, not yet superseded
	for _, ev := range events {
		switch {
		case ev > 0:
			t := ev - 1
			for _, x := range tt[t] {
				for _, p := range frontier[x.key] {
					link1(tt, p, t, x, &out, srcLinearizable)
				}
			}
		case ev < 0:
			t := -ev - 1
			inv := h.txns[t].inv
			for _, x := range tt[t] {
				fr := frontier[x.key]
				kept := fr[:0]
				for _, p := range fr {
					if h.txns[p].comp > inv {
						kept = append(kept, p)
					}
				}
				frontier[x.key] = append(kept, t)
			}
		}
	}
	return out
}

// link1 adds the edge from a's last value of x.key to b's first (x is b's
// touch of the key), unless they are the same version.
func link1(tt [][]touch, a, b int32, x touch, out *[]vedge, src vsource) {
	for _, xa := range tt[a] {
		if xa.key == x.key && xa.last != x.first {
			*out = append(*out, vedge{xa.last, x.first, src})
		}
	}
}

// versionCycles returns the strongly connected components, of two or more
// versions, of the version graph es.
func (h *hist) versionCycles(es []vedge) [][]int32 {
	ve := &edges{h: h}
	for _, x := range es {
		ve.push(edge{from: x.from, to: x.to, r: ww}) // unfiltered: these vertices are versions
	}
	g := buildGraph(len(h.vers), ve)
	comp, n := tarjan(g, allRels)
	return components(comp, n)
}

// reportCyclicVersions reports one cycle of versions of a key.
func (h *hist) reportCyclicVersions(f *found, scc []int32, es []vedge, sources []string, tt [][]touch) {
	in := make(map[int32]bool, len(scc))
	for _, v := range scc {
		in[v] = true
	}
	k := h.vers[scc[0]].key
	var steps []string
	var ts []int32
	for _, x := range es {
		if !in[x.from] || !in[x.to] {
			continue
		}
		steps = append(steps, fmt.Sprintf("%s < %s by %s", fmtv(h.vers[x.from].val), fmtv(h.vers[x.to].val), vsourceNames[x.src]))
	}
	// The transactions that read or wrote the versions in the cycle.
	for t, xs := range tt {
		if slices.ContainsFunc(xs, func(x touch) bool { return in[x.first] || in[x.last] }) {
			ts = append(ts, int32(t))
		}
	}
	vals := make([]any, len(scc))
	for i, v := range scc {
		vals[i] = h.vers[v].val
	}
	f.add("cyclic-versions", func() Anomaly {
		return Anomaly{Ops: h.opIndexes(ts...),
			Explanation: fmt.Sprintf("Cyclic versions of key %s: the version order inferred from %s puts %s in a circle, so no order of versions exists:\n  - %s.",
				h.keyName(k), strings.Join(sources, ", "), fmtList(vals), strings.Join(steps, ";\n  - "))}
	})
}
