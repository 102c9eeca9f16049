package check

import (
	"cmp"
	"slices"
	"sort"
	"sync/atomic"
	"time"

	"github.com/anishathalye/porcupine"
)

// This file is faultline's own linearizability search for one partition. It
// is the search porcupine runs (Wing & Gong with Lowe's cache: linearize the
// first call that can go next, remember every (linearized set, state) already
// seen, backtrack at a return that was not linearized), with two changes:
//
//   - The history is cut at quiescent points: a point where every op with a
//     known outcome invoked before it has returned. Every op before a cut must
//     take effect before every op after it, so each segment is searched on its
//     own, from a configuration the previous segment ended in: its state and
//     the ops of unknown outcome (info) still pending, which may take effect
//     in any later segment. The search stays depth-first across segments, so a
//     valid history is found as fast as by one search. The cache and the
//     linearized set are per segment, so a cache entry costs the size of its
//     segment, not of the history, and memory grows linearly (porcupine's
//     cache keeps a bitset of every op per entry: quadratic, about 20 GB at
//     200k ops). The caches are kept until the end: they also stop a segment
//     being searched twice from one configuration, which on an invalid
//     history would otherwise multiply across segments.
//   - The longest partial linearization is kept as it is found, so a history
//     that is not linearizable is explained from the same search that decided it.
//
// Below segmentMinOps ops the partition is one segment: the same search as
// porcupine's, on flat arenas, and the longest prefix comes for free.

// segment is a run of ops between two quiescent cuts, in call order.
type segment struct {
	ops   []int // op ids (indices into the partition's ops) in call order
	known int   // how many have a known outcome
}

// cutSegments splits the partition at quiescent points. order is the op ids
// sorted by call. A cut goes before a known-outcome op invoked after every
// earlier known-outcome op returned; ops of unknown outcome never block a cut.
func cutSegments(ops []porcupine.Operation, order []int) []segment {
	var segs []segment
	cur := segment{}
	maxRet := int64(-1 << 62)
	for _, id := range order {
		o := &ops[id]
		known := o.Return != infinity
		if known && cur.known > 0 && o.Call > maxRet {
			segs = append(segs, cur)
			cur = segment{}
		}
		cur.ops = append(cur.ops, id)
		if known {
			cur.known++
			maxRet = max(maxRet, o.Return)
		}
	}
	return append(segs, cur)
}

// linConfig is where a segment's search starts: the state, the unknown-outcome
// ops invoked earlier that have not taken effect, and how it was reached.
type linConfig struct {
	state   any
	pending []int // op ids, sorted
	parent  *linConfig
	path    []int // ops linearized in the previous segment to get here, in order
	depth   int   // ops linearized before this config
}

// prefix returns the linearization that leads to c, oldest op first.
func (c *linConfig) prefix() []int {
	if c == nil {
		return nil
	}
	out := make([]int, 0, c.depth)
	var chain []*linConfig
	for x := c; x != nil; x = x.parent {
		chain = append(chain, x)
	}
	for i := len(chain) - 1; i >= 0; i-- {
		out = append(out, chain[i].path...)
	}
	return out
}

// linNode is a call or return event in a segment's doubly linked list. The
// links are indices into the run's node array, -1 for none: an array without
// pointers is not scanned by the collector, and relinking it needs no write
// barriers, which while a collection runs cost more than the search's own work.
type linNode struct {
	id         int32 // local op index in the run
	match      int32 // a call's return node; -1 for a return
	prev, next int32
}

// lift unlinks call n and its return.
func lift(ns []linNode, n int32) {
	x := &ns[n]
	ns[x.prev].next = x.next
	if x.next >= 0 {
		ns[x.next].prev = x.prev
	}
	m := &ns[x.match]
	ns[m.prev].next = m.next
	if m.next >= 0 {
		ns[m.next].prev = m.prev
	}
}

// unlift links call n and its return back where lift took them from.
func unlift(ns []linNode, n int32) {
	x := &ns[n]
	r := x.match
	m := &ns[r]
	ns[m.prev].next = r
	if m.next >= 0 {
		ns[m.next].prev = r
	}
	ns[x.prev].next = n
	if x.next >= 0 {
		ns[x.next].prev = n
	}
}

// linCall is a linearized call: its node and the state before it.
type linCall struct {
	node  int32
	state any
}

