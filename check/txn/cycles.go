package txn

import (
	"context"
	"time"
)

// A cycle class is a base kind plus a variant (none, process, realtime).
// Classes are searched in this order, most severe first, so that when a
// class is searched every worse class has been ruled out or found; a found
// class makes the classes it implies redundant.
type base uint8

const (
	g0 base = iota
	g1c
	gSingle
	gNonadjacent
	g2Item
)

// baseNames are Elle's names: every rw edge here is on an item (there are no
// predicate reads), so single and nonadjacent cycles are the -item kinds.
var baseNames = [...]string{"G0", "G1c", "G-single-item", "G-nonadjacent-item", "G2-item"}

type cycleClass struct {
	b       base
	variant rel // 0, process or realtime
}

func (c cycleClass) String() string { return baseNames[c.b] + variantSuffix(c.variant) }

func variantSuffix(v rel) string {
	switch {
	case v&realtime != 0:
		return "-realtime"
	case v&process != 0:
		return "-process"
	}
	return ""
}

// path returns the relations a cycle of the class may use besides rw.
func (c cycleClass) path() rel {
	r := ww | wr
	if c.b == g0 {
		r = ww
	}
	switch c.variant {
	case process:
		r |= process
	case realtime:
		r |= process | realtime
	}
	return r
}

var searchOrder = func() []cycleClass {
	var out []cycleClass
	for _, v := range []rel{0, process, realtime} {
		for b := g0; b <= g2Item; b++ {
			out = append(out, cycleClass{b, v})
		}
	}
	return out
}()

// cycle is a closed walk: vs[i] -> vs[i+1 mod n] by relation rels[i].
type cycle struct {
	vs   []int32
	rels []rel
}

// explainByData names each step of c, a cycle in g, by its data relation
// whenever its edge has one, and only otherwise by process or realtime
// order. Elle's explainers do the same (data first, then the additional
// graphs), so a cycle found through a realtime step that is also an
// anti-dependency is the data cycle Elle reports, not a realtime one. Among
// data relations Elle's list-append prefers ww, wr, rw and its rw-register
// wr, ww, rw (wrFirst).
func (c *cycle) explainByData(g *graph, wrFirst bool) {
	for i, u := range c.vs {
		v := c.vs[(i+1)%len(c.vs)]
		d := g.relsOf(u, v) & dataRels
		switch {
		case d == 0:
		case wrFirst && d&wr != 0:
			c.rels[i] = wr
		default:
			c.rels[i] = d.first()
		}
	}
}

// classify names the anomaly a simple cycle shows, from its edges.
func (c *cycle) classify() string {
	var nrw, nwr int
	var seen rel
	adjacent := false
	for i, r := range c.rels {
		seen |= r
		switch r {
		case rw:
			nrw++
			adjacent = adjacent || c.rels[(i+1)%len(c.rels)] == rw
		case wr:
			nwr++
		}
	}
	b := g0
	switch {
	case nrw == 1:
		b = gSingle
	case nrw > 1 && adjacent:
		b = g2Item
	case nrw > 1:
		b = gNonadjacent
	case nwr > 0:
		b = g1c
	}
	return baseNames[b] + variantSuffix(seen)
}

// budget decides when to stop searching. Cancellation stops everything; the
// deadline only stops the searches that can cost more than linear time.
type budget struct {
	ctx       context.Context
	deadline  time.Time
	ticks     uint
	expired   bool
	cancelled bool
}

// stop reports whether a search should stop; bounded searches heed the
// deadline as well as cancellation. The clock is read every 1024 calls.
func (b *budget) stop(bounded bool) bool {
	b.ticks++
	if b.ticks&1023 == 0 {
		b.check()
	}
	return b.cancelled || (bounded && b.expired)
}

func (b *budget) check() {
	b.cancelled = b.cancelled || b.ctx.Err() != nil
	b.expired = b.expired || !time.Now().Before(b.deadline)
}

// searcher looks for cycles in one strongly connected component.
type searcher struct {
	g    *graph // the component, with local vertex ids
	b    *budget
	seen []uint32 // visit stamps, compared with stamp
	par  []int32  // BFS parent (a vertex, or a state in product searches)
	prel []rel    // relation of the edge from the parent
	q    []int32
	mark []uint32 // target stamps for multi-target searches
	// stamp is bumped per search so the arrays need no clearing.
	stamp uint32
}

