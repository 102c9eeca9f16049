package txn

import (
	"context"
	"slices"
	"testing"
	"time"
)

// rawGraph builds a graph from edges without a history.
func rawGraph(n int, es ...edge) *graph {
	e := &edges{}
	for _, x := range es {
		e.push(x)
	}
	return buildGraph(n, e)
}

func TestBuildGraphMergesParallelEdges(t *testing.T) {
	g := rawGraph(3, edge{0, 1, ww}, edge{0, 2, rw}, edge{0, 1, rw}, edge{2, 0, realtime}, edge{0, 1, ww})
	if !slices.Equal(g.off, []int32{0, 2, 2, 3}) || !slices.Equal(g.dst, []int32{1, 2, 0}) ||
		!slices.Equal(g.rels, []rel{ww | rw, rw, realtime}) {
		t.Fatalf("got %+v", g)
	}
}

// TestTarjanDeep runs Tarjan on a 1,000,000-vertex ring, which a recursive
// implementation could not survive, and on a chain, which has no cycle.
func TestTarjanDeep(t *testing.T) {
	const n = 1_000_000
	ring := make([]edge, n)
	for i := range ring {
		ring[i] = edge{int32(i), int32((i + 1) % n), ww}
	}
	comp, nc := tarjan(rawGraph(n, ring...), allRels)
	if nc != 1 || len(components(comp, nc)[0]) != n {
		t.Fatalf("ring: %d components", nc)
	}
	comp, nc = tarjan(rawGraph(n, ring[:n-1]...), allRels)
	if nc != n || len(components(comp, nc)) != 0 {
		t.Fatalf("chain: %d components", nc)
	}
	// The mask hides the edge that closes the ring.
	ring[n-1].r = rw
	if _, nc := tarjan(rawGraph(n, ring...), ww); nc != n {
		t.Fatalf("masked ring: %d components", nc)
	}
}

// TestTarjanReverseTopological checks the numbering singleRW relies on: a
// component that reaches another has the larger number.
func TestTarjanReverseTopological(t *testing.T) {
	g := rawGraph(5, edge{0, 1, ww}, edge{1, 0, ww}, edge{1, 2, ww}, edge{2, 3, ww}, edge{3, 2, ww}, edge{4, 0, ww})
	comp, nc := tarjan(g, allRels)
	if nc != 3 || comp[0] != comp[1] || comp[2] != comp[3] {
		t.Fatalf("components %v", comp)
	}
	if !(comp[4] > comp[0] && comp[0] > comp[2]) {
		t.Fatalf("not reverse topological: %v", comp)
	}
}

// TestRealtimeReduction checks that realtime edges form a transitive
// reduction: each transaction links from those on the frontier only.
func TestRealtimeReduction(t *testing.T) {
	cases := []struct {
		name string
		hist []string
		want [][2]int32 // edges between transactions, numbered by invocation
	}{
		{"serial chain links neighbours only", []string{
			"ok 0 [[:r :x []]]", "ok 1 [[:r :x []]]", "ok 2 [[:r :x []]]", "ok 3 [[:r :x []]]",
		}, [][2]int32{{0, 1}, {1, 2}, {2, 3}}},
		{"concurrent pair both precede the next", []string{
			"invoke 0 [[:r :x nil]]", "invoke 1 [[:r :x nil]]", "ok 0 [[:r :x []]]", "ok 1 [[:r :x []]]", "ok 2 [[:r :x []]]",
		}, [][2]int32{{0, 2}, {1, 2}}},
		{"a long transaction stays on the frontier", []string{
			"ok 0 [[:r :x []]]", "invoke 1 [[:r :x nil]]", "ok 2 [[:r :x []]]", "ok 1 [[:r :x []]]", "ok 3 [[:r :x []]]",
		}, [][2]int32{{0, 1}, {0, 2}, {1, 3}, {2, 3}}},
		{"indeterminate and failed ones complete nothing", []string{
			"ok 0 [[:r :x []]]", "info 1 [[:append :x 1]]", "fail 2 [[:append :x 2]]", "ok 3 [[:r :x []]]",
		}, [][2]int32{{0, 1}, {0, 3}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h, err := parse(txns(t, tc.hist...), ListAppend)
			if err != nil {
				t.Fatal(err)
			}
			e := &edges{h: h}
			h.realtimeEdges(e)
			var got [][2]int32
			e.each(func(x edge) { got = append(got, [2]int32{x.from, x.to}) })
			slices.SortFunc(got, func(a, b [2]int32) int { return int(a[0]-b[0])*1000 + int(a[1]-b[1]) })
			if !slices.Equal(got, tc.want) {
				t.Fatalf("edges %v, want %v", got, tc.want)
			}
		})
	}
}

