package txn

// rel is a set of dependency relations, one bit each. The bit order is also
// the order of preference when one edge carries several relations and a cycle
// step needs one name: data dependencies first (ww, wr), then
// anti-dependencies, then the session and real-time orders.
type rel uint8

const (
	ww       rel = 1 << iota // write-write: b overwrote (appended after) a
	wr                       // write-read: b read what a wrote
	rw                       // read-write (anti-dependency): b overwrote what a read
	process                  // a came before b on the same process
	realtime                 // a completed before b was invoked

	dataRels = ww | wr | rw
	allRels  = dataRels | process | realtime
)

// first returns the preferred single relation of r, 0 for none.
func (r rel) first() rel { return r & -r }

func (r rel) String() string {
	switch r {
	case ww:
		return "ww"
	case wr:
		return "wr"
	case rw:
		return "rw"
	case process:
		return "process"
	case realtime:
		return "realtime"
	}
	return "mixed"
}

// edge is one dependency between transactions (graph vertices).
type edge struct {
	from, to int32
	r        rel
}

// edges collects dependencies; self-edges and edges touching aborted
// transactions are dropped as they are added. Edges are kept in fixed-size
// chunks, so the list grows without ever being copied, and each chunk keeps
// its ends and its relations in separate arrays: an edge struct pads its
// relation byte to 4, and a million transactions have millions of edges.
type edges struct {
	h      *hist
	chunks []edgeChunk
	n      int
}

// edgeChunk holds up to edgeChunkLen edges: edge i is from[i] -> to[i],
// with relations r[i].
type edgeChunk struct {
	from, to []int32
	r        []rel
}

const edgeChunkLen = 1 << 16

func (e *edges) add(a, b int32, r rel) {
	if a == b || !e.h.inGraph(a) || !e.h.inGraph(b) {
		return
	}
	e.push(edge{a, b, r})
}

// push appends x unfiltered.
func (e *edges) push(x edge) {
	if e.n%edgeChunkLen == 0 {
		e.chunks = append(e.chunks, edgeChunk{
			from: make([]int32, 0, edgeChunkLen),
			to:   make([]int32, 0, edgeChunkLen),
			r:    make([]rel, 0, edgeChunkLen),
		})
	}
	c := &e.chunks[len(e.chunks)-1]
	c.from, c.to, c.r = append(c.from, x.from), append(c.to, x.to), append(c.r, x.r)
	e.n++
}

// appendAll moves the edges of o after e's; o is left empty.
func (e *edges) appendAll(o *edges) {
	e.chunks, e.n = append(e.chunks, o.chunks...), e.n+o.n
	o.chunks, o.n = nil, 0
}

// each calls fn for every edge, in the order added.
func (e *edges) each(fn func(edge)) {
	for _, c := range e.chunks {
		for i, from := range c.from {
			fn(edge{from, c.to[i], c.r[i]})
		}
	}
}

// graph is a directed graph in compressed sparse row form: the out-edges of v
// are dst[off[v]:off[v+1]], with their relations in rels, in the order they
// were added, with parallel edges merged into one relation set.
type graph struct {
	off  []int32
	dst  []int32
	rels []rel
}

func (g *graph) order() int { return len(g.off) - 1 }

// relsOf returns the relations of the edge u -> v, 0 if there is none.
func (g *graph) relsOf(u, v int32) rel {
	for i := g.off[u]; i < g.off[u+1]; i++ {
		if g.dst[i] == v {
			return g.rels[i]
		}
	}
	return 0
}