// segRun searches one segment from one start configuration. next yields the
// configurations the segment can end in, one at a time.
type segRun struct {
	seg   int
	start *linConfig
	final bool
	ids   []int // local index -> op id
	isUnk []bool
	nodes []linNode // the events, linked; nodes[head] is the list's head
	head  int32
	entry int32 // the next event to try, -1 for none
	state any
	lin   []uint64
	z     []uint64 // opZobrist of each local op
	in    []*input // each local op's call and return, unboxed once
	out   []*output
	nc    int    // ops carried from earlier segments: ids[:nc]
	key   uint64 // hash of the segment ops linearized and the carried ops pending
	known int    // known-outcome ops linearized
	total int    // known-outcome ops in the segment
	calls []linCall
}

// linSearch is the search over one partition.
type linSearch struct {
	s    *spec
	ops  []porcupine.Operation
	segs []segment
	memo []*segMemo // per segment, made on first use
	// hashStates puts the state in the cache key. A register holds one of
	// the few values written around the frontier, so for it (as porcupine
	// does without Model.Hash) the linearized set alone buckets better.
	hashStates bool
	stop       *atomic.Bool
	deadline   time.Time
	steps      int
	timedOut   bool
	// The longest partial linearization seen: a config and the path after it.
	bestDepth int
	bestFrom  *linConfig
	bestPath  []int
}

// linResult is the outcome of a search over one partition.
type linResult struct {
	verdict porcupine.CheckResult
	best    []int // the longest partial linearization, when Illegal
}

// segmentMinOps is the partition size from which linCheck cuts the history.
// Below it one segment is cheaper: a run per start configuration costs more
// than porcupine's single list when many info ops stay pending (porcupine's
// etcd logs), and porcupine's quadratic cache only hurts at tens of
// thousands of ops.
const segmentMinOps = 20000

// linCheck decides whether ops (one partition) are linearizable. stop set, or
// the deadline passed, ends the search as Unknown.
func (s *spec) linCheck(ops []porcupine.Operation, stop *atomic.Bool, timeout time.Duration) linResult {
	return s.linCheckCut(ops, stop, timeout, len(ops) >= segmentMinOps)
}

// linCheckCut is linCheck with the choice to cut at quiescent points made
// by the caller (the property test compares both with porcupine).
func (s *spec) linCheckCut(ops []porcupine.Operation, stop *atomic.Bool, timeout time.Duration, cut bool) linResult {
	order := make([]int, len(ops))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return ops[order[a]].Call < ops[order[b]].Call })
	var segs []segment
	if cut {
		segs = cutSegments(ops, order)
	} else {
		segs = []segment{{ops: order}} // final: the known count is not used
	}
	ls := &linSearch{s: s, ops: ops, segs: segs, stop: stop, bestDepth: -1, hashStates: s.kind == kindKV || s.kind == kindMulti}
	ls.memo = make([]*segMemo, len(ls.segs))
	defer func() {
		for _, m := range ls.memo {
			if m != nil {
				m.release()
			}
		}
	}()
	if timeout > 0 {
		ls.deadline = time.Now().Add(timeout)
	}
	start := &linConfig{state: s.initial()}
	stack := []*segRun{ls.newRun(0, start)}
	for len(stack) > 0 {
		top := stack[len(stack)-1]
		c, ok := ls.next(top)
		if ls.timedOut {
			return linResult{verdict: porcupine.Unknown}
		}
		if !ok {
			stack[len(stack)-1] = nil
			stack = stack[:len(stack)-1]
			continue
		}
		if top.final {
			return linResult{verdict: porcupine.Ok}
		}
		stack = append(stack, ls.newRun(top.seg+1, c))
	}
	best := ls.bestFrom.prefix()
	return linResult{verdict: porcupine.Illegal, best: append(best, ls.bestPath...)}
}