func newSearcher(g *graph, b *budget) *searcher {
	n := g.order()
	return &searcher{g: g, b: b, seen: make([]uint32, n), par: make([]int32, n), prel: make([]rel, n), mark: make([]uint32, n)}
}

// maxTries bounds how many candidate edges a linear search tries while
// looking for a shorter cycle than its first; the budget bounds them too.
const maxTries = 16

// outOfTime reads the clock and reports whether the budget is spent or the
// check cancelled. Searches call it once per candidate, not per step.
func (s *searcher) outOfTime() bool {
	s.b.check()
	return s.b.expired || s.b.cancelled
}

// find searches for a cycle of class c. It returns the cycle (nil if none)
// and whether the search finished.
func (s *searcher) find(c cycleClass) (*cycle, bool) {
	p := c.path()
	switch c.b {
	case g0:
		return s.through(p, p)
	case g1c:
		return s.through(p, wr)
	case gSingle:
		return s.singleRW(p)
	case gNonadjacent:
		return s.nonadjacent(p)
	}
	return s.through(p|rw, rw)
}

// through finds a short cycle over mask that uses an edge carrying want: for
// such an edge u->v inside a component of the mask subgraph, the shortest path
// from v back to u closes a simple cycle. Linear per candidate tried.
func (s *searcher) through(mask, want rel) (*cycle, bool) {
	comp, _ := tarjan(s.g, mask)
	var best *cycle
	tries := 0
	for u := int32(0); u < int32(s.g.order()) && tries < maxTries; u++ {
		for e := s.g.off[u]; e < s.g.off[u+1] && tries < maxTries; e++ {
			v, r := s.g.dst[e], s.g.rels[e]
			if r&want == 0 || comp[u] != comp[v] {
				continue
			}
			if best != nil && s.outOfTime() {
				return best, !s.b.cancelled
			}
			tries++
			if c := s.closeCycle(u, v, (r & want).first(), mask, comp); c != nil && (best == nil || len(c.vs) < len(best.vs)) {
				best = c
				if len(best.vs) == 2 {
					return best, true
				}
			}
			if s.b.cancelled {
				return best, false
			}
		}
	}
	return best, !s.b.cancelled
}

// closeCycle returns the cycle u -r-> v followed by the shortest mask-path
// from v back to u within u's component, or nil.
func (s *searcher) closeCycle(u, v int32, r, mask rel, comp []int32) *cycle {
	vs, rels := s.bfs(v, u, mask, comp)
	if vs == nil {
		return nil
	}
	return &cycle{vs: append([]int32{u}, vs[:len(vs)-1]...), rels: append([]rel{r}, rels...)}
}

// bfs returns the shortest mask-path from src to dst (vertices from src to
// dst, and the relation of each step) inside src's component, or nil.
func (s *searcher) bfs(src, dst int32, mask rel, comp []int32) ([]int32, []rel) {
	s.stamp++
	st := s.stamp
	s.seen[src] = st
	s.q = append(s.q[:0], src)
	for head := 0; head < len(s.q); head++ {
		x := s.q[head]
		if s.b.stop(false) {
			return nil, nil
		}
		for e := s.g.off[x]; e < s.g.off[x+1]; e++ {
			y, r := s.g.dst[e], s.g.rels[e]&mask
			if r == 0 || s.seen[y] == st || comp[y] != comp[src] {
				continue
			}
			s.seen[y], s.par[y], s.prel[y] = st, x, r.first()
			if y == dst {
				return s.trace(src, y)
			}
			s.q = append(s.q, y)
		}
	}
	return nil, nil
}

// trace walks BFS parents back from y to src.
func (s *searcher) trace(src, y int32) ([]int32, []rel) {
	var vs []int32
	var rels []rel
	for x := y; x != src; x = s.par[x] {
		vs = append(vs, x)
		rels = append(rels, s.prel[x])
	}
	vs = append(vs, src)
	reverse(vs)
	reverse(rels)
	return vs, rels
}

func reverse[T any](xs []T) {
	for i, j := 0, len(xs)-1; i < j; i, j = i+1, j-1 {
		xs[i], xs[j] = xs[j], xs[i]
	}
}