func TestProcessEdges(t *testing.T) {
	h, err := parse(txns(t,
		"ok 0 [[:r :x []]]", "fail 0 [[:append :x 1]]", "ok 0 [[:r :x []]]", "info 0 [[:append :x 2]]", "ok 1 [[:r :x []]]",
	), ListAppend)
	if err != nil {
		t.Fatal(err)
	}
	e := &edges{h: h}
	h.processEdges(e)
	var got [][2]int32
	e.each(func(x edge) { got = append(got, [2]int32{x.from, x.to}) })
	// Only ok transactions are linked, as in Elle's process-graph: the
	// failed one did not happen, the info one may have happened any time.
	if want := [][2]int32{{0, 2}}; !slices.Equal(got, want) {
		t.Fatalf("edges %v, want %v", got, want)
	}
}

func TestClassify(t *testing.T) {
	cases := []struct {
		rels []rel
		want string
	}{
		{[]rel{ww, ww}, "G0"},
		{[]rel{ww, wr}, "G1c"},
		{[]rel{wr, wr, ww}, "G1c"},
		{[]rel{rw, wr}, "G-single-item"},
		{[]rel{rw, wr, rw, ww}, "G-nonadjacent-item"},
		{[]rel{rw, rw, wr}, "G2-item"},
		{[]rel{rw, wr, ww, rw}, "G2-item"}, // adjacent across the wrap
		{[]rel{ww, process}, "G0-process"},
		{[]rel{wr, realtime, process}, "G1c-realtime"},
		{[]rel{rw, process}, "G-single-item-process"},
		{[]rel{rw, realtime}, "G-single-item-realtime"},
		{[]rel{rw, rw, realtime}, "G2-item-realtime"},
	}
	for _, tc := range cases {
		c := &cycle{vs: make([]int32, len(tc.rels)), rels: tc.rels}
		if got := c.classify(); got != tc.want {
			t.Errorf("%v: %s, want %s", tc.rels, got, tc.want)
		}
		if classBase(tc.want) != classBase(c.classify()) {
			t.Errorf("classBase(%s)", tc.want)
		}
	}
}

// TestSimpleCycles splits a closed walk that visits vertex 1 twice.
func TestSimpleCycles(t *testing.T) {
	walk := &cycle{vs: []int32{0, 1, 2, 1}, rels: []rel{rw, wr, rw, ww}}
	got := simpleCycles(walk)
	if len(got) != 2 {
		t.Fatalf("got %d cycles", len(got))
	}
	if !slices.Equal(got[0].vs, []int32{1, 2}) || !slices.Equal(got[0].rels, []rel{wr, rw}) {
		t.Errorf("inner cycle %+v", got[0])
	}
	if !slices.Equal(got[1].vs, []int32{0, 1}) || !slices.Equal(got[1].rels, []rel{rw, ww}) {
		t.Errorf("outer cycle %+v", got[1])
	}
}

// TestSearchFindsShortCycles runs every class search on a graph that holds
// one cycle of each base class, sharing vertex 0, and checks what each finds.
func TestSearchFindsShortCycles(t *testing.T) {
	g := rawGraph(9,
		edge{0, 1, ww}, edge{1, 0, ww}, // G0
		edge{0, 2, wr}, edge{2, 0, ww}, // G1c
		edge{0, 3, rw}, edge{3, 0, wr}, // G-single
		edge{0, 4, rw}, edge{4, 5, wr}, edge{5, 6, rw}, edge{6, 0, ww}, // G-nonadjacent
		edge{0, 7, rw}, edge{7, 8, rw}, edge{8, 0, rw}, // G2-item
	)
	s := newSearcher(g, &budget{ctx: context.Background(), deadline: time.Now().Add(time.Minute)})
	for b := g0; b <= g2Item; b++ {
		c, done := s.find(cycleClass{b, 0})
		if !done || c == nil {
			t.Fatalf("%s: not found", baseNames[b])
		}
		// The G2-item search accepts any cycle with an rw edge; the
		// shortest it tries first is the G-single one.
		want := baseNames[b]
		if b == g2Item {
			want = "G-single-item"
		}
		if got := c.classify(); got != want {
			t.Errorf("%s search found %s: %+v", baseNames[b], got, c)
		}
	}
}

// TestNonadjacentSkipsAdjacentWalks checks that a cycle whose rw edges are
// adjacent is not reported as G-nonadjacent.
func TestNonadjacentSkipsAdjacentWalks(t *testing.T) {
	g := rawGraph(3, edge{0, 1, rw}, edge{1, 2, rw}, edge{2, 0, ww})
	s := newSearcher(g, &budget{ctx: context.Background(), deadline: time.Now().Add(time.Minute)})
	if c, done := s.find(cycleClass{gNonadjacent, 0}); c != nil || !done {
		t.Fatalf("found %+v (done %v)", c, done)
	}
	if c, _ := s.find(cycleClass{g2Item, 0}); c == nil || c.classify() != "G2-item" {
		t.Fatalf("G2-item search found %+v", c)
	}
}
