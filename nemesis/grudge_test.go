package nemesis

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

var five = []string{"n1", "n2", "n3", "n4", "n5"}

// components returns, for a symmetric grudge, who can reach whom.
func reachCount(g Grudge, nodes []string, a string) int {
	n := 0
	for _, b := range nodes {
		if a != b && g.Reachable(a, b) {
			n++
		}
	}
	return n
}

func TestComputeGrudgeShapes(t *testing.T) {
	tests := []struct {
		spec  string
		nodes []string
		// check is the property the spec promises.
		check func(t *testing.T, g Grudge)
	}{
		{"one", five, func(t *testing.T, g Grudge) {
			isolated := 0
			for _, n := range five {
				if reachCount(g, five, n) == 0 {
					isolated++
				} else if reachCount(g, five, n) != 3 {
					t.Errorf("%s reaches %d, want 3", n, reachCount(g, five, n))
				}
			}
			if isolated != 1 {
				t.Errorf("%d isolated, want 1", isolated)
			}
		}},
		{"majority", five, func(t *testing.T, g Grudge) {
			counts := map[int]int{}
			for _, n := range five {
				counts[reachCount(g, five, n)]++
			}
			if !reflect.DeepEqual(counts, map[int]int{2: 3, 1: 2}) {
				t.Errorf("reach counts %v, want three nodes seeing 2 and two seeing 1", counts)
			}
		}},
		{"minority", five, func(t *testing.T, g Grudge) {
			counts := map[int]int{}
			for _, n := range five {
				counts[reachCount(g, five, n)]++
			}
			if !reflect.DeepEqual(counts, map[int]int{0: 2, 2: 3}) {
				t.Errorf("reach counts %v, want two isolated and three seeing each other", counts)
			}
		}},
		{"minority-third", five, func(t *testing.T, g Grudge) {
			counts := map[int]int{}
			for _, n := range five {
				counts[reachCount(g, five, n)]++
			}
			if !reflect.DeepEqual(counts, map[int]int{0: 1, 3: 4}) {
				t.Errorf("reach counts %v, want one isolated", counts)
			}
		}},
		{"halves", five, func(t *testing.T, g Grudge) {
			want := Grudge{"n1": {"n3", "n4", "n5"}, "n2": {"n3", "n4", "n5"},
				"n3": {"n1", "n2"}, "n4": {"n1", "n2"}, "n5": {"n1", "n2"}}
			if !reflect.DeepEqual(g, want) {
				t.Errorf("got %v, want %v", g, want)
			}
		}},
		{"random-halves", five, func(t *testing.T, g Grudge) {
			counts := map[int]int{}
			for _, n := range five {
				counts[reachCount(g, five, n)]++
			}
			if !reflect.DeepEqual(counts, map[int]int{1: 2, 2: 3}) {
				t.Errorf("reach counts %v", counts)
			}
		}},
		{"majorities-ring", five, func(t *testing.T, g Grudge) {
			seen := map[string]bool{}
			for _, n := range five {
				if c := reachCount(g, five, n); c != 2 {
					t.Errorf("%s sees %d others, want 2 (a majority with itself)", n, c)
				}
				var maj []string
				for _, b := range five {
					if b == n || g.Reachable(n, b) {
						maj = append(maj, b)
					}
				}
				seen[join(maj)] = true
			}
			if len(seen) != 5 {
				t.Errorf("%d distinct majorities, want 5", len(seen))
			}
		}},
		{"bridge", five, func(t *testing.T, g Grudge) {
			bridges := 0
			for _, n := range five {
				if reachCount(g, five, n) == 4 {
					bridges++
				}
			}
			if bridges != 1 {
				t.Errorf("%d bridge nodes, want 1: %v", bridges, g)
			}
		}},
		{"one-way", five, func(t *testing.T, g Grudge) {
			if len(g) != 1 {
				t.Fatalf("one-way: %d nodes drop, want 1: %v", len(g), g)
			}
			for victim, peers := range g {
				if len(peers) != 4 {
					t.Errorf("%s drops %v, want all 4 others", victim, peers)
				}
				for _, p := range peers {
					if g.Cut(victim, p) {
						t.Errorf("%s's packets to %s are dropped; one-way must let them through", victim, p)
					}
				}
			}
		}},
		{"primaries", five, func(t *testing.T, g Grudge) {
			if reachCount(g, five, "n2") != 0 || reachCount(g, five, "n1") != 3 {
				t.Errorf("primary n2 not isolated: %v", g)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			for seed := range uint64(20) {
				g, err := ComputeGrudge(tt.spec, tt.nodes, rand.New(rand.NewPCG(seed, 1)), []string{"n2"})
				if err != nil {
					t.Fatal(err)
				}
				for node, peers := range g {
					if slices.Contains(peers, node) {
						t.Fatalf("%s drops itself: %v", node, g)
					}
				}
				tt.check(t, g)
			}
		})
	}
}

func join(s []string) string {
	out := ""
	for _, x := range s {
		out += x + ","
	}
	return out
}

func TestComputeGrudgeErrors(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	tests := []struct {
		spec  string
		nodes []string
		prim  []string
	}{
		{"majority", []string{"n1"}, nil},
		{"bridge", []string{"n1", "n2"}, nil},
		{"primaries", five, nil},
		{"primaries", five, []string{"n9"}},
		{"sideways", five, nil},
	}
	for _, tt := range tests {
		if g, err := ComputeGrudge(tt.spec, tt.nodes, r, tt.prim); err == nil {
			t.Errorf("%s over %v (primaries %v): got %v, want an error", tt.spec, tt.nodes, tt.prim, g)
		}
	}
}

func TestExplicitGrudge(t *testing.T) {
	tests := []struct {
		in      map[string][]string
		want    Grudge
		wantErr bool
	}{
		{map[string][]string{"n1": {"n3", "n2", "n3"}}, Grudge{"n1": {"n2", "n3"}}, false},
		{map[string][]string{"n1": {}}, Grudge{}, false},
		{map[string][]string{"n9": {"n1"}}, nil, true},
		{map[string][]string{"n1": {"n9"}}, nil, true},
		{map[string][]string{"n1": {"n1"}}, nil, true},
	}
	for _, tt := range tests {
		got, err := ExplicitGrudge(five, tt.in)
		if (err != nil) != tt.wantErr || !tt.wantErr && !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ExplicitGrudge(%v) = %v, %v; want %v (error %v)", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestResolveNodes(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	tests := []struct {
		spec    any
		n       int
		want    []string
		wantErr bool
	}{
		{"one", 1, nil, false},
		{nil, 1, nil, false},
		{"minority", 2, nil, false},
		{"majority", 3, nil, false},
		{"all", 5, five, false},
		{"primaries", 1, []string{"n4"}, false},
		{"n3", 1, []string{"n3"}, false},
		{[]any{"n5", "n1"}, 2, []string{"n1", "n5"}, false},
		{[]string{"n2"}, 1, []string{"n2"}, false},
		{[]any{"n1", int64(2)}, 0, nil, true},
		{[]any{}, 0, nil, true},
		{"n9", 0, nil, true},
		{int64(3), 0, nil, true},
	}
	for _, tt := range tests {
		got, err := ResolveNodes(tt.spec, five, r, []string{"n4"})
		if (err != nil) != tt.wantErr {
			t.Errorf("ResolveNodes(%v): error %v, want error %v", tt.spec, err, tt.wantErr)
			continue
		}
		if tt.wantErr {
			continue
		}
		if len(got) != tt.n || tt.want != nil && !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ResolveNodes(%v) = %v, want %d nodes %v", tt.spec, got, tt.n, tt.want)
		}
	}
}