// singleRW finds a cycle with exactly one rw edge u->v and a path back from v
// to u over the path relations. Components of the path subgraph settle the
// cheap cases; otherwise v must reach u across components, which Tarjan's
// numbering allows only when v's component number is larger. Those remaining
// candidates each cost a search, so they are bounded by the budget.
func (s *searcher) singleRW(p rel) (*cycle, bool) {
	comp, _ := tarjan(s.g, p)
	var best *cycle
	tries := 0
	type cand struct{ u, v int32 }
	var far []cand
	for u := int32(0); u < int32(s.g.order()); u++ {
		for e := s.g.off[u]; e < s.g.off[u+1]; e++ {
			v := s.g.dst[e]
			if s.g.rels[e]&rw == 0 {
				continue
			}
			switch {
			case comp[u] == comp[v] && tries < maxTries && (best == nil || !s.outOfTime()):
				tries++
				if c := s.closeCycle(u, v, rw, p, comp); c != nil && (best == nil || len(c.vs) < len(best.vs)) {
					best = c
				}
				if s.b.cancelled {
					return best, false
				}
			case comp[v] > comp[u]:
				far = append(far, cand{u, v})
			}
		}
	}
	if best != nil {
		return best, true
	}
	// Group the far candidates by v, so one search from v serves them all.
	sortBy(far, func(c cand) int32 { return c.v })
	for i := 0; i < len(far); {
		if s.outOfTime() {
			return nil, false
		}
		v := far[i].v
		s.stamp++ // mark this group's targets with the stamp bfs will see as stamp-1
		j := i
		floor := comp[far[i].u]
		for ; j < len(far) && far[j].v == v; j++ {
			s.mark[far[j].u] = s.stamp
			floor = min(floor, comp[far[j].u])
		}
		vs, rels := s.bfsFloor(v, p, comp, floor)
		if vs != nil {
			u := vs[len(vs)-1]
			return &cycle{vs: append([]int32{u}, vs[:len(vs)-1]...), rels: append([]rel{rw}, rels...)}, true
		}
		if s.b.cancelled || s.b.expired {
			return nil, false
		}
		i = j
	}
	return nil, true
}

// bfsFloor is bfs toward the marked targets, skipping vertices whose
// component number is below floor (they cannot reach any target).
func (s *searcher) bfsFloor(src int32, mask rel, comp []int32, floor int32) ([]int32, []rel) {
	target := s.stamp
	s.stamp++
	st := s.stamp
	s.seen[src] = st
	s.q = append(s.q[:0], src)
	for head := 0; head < len(s.q); head++ {
		x := s.q[head]
		if s.b.stop(true) {
			return nil, nil
		}
		for e := s.g.off[x]; e < s.g.off[x+1]; e++ {
			y, r := s.g.dst[e], s.g.rels[e]&mask
			if r == 0 || s.seen[y] == st || comp[y] < floor {
				continue
			}
			s.seen[y], s.par[y], s.prel[y] = st, x, r.first()
			if s.mark[y] == target {
				return s.trace(src, y)
			}
			s.q = append(s.q, y)
		}
	}
	return nil, nil
}