// buildGraph builds the graph on n vertices from e in linear time: a
// counting pass sizes each vertex's out-edges, a second pass places them, and
// a third merges parallel edges.
func buildGraph(n int, e *edges) *graph {
	g := &graph{off: make([]int32, n+1), dst: make([]int32, e.n), rels: make([]rel, e.n)}
	e.each(func(x edge) { g.off[x.from+1]++ })
	for v := 0; v < n; v++ {
		g.off[v+1] += g.off[v]
	}
	fill := make([]int32, n)
	copy(fill, g.off)
	e.each(func(x edge) {
		g.dst[fill[x.from]], g.rels[fill[x.from]] = x.to, x.r
		fill[x.from]++
	})
	// where[w] is the slot of the current vertex's edge to w, if any.
	where := fill
	for i := range where {
		where[i] = -1
	}
	out := int32(0)
	for v := 0; v < n; v++ {
		lo, hi := g.off[v], g.off[v+1]
		g.off[v] = out
		start := out
		for i := lo; i < hi; i++ {
			w, r := g.dst[i], g.rels[i]
			if j := where[w]; j >= start {
				g.rels[j] |= r
				continue
			}
			where[w] = out
			g.dst[out], g.rels[out] = w, r
			out++
		}
		for i := start; i < out; i++ {
			where[g.dst[i]] = -1
		}
	}
	g.off[n] = out
	g.dst, g.rels = g.dst[:out:out], g.rels[:out:out]
	return g
}

// tarjan numbers the strongly connected components of g restricted to edges
// whose relations meet mask, without recursion (a component may hold millions
// of vertices). Components are numbered in reverse topological order: if a
// component reaches another, its number is larger.
func tarjan(g *graph, mask rel) (comp []int32, ncomp int32) {
	n := g.order()
	index := make([]int32, n) // visit order + 1; 0 = unvisited
	low := make([]int32, n)
	comp = make([]int32, n)
	for i := range comp {
		comp[i] = -1
	}
	type frame struct{ v, e int32 }
	var stack []int32
	var calls []frame
	next := int32(1)
	visit := func(v int32) {
		index[v], low[v] = next, next
		next++
		stack = append(stack, v)
		calls = append(calls, frame{v, g.off[v]})
	}
	for s := int32(0); s < int32(n); s++ {
		if index[s] != 0 {
			continue
		}
		visit(s)
		for len(calls) > 0 {
			f := &calls[len(calls)-1]
			v := f.v
			if f.e < g.off[v+1] {
				e := f.e
				f.e++
				if g.rels[e]&mask == 0 {
					continue
				}
				switch w := g.dst[e]; {
				case index[w] == 0:
					visit(w)
				case comp[w] < 0: // on the stack
					low[v] = min(low[v], index[w])
				}
				continue
			}
			calls = calls[:len(calls)-1]
			if len(calls) > 0 {
				p := calls[len(calls)-1].v
				low[p] = min(low[p], low[v])
			}
			if low[v] == index[v] {
				for {
					w := stack[len(stack)-1]
					stack = stack[:len(stack)-1]
					comp[w] = ncomp
					if w == v {
						break
					}
				}
				ncomp++
			}
		}
	}
	return comp, ncomp
}

// components groups vertices by component and returns the groups with more
// than one vertex (the graphs here have no self-edges, so those are exactly
// the components that contain a cycle), each sorted by vertex.
func components(comp []int32, ncomp int32) [][]int32 {
	size := make([]int32, ncomp)
	for _, c := range comp {
		size[c]++
	}
	groups := make(map[int32][]int32)
	for v, c := range comp {
		if size[c] > 1 {
			if groups[c] == nil {
				groups[c] = make([]int32, 0, size[c])
			}
			groups[c] = append(groups[c], int32(v))
		}
	}
	out := make([][]int32, 0, len(groups))
	for c := int32(0); c < ncomp; c++ {
		if g, ok := groups[c]; ok {
			out = append(out, g)
		}
	}
	return out
}

// subgraph returns the graph induced by the sorted vertices vs, with vertex i
// standing for vs[i]. scratch must have g.order() entries, all -1, and is left
// that way.
func (g *graph) subgraph(vs []int32, scratch []int32) *graph {
	for i, v := range vs {
		scratch[v] = int32(i)
	}
	sub := &graph{off: make([]int32, len(vs)+1)}
	for i, v := range vs {
		for e := g.off[v]; e < g.off[v+1]; e++ {
			if w := scratch[g.dst[e]]; w >= 0 {
				sub.dst = append(sub.dst, w)
				sub.rels = append(sub.rels, g.rels[e])
			}
		}
		sub.off[i+1] = int32(len(sub.dst))
	}
	for _, v := range vs {
		scratch[v] = -1
	}
	return sub
}
