package check

import (
	"slices"
	"sort"

	"github.com/anishathalye/porcupine"
)

// reachBudget bounds the search for the states an op could have seen; it is
// explanation, not verdict, so it stops early and says so.
const reachBudget = 1000

// reachableStates lists the states the partition can be in at a point where
// op b may take effect: after a valid order of every op that returned before
// b was invoked, plus any of the ops that overlap b. Those are the states b
// could have seen. The search is bounded; complete is false if it stopped early.
func (s *spec) reachableStates(ops []porcupine.Operation, b int) (states []any, complete bool) {
	// Candidates, sorted by return so "earliest unplaced return" is a scan.
	var cand []int
	for j := range ops {
		if j != b && ops[j].Call < ops[b].Return {
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
	r := reacher{s: s, ops: ops, cand: cand, must: must, budget: reachBudget,
		placed: make(bitset, (len(cand)+63)/64), zobrist: make([]uint64, len(cand)), seen: map[uint64][]memo{}}
	for i := range r.zobrist {
		r.zobrist[i] = mix(uint64(i) + 0x632be59bd9b4e019)
	}
	r.search(s.initial(), 0)
	sort.SliceStable(r.found, func(x, y int) bool { return formatValue(r.found[x]) < formatValue(r.found[y]) })
	return r.found, r.budget >= 0
}

// bitset marks which candidates a search configuration has placed.
type bitset []uint64

func (b bitset) has(i int) bool { return b[i/64]&(1<<(i%64)) != 0 }
func (b bitset) flip(i int)     { b[i/64] ^= 1 << (i % 64) }

// memo is a visited configuration: the placed ops and the state they left.
type memo struct {
	placed bitset
	state  any
}

// reacher is a depth-first search over configurations (placed ops, state),
// visiting each once: the same idea as porcupine's cache, restricted to the
// ops before and around one op.
type reacher struct {
	s       *spec
	ops     []porcupine.Operation
	cand    []int // op ids sorted by return time
	must    int   // the first must of cand returned before b was invoked
	budget  int
	placed  bitset   // by position in cand
	zobrist []uint64 // a random word per candidate; placed's hash is the XOR of its members'
	key     uint64   // the zobrist hash of placed
	seen    map[uint64][]memo
	found   []any
}

func (r *reacher) search(state any, mustPlaced int) {
	key := r.key ^ r.s.hash(state)
	for _, m := range r.seen[key] {
		if slices.Equal(m.placed, r.placed) && r.s.equal(m.state, state) {
			return
		}
	}
	if r.budget--; r.budget < 0 {
		return
	}
	r.seen[key] = append(r.seen[key], memo{slices.Clone(r.placed), state})
	if mustPlaced == r.must && !slices.ContainsFunc(r.found, func(f any) bool { return r.s.equal(f, state) }) {
		r.found = append(r.found, state)
	}
	// An op may go next only if no other unplaced op returned before it was
	// invoked; cand is in return order, so only the first two unplaced matter.
	first, second := -1, -1
	for i := range r.cand {
		if !r.placed.has(i) {
			if first >= 0 {
				second = i
				break
			}
			first = i
		}
	}
	for i := first; i >= 0 && i < len(r.cand); i++ {
		if r.placed.has(i) {
			continue
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
		r.search(next, mustPlaced+add)
		r.placed.flip(i)
		r.key ^= r.zobrist[i]
	}
}