// nonadjacent finds a cycle with two or more rw edges, no two in a row, and
// path relations elsewhere. From each rw edge u->v it searches the product of
// the graph with a small automaton (was the last edge rw? have we seen two?)
// for a way back to u whose last edge is not rw. The walk found may repeat a
// vertex; it is then split into simple cycles and one of the right class is
// kept. Each candidate costs a search, so the whole is bounded by the budget.
func (s *searcher) nonadjacent(p rel) (*cycle, bool) {
	n := int32(s.g.order())
	// State x*4 + lastRW*2 + many: at vertex x, after an rw edge or not,
	// with two or more rw edges or just one.
	seen := make([]uint32, 4*n)
	par := make([]int32, 4*n)
	prel := make([]rel, 4*n)
	var stamp uint32
	var q []int32
	for u := int32(0); u < n; u++ {
		for e := s.g.off[u]; e < s.g.off[u+1]; e++ {
			if s.g.rels[e]&rw == 0 {
				continue
			}
			if s.outOfTime() {
				return nil, false
			}
			stamp++
			start := s.g.dst[e]*4 + 2
			seen[start], par[start] = stamp, -1
			q = append(q[:0], start)
			for head := 0; head < len(q); head++ {
				x := q[head]
				if s.b.stop(true) {
					return nil, false
				}
				v, lastRW, many := x/4, x&2 != 0, x&1 != 0
				for f := s.g.off[v]; f < s.g.off[v+1]; f++ {
					y, r := s.g.dst[f], s.g.rels[f]
					if y == u {
						// Close the walk here or not at all: passing through
						// u would only make it longer and not simple.
						if r&p != 0 && many {
							if c := bestSimple(s.walk(u, x, (r&p).first(), par, prel), gNonadjacent); c != nil {
								return c, true
							}
						}
						continue
					}
					next := [2]int32{-1, -1}
					var nrel [2]rel
					if r&p != 0 {
						next[0], nrel[0] = y*4+b2i(many), (r & p).first()
					}
					if r&rw != 0 && !lastRW {
						next[1], nrel[1] = y*4+2+1, rw
					}
					for i, ns := range next {
						if ns >= 0 && seen[ns] != stamp {
							seen[ns], par[ns], prel[ns] = stamp, x, nrel[i]
							q = append(q, ns)
						}
					}
				}
			}
		}
	}
	return nil, true
}

func b2i(b bool) int32 {
	if b {
		return 1
	}
	return 0
}

// walk rebuilds the closed walk u -rw-> ... -> state x -last-> u.
func (s *searcher) walk(u, x int32, last rel, par []int32, prel []rel) *cycle {
	vs := []int32{}
	rels := []rel{last}
	for st := x; st >= 0; st = par[st] {
		vs = append(vs, st/4)
		if par[st] >= 0 {
			rels = append(rels, prel[st])
		}
	}
	rels = append(rels, rw) // u -> the first state's vertex
	vs = append(vs, u)
	reverse(vs)
	reverse(rels)
	return &cycle{vs: vs, rels: rels}
}

// bestSimple splits a closed walk into simple cycles and returns the shortest
// one of base class b, or nil.
func bestSimple(c *cycle, b base) *cycle {
	var best *cycle
	for _, sc := range simpleCycles(c) {
		if classBase(sc.classify()) == b && (best == nil || len(sc.vs) < len(best.vs)) {
			best = sc
		}
	}
	return best
}

// classBase returns the base of a class name.
func classBase(name string) base {
	for b := g2Item; ; b-- {
		if len(name) >= len(baseNames[b]) && name[:len(baseNames[b])] == baseNames[b] &&
			(len(name) == len(baseNames[b]) || name[len(baseNames[b])] == '-') {
			return b
		}
		if b == g0 {
			return g0
		}
	}
}

// simpleCycles splits a closed walk into simple cycles: walking it with a
// stack, a vertex seen again closes the cycle above its first visit.
func simpleCycles(c *cycle) []*cycle {
	var out []*cycle
	var stv []int32
	var str []rel
	at := make(map[int32]int, len(c.vs))
	k := len(c.vs)
	for i := 0; i <= k; i++ {
		if i > 0 {
			str = append(str, c.rels[i-1])
		}
		v := c.vs[i%k]
		if j, ok := at[v]; ok {
			out = append(out, &cycle{vs: append([]int32(nil), stv[j:]...), rels: append([]rel(nil), str[j:]...)})
			for _, x := range stv[j+1:] {
				delete(at, x)
			}
			stv, str = stv[:j+1], str[:j]
			continue
		}
		at[v] = len(stv)
		stv = append(stv, v)
	}
	return out
}

// sortBy sorts xs by an int32 key, stably.
func sortBy[T any](xs []T, key func(T) int32) {
	if len(xs) < 2 {
		return
	}
	lo, hi := key(xs[0]), key(xs[0])
	for _, x := range xs {
		lo, hi = min(lo, key(x)), max(hi, key(x))
	}
	count := make([]int, int(hi-lo)+2)
	for _, x := range xs {
		count[key(x)-lo+1]++
	}
	for i := 1; i < len(count); i++ {
		count[i] += count[i-1]
	}
	out := make([]T, len(xs))
	for _, x := range xs {
		out[count[key(x)-lo]] = x
		count[key(x)-lo]++
	}
	copy(xs, out)
}
