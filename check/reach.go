package check

import (
	"slices"
	"sort"

	"github.com/anishathalye/porcupine"
)

// reachBudget bounds the search for the states an op could have seen; it is
// explanation, not verdict, so it stops early and says so.
const reachBudget = 500

// reachableStates lists the states the partition can be in at a point where
// op b may take effect: after a valid order of every op that returned before
// b was invoked, plus any of the ops that overlap b. Those are the states b
// could have seen. The search is bounded; complete is false if it stopped early.
//
// On a long history the search starts at the last quiescent point before b
// (see reachFrom), from the state best (the longest partial linearization)
// is in there; other orders may reach other states at that point, so the
// answer is then never called complete.
func (s *spec) reachableStates(ops []porcupine.Operation, b int, best []int) (states []any, complete bool) {
	start, from, exact := s.initial(), int64(-1<<62), true
	if len(ops) > reachWindow {
		if st, t, ok := s.reachFrom(ops, b, best); ok {
			start, from, exact = st, t, false
		}
	}
	// Candidates, sorted by return so "earliest unplaced return" is a scan.
	var cand []int
	for j := range ops {
		if j != b && ops[j].Call < ops[b].Return && ops[j].Call >= from {
			cand = append(cand, j)
		}
	}
	sort.Slice(cand, func(x, y int) bool {
		p, q := ops[cand[x]], ops[cand[y]]
		return p.Return < q.Return || p.Return == q.Return && p.Call < q.Call
	})
	must := 0
	for _, j := range cand {
		if ops[j].Return < ops[b].Call {
			must++
		}
	}
	// byCall lists candidate positions in call order, so the ops that may go
	// next (invoked before the earliest unplaced return) are a prefix of the
	// unplaced ones there: a long history costs the frontier, not its length.
	byCall := make([]int, len(cand))
	for i := range byCall {
		byCall[i] = i
	}
	sort.SliceStable(byCall, func(x, y int) bool { return ops[cand[byCall[x]]].Call < ops[cand[byCall[y]]].Call })
	r := reacher{s: s, ops: ops, cand: cand, byCall: byCall, must: must, budget: reachBudget,
		placed: make(bitset, (len(cand)+63)/64), zobrist: make([]uint64, len(cand)), seen: newSegMemo(len(cand))}
	defer r.seen.release()
	for i := range r.zobrist {
		r.zobrist[i] = mix(uint64(i) + 0x632be59bd9b4e019)
	}
	r.search(start, 0, 0, 0)
	sort.SliceStable(r.found, func(x, y int) bool { return formatValue(r.found[x]) < formatValue(r.found[y]) })
	return r.found, exact && r.budget >= 0
}

// reachWindow is the partition size above which reachableStates starts at a
// quiescent point instead of the beginning, where its budget would run out
// long before op b.
const reachWindow = 2000

// reachFrom finds the last quiescent point at or before op b's call (every op
// invoked before it returned before it, and none has an unknown outcome) and
// the state best leaves there: best's first k ops must be exactly the k ops
// invoked before the point, since those precede every later op in any order.
func (s *spec) reachFrom(ops []porcupine.Operation, b int, best []int) (any, int64, bool) {
	order := make([]int, len(ops))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(x, y int) bool { return ops[order[x]].Call < ops[order[y]].Call })
	cut, k := int64(-1), 0
	maxRet := int64(-1 << 62)
	for i, id := range order {
		o := &ops[id]
		if o.Call > ops[b].Call {
			break
		}
		if i > 0 && o.Call > maxRet {
			cut, k = o.Call, i
		}
		maxRet = max(maxRet, o.Return) // an unknown outcome (infinity) blocks every later cut
	}
	if k == 0 || len(best) < k {
		return nil, 0, false
	}
	state := s.initial()
	for _, id := range best[:k] {
		if ops[id].Call >= cut {
			return nil, 0, false
		}
		var ok bool
		if ok, state = s.step(state, opIn(ops[id]), opOut(ops[id])); !ok {
			return nil, 0, false
		}
	}
	return state, cut, true
}

// bitset marks which candidates a search configuration has placed.
type bitset []uint64

func (b bitset) has(i int) bool { return b[i/64]&(1<<(i%64)) != 0 }
func (b bitset) flip(i int)     { b[i/64] ^= 1 << (i % 64) }

// reacher is a depth-first search over configurations (placed ops, state),
// visiting each once: the same idea as porcupine's cache, restricted to the
// ops before and around one op.
type reacher struct {
	s       *spec
	ops     []porcupine.Operation
	cand    []int // op ids sorted by return time
	byCall  []int // positions in cand, sorted by call time
	must    int   // the first must of cand returned before b was invoked
	budget  int
	placed  bitset   // by position in cand
	zobrist []uint64 // a random word per candidate; placed's hash is the XOR of its members'
	key     uint64   // the zobrist hash of placed
	seen    *segMemo // visited configurations: placed ops and the state they left
	found   []any
}

// search explores from state; lo and loCall are no later than the first
// unplaced position in cand and in byCall, so scans start there.
func (r *reacher) search(state any, mustPlaced, lo, loCall int) {
	key := r.key ^ r.s.hash(state)
	slot := r.seen.find(key)
	for i := r.seen.head(slot); i >= 0; i = r.seen.ents[i].next {
		e := &r.seen.ents[i]
		if slices.Equal(r.seen.bits[e.off:int(e.off)+r.seen.words], r.placed) && r.s.equal(r.seen.states[i], state) {
			return
		}
	}
	if r.budget--; r.budget < 0 {
		return
	}
	r.seen.add(slot, key, r.placed, nil, state)
	if mustPlaced == r.must && !slices.ContainsFunc(r.found, func(f any) bool { return r.s.equal(f, state) }) {
		r.found = append(r.found, state)
	}
	// An op may go next only if no other unplaced op returned before it was
	// invoked; cand is in return order, so only the first two unplaced matter.
	first, second := -1, -1
	for i := lo; i < len(r.cand); i++ {
		if !r.placed.has(i) {
			if first >= 0 {
				second = i
				break
			}
			first = i
		}
	}
	if first < 0 {
		return
	}
	for loCall < len(r.byCall) && r.placed.has(r.byCall[loCall]) {
		loCall++
	}
	for k := loCall; k < len(r.byCall); k++ {
		i := r.byCall[k]
		if r.placed.has(i) {
			continue
		}
		if i != first && r.ops[r.cand[i]].Call >= r.ops[r.cand[first]].Return {
			break // every later op in call order was invoked after first returned
		}
		limit := int64(infinity) // the earliest return among the other unplaced ops
		if i != first {
			limit = r.ops[r.cand[first]].Return
		} else if second >= 0 {
			limit = r.ops[r.cand[second]].Return
		}
		o := r.ops[r.cand[i]]
		if o.Call >= limit {
			continue
		}
		ok, next := r.s.step(state, opIn(o), opOut(o))
		if !ok {
			continue
		}
		r.placed.flip(i)
		r.key ^= r.zobrist[i]
		add := 0
		if i < r.must {
			add = 1
		}
		r.search(next, mustPlaced+add, first, loCall)
		r.placed.flip(i)
		r.key ^= r.zobrist[i]
	}
}