func FuzzResolveNodes(f *testing.F) {
	for _, s := range []string{"one", "minority", "majority", "all", "primaries", "n1", "", "x"} {
		f.Add(s, uint64(1))
	}
	f.Fuzz(func(t *testing.T, spec string, seed uint64) {
		got, err := ResolveNodes(spec, five, rand.New(rand.NewPCG(seed, 0)), nil)
		if err != nil {
			return
		}
		if len(got) == 0 || len(got) > len(five) {
			t.Fatalf("%q resolved to %v", spec, got)
		}
	})
}

func FuzzComputeGrudge(f *testing.F) {
	for _, s := range GrudgeSpecs {
		f.Add(s, uint64(1), 5)
	}
	f.Fuzz(func(t *testing.T, spec string, seed uint64, n int) {
		n = n%12 + 1
		if n < 1 {
			n += 12
		}
		nodes := five[:0:0]
		for i := range n {
			nodes = append(nodes, "n"+string(rune('a'+i)))
		}
		g, err := ComputeGrudge(spec, nodes, rand.New(rand.NewPCG(seed, 0)), nodes[:1])
		if err != nil {
			return
		}
		for node, peers := range g {
			if slices.Contains(peers, node) || !slices.Contains(nodes, node) {
				t.Fatalf("%s over %d nodes: bad grudge %v", spec, n, g)
			}
		}
	})
}

func TestTCTime(t *testing.T) {
	for in, want := range map[string]bool{"50ms": true, "1s": true, "0.5s": true, "200us": true,
		"": false, "ms": false, "5": false, "5m": false, "5mss": false, "-5ms": false, "5 ms": false} {
		if got := tcTime(in); got != want {
			t.Errorf("tcTime(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestPartitionShape(t *testing.T) {
	nodes := []string{"n1", "n2", "n3", "n4", "n5"}
	v := func(g Grudge) any { return g.Value() }
	tests := []struct {
		name string
		v    any
		want string
	}{
		{"halves", v(complete(nodes, [][]string{{"n1", "n2"}, {"n3", "n4", "n5"}})), ShapeSymmetric},
		{"one node isolated", v(complete(nodes, [][]string{{"n1"}, {"n2", "n3", "n4", "n5"}})), ShapeSymmetric},
		{"one-way", v(Grudge{"n1": {"n2", "n3"}}), ShapeAsymmetric},
		{"bridge", v(Grudge{"n1": {"n4", "n5"}, "n2": {"n4", "n5"}, "n4": {"n1", "n2"}, "n5": {"n1", "n2"}}), ShapeAsymmetric},
		{"as read back from JSON", map[string]any{"n1": []any{"n2", "n3", "n4", "n5"}, "n2": []any{"n1"}, "n3": []any{"n1"}, "n4": []any{"n1"}, "n5": []any{"n1"}}, ShapeSymmetric},
		{"two cut off from each other, both talking to the rest", map[string]any{"n1": []any{"n2"}, "n2": []any{"n1"}}, ShapeAsymmetric},
		{"not a grudge", "majority", ""},
		{"empty", map[string]any{}, ""},
	}
	for _, tt := range tests {
		if got := PartitionShape(tt.v, nodes); got != tt.want {
			t.Errorf("%s: PartitionShape = %q, want %q", tt.name, got, tt.want)
		}
	}
}