// newRun prepares the search of segment k from configuration c.
func (ls *linSearch) newRun(k int, c *linConfig) *segRun {
	seg := &ls.segs[k]
	r := &segRun{seg: k, start: c, final: k == len(ls.segs)-1, state: c.state, total: seg.known}
	r.ids = append(append(make([]int, 0, len(c.pending)+len(seg.ops)), c.pending...), seg.ops...)
	r.isUnk = make([]bool, len(r.ids))
	r.z = make([]uint64, len(r.ids))
	r.in, r.out = make([]*input, len(r.ids)), make([]*output, len(r.ids))
	for i, id := range r.ids {
		r.z[i] = opZobrist(id)
		r.in[i], r.out[i] = opIn(ls.ops[id]), opOut(ls.ops[id])
	}
	r.nc = len(c.pending)
	for _, id := range c.pending {
		r.key ^= opZobrist(id)
	}
	// Events: carried ops are called before the segment; returns of unknown
	// outcome come last (infinity), sorted as porcupine sorts (calls first on ties).
	type ev struct {
		t   int64
		ret bool
		id  int32
	}
	evs := make([]ev, 0, 2*len(r.ids))
	for i, id := range r.ids {
		o := &ls.ops[id]
		call := o.Call
		if i < len(c.pending) {
			call = -1 << 62
		}
		r.isUnk[i] = o.Return == infinity
		evs = append(evs, ev{t: call, id: int32(i)}, ev{t: o.Return, ret: true, id: int32(i)})
	}
	slices.SortStableFunc(evs, func(a, b ev) int {
		switch {
		case a.t != b.t:
			return cmp.Compare(a.t, b.t)
		case a.ret == b.ret:
			return 0
		case a.ret:
			return 1
		}
		return -1
	})
	nodes := make([]linNode, len(evs)+1)
	r.nodes, r.head = nodes, int32(len(evs))
	nodes[r.head] = linNode{id: -1, match: -1, prev: -1, next: -1}
	callOf := make([]int32, len(r.ids))
	prev := r.head
	for i := range evs {
		n := int32(i)
		nodes[n] = linNode{id: evs[i].id, match: -1, prev: prev, next: -1}
		nodes[prev].next = n
		prev = n
		if evs[i].ret {
			nodes[callOf[evs[i].id]].match = n // a call sorts before its return
		} else {
			callOf[evs[i].id] = n
		}
	}
	r.entry = nodes[r.head].next
	r.lin = make([]uint64, (len(r.ids)+63)/64)
	return r
}

// next continues run r until it yields an end configuration (ok) or is
// exhausted. For the final segment, ok means the whole partition linearized.
func (ls *linSearch) next(r *segRun) (*linConfig, bool) {
	s := ls.s
	if len(r.calls) > 0 && !r.final && r.known == r.total {
		// Resuming after a yield: undo the op that completed the segment.
		ls.backtrack(r)
	}
	nodes := r.nodes
	for nodes[r.head].next >= 0 {
		if ls.steps++; ls.steps&63 == 0 && (ls.stop.Load() || ls.expired()) {
			ls.timedOut = true
			return nil, false
		}
		entry := r.entry
		if entry < 0 {
			// Only unknown-outcome returns were left and none could go: dead end.
			if !ls.backtrack(r) {
				return nil, false
			}
			continue
		}
		if e := &nodes[entry]; e.match >= 0 { // a call
			ok, ns := s.step(r.state, r.in[e.id], r.out[e.id])
			if !ok {
				r.entry = e.next
				continue
			}
			i := e.id
			r.lin[i/64] |= 1 << (i % 64)
			r.key ^= r.z[i]
			if ls.seen(r, ns) {
				r.lin[i/64] &^= 1 << (i % 64)
				r.key ^= r.z[i]
				r.entry = e.next
				continue
			}
			r.calls = append(r.calls, linCall{entry, r.state})
			r.state = ns
			if !r.isUnk[i] {
				r.known++
			}
			lift(nodes, entry)
			r.entry = nodes[r.head].next
			if !r.final && r.known == r.total {
				if c, fresh := ls.endConfig(r); fresh {
					return c, true
				}
				ls.backtrack(r)
			}
			continue
		}
		// A return that was not linearized: backtrack.
		if !ls.backtrack(r) {
			return nil, false
		}
	}
	return nil, true
}

// backtrack undoes the last linearized op of r and moves past it, first
// recording the longest partial linearization. It reports false when r has
// nothing left to undo (the run is exhausted).
func (ls *linSearch) backtrack(r *segRun) bool {
	if len(r.calls) == 0 {
		return false
	}
	if d := r.start.depth + len(r.calls); d > ls.bestDepth {
		ls.bestDepth, ls.bestFrom = d, r.start
		ls.bestPath = ls.bestPath[:0]
		for _, c := range r.calls {
			ls.bestPath = append(ls.bestPath, r.ids[r.nodes[c.node].id])
		}
	}
	top := r.calls[len(r.calls)-1]
	r.calls = r.calls[:len(r.calls)-1]
	i := r.nodes[top.node].id
	r.lin[i/64] &^= 1 << (i % 64)
	r.key ^= r.z[i]
	if !r.isUnk[i] {
		r.known--
	}
	r.state = top.state
	unlift(r.nodes, top.node)
	r.entry = r.nodes[top.node].next
	return true
}

// endConfig builds the configuration r's segment ends in, and reports
// whether it is new (a configuration already yielded starts nothing new).
func (ls *linSearch) endConfig(r *segRun) (*linConfig, bool) {
	var pending []int
	for i, id := range r.ids {
		if r.isUnk[i] && r.lin[i/64]&(1<<(i%64)) == 0 {
			pending = append(pending, id)
		}
	}
	slices.Sort(pending)
	// The configuration the next segment starts in is that segment's root;
	// it may have been reached already from another start, by carried ops
	// taking effect first.
	next := ls.memo[r.seg+1]
	if next == nil {
		next = newSegMemo(len(ls.segs[r.seg+1].ops))
		ls.memo[r.seg+1] = next
	}
	h := uint64(0)
	if ls.hashStates {
		h = stateHash(ls.s, r.state)
	}
	for _, id := range pending {
		h ^= opZobrist(id)
	}
	zero := make([]uint64, next.words)
	slot := next.find(h)
	for i := next.head(slot); i >= 0; i = next.ents[i].next {
		e := &next.ents[i]
		if slices.Equal(next.bits[e.off:int(e.off)+next.words], zero) && slices.Equal(next.pend[e.poff:e.poff+e.plen], pending) && ls.s.equal(next.states[i], r.state) {
			return nil, false
		}
	}
	next.add(slot, h, zero, pending, r.state)
	path := make([]int, len(r.calls))
	for i, c := range r.calls {
		path[i] = r.ids[r.nodes[c.node].id]
	}
	c := &linConfig{state: r.state, pending: pending, parent: r.start, path: path, depth: r.start.depth + len(path)}
	// The path up to here is a partial linearization too.
	if c.depth > ls.bestDepth {
		ls.bestDepth, ls.bestFrom, ls.bestPath = c.depth, c, ls.bestPath[:0]
	}
	return c, true
}

func (ls *linSearch) expired() bool {
	// The clock is read every 64 steps × 16: a step is tens of nanoseconds.
	return ls.steps&1023 == 0 && !ls.deadline.IsZero() && time.Now().After(ls.deadline)
}

// seen reports whether r's configuration with state st was visited before in
// its segment, and records it if not.
func (ls *linSearch) seen(r *segRun, st any) bool {
	memo := ls.memo[r.seg]
	if memo == nil {
		memo = newSegMemo(len(ls.segs[r.seg].ops))
		ls.memo[r.seg] = memo
	}
	h := r.key
	if ls.hashStates {
		h ^= stateHash(ls.s, st)
	}
	slot := memo.find(h)
	for i := memo.head(slot); i >= 0; i = memo.ents[i].next {
		e := &memo.ents[i]
		// The state first: a chain holds the states of one linearized set.
		if ls.s.equal(memo.states[i], st) && r.sameSeg(memo.bits[e.off:int(e.off)+memo.words]) && r.samePending(memo.pend[e.poff:e.poff+e.plen]) {
			return true
		}
	}
	if r.nc == 0 {
		memo.add(slot, h, r.lin, nil, st)
	} else {
		memo.add(slot, h, r.segBits(), r.pendingCarried(), st)
	}
	return false
}

// sameSeg compares the segment's linearized ops with a recorded bitset
// without building one.
func (r *segRun) sameSeg(seg []uint64) bool {
	if r.nc == 0 {
		return slices.Equal(seg, r.lin)
	}
	for j := range len(r.ids) - r.nc {
		i := r.nc + j
		if (r.lin[i/64]&(1<<(i%64)) != 0) != (seg[j/64]&(1<<(j%64)) != 0) {
			return false
		}
	}
	return true
}

// samePending compares the carried ops still pending with a recorded list.
func (r *segRun) samePending(pend []int) bool {
	k := 0
	for i := range r.nc {
		if r.lin[i/64]&(1<<(i%64)) == 0 {
			if k >= len(pend) || pend[k] != r.ids[i] {
				return false
			}
			k++
		}
	}
	return k == len(pend)
}

// segBits returns the linearized bits of the segment's own ops (not the carried ones).
func (r *segRun) segBits() []uint64 {
	if r.nc == 0 {
		return slices.Clone(r.lin)
	}
	n := len(r.ids) - r.nc
	out := make([]uint64, (n+63)/64)
	for j := range n {
		if i := r.nc + j; r.lin[i/64]&(1<<(i%64)) != 0 {
			out[j/64] |= 1 << (j % 64)
		}
	}
	return out
}

// pendingCarried returns the carried ops not yet linearized, sorted (ids[:nc] is).
func (r *segRun) pendingCarried() []int {
	var out []int
	for i := range r.nc {
		if r.lin[i/64]&(1<<(i%64)) == 0 {
			out = append(out, r.ids[i])
		}
	}
	return out
}

// opZobrist is an op's random word in the configuration hash.
func opZobrist(id int) uint64 { return mix(uint64(id)*0x9e3779b97f4a7c15 + 0x2545f4914f6cdd1d) }

// stateHash hashes a state, with the register's common values first.
func stateHash(s *spec, st any) uint64 {
	switch x := st.(type) {
	case nil:
		return 0x9e3779b97f4a7c15
	case int64:
		return mix(uint64(x))
	}
	return s.hash(st)
}
