package nemesis

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
)

// Grudge maps a node to the peers whose packets it drops. It is directional:
// a one-way partition lists b under a but not a under b.
type Grudge map[string][]string

// Grudge specs accepted by ComputeGrudge.
var GrudgeSpecs = []string{"one", "majority", "minority", "minority-third", "halves", "random-halves",
	"majorities-ring", "bridge", "one-way", "primaries"}

// ComputeGrudge turns a named partition spec over nodes into a grudge. rng
// picks victims (specs other than halves are randomised); primaries names the
// database's current leaders for the "primaries" spec. Specs:
//
//	one              one random node cut off from all others
//	majority         a random majority and the remaining minority cannot talk
//	minority         each node of a random minority is cut off on its own
//	minority-third   as minority, with fewer than a third of the nodes
//	halves           the first half of the node list against the second
//	random-halves    halves of a shuffled node list
//	majorities-ring  every node sees a majority, but no two the same one
//	bridge           two halves, and one node that talks to both
//	one-way          one random node drops what others send; they accept its packets
//	primaries        the primaries cut off from everyone (and each other)
func ComputeGrudge(spec string, nodes []string, rng *rand.Rand, primaries []string) (Grudge, error) {
	if len(nodes) < 2 {
		return nil, fmt.Errorf("partition %q needs at least 2 nodes, have %d", spec, len(nodes))
	}
	shuffled := slices.Clone(nodes)
	rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	n := len(nodes)
	switch spec {
	case "one":
		return complete(nodes, [][]string{shuffled[:1], shuffled[1:]}), nil
	case "majority":
		m := n/2 + 1
		return complete(nodes, [][]string{shuffled[:m], shuffled[m:]}), nil
	case "minority":
		return isolateEach(nodes, shuffled[:(n-1)/2]), nil
	case "minority-third":
		return isolateEach(nodes, shuffled[:max(1, (n-1)/3)]), nil
	case "halves":
		return complete(nodes, [][]string{nodes[:n/2], nodes[n/2:]}), nil
	case "random-halves":
		return complete(nodes, [][]string{shuffled[:n/2], shuffled[n/2:]}), nil
	case "majorities-ring":
		return majoritiesRing(shuffled), nil
	case "bridge":
		return bridge(shuffled)
	case "one-way":
		victim := shuffled[0]
		return Grudge{victim: without(nodes, victim)}, nil
	case "primaries":
		if len(primaries) == 0 {
			return nil, fmt.Errorf("partition %q: the database named no primaries", spec)
		}
		for _, p := range primaries {
			if !slices.Contains(nodes, p) {
				return nil, fmt.Errorf("partition %q: primary %q is not a node", spec, p)
			}
		}
		return isolateEach(nodes, primaries), nil
	}
	return nil, fmt.Errorf("unknown partition spec %q (want one of %s, or an explicit {node: [peers]} map)",
		spec, strings.Join(GrudgeSpecs, ", "))
}

// ExplicitGrudge checks a grudge given by the scenario: every name a node,
// no node dropping itself. Peer lists are sorted and deduplicated.
func ExplicitGrudge(nodes []string, g map[string][]string) (Grudge, error) {
	out := Grudge{}
	for node, peers := range g {
		if !slices.Contains(nodes, node) {
			return nil, fmt.Errorf("partition: %q is not a node", node)
		}
		for _, p := range peers {
			if !slices.Contains(nodes, p) {
				return nil, fmt.Errorf("partition: %q (dropped by %s) is not a node", p, node)
			}
			if p == node {
				return nil, fmt.Errorf("partition: node %s cannot drop itself", node)
			}
		}
		if len(peers) > 0 {
			s := slices.Clone(peers)
			slices.Sort(s)
			out[node] = slices.Compact(s)
		}
	}
	return out, nil
}

// Cut reports whether traffic from a to b is dropped (at b's input).
func (g Grudge) Cut(a, b string) bool { return slices.Contains(g[b], a) }

// Reachable reports whether a TCP connection between a and b can be made:
// it needs packets both ways.
func (g Grudge) Reachable(a, b string) bool { return !g.Cut(a, b) && !g.Cut(b, a) }

// Value renders the grudge as a history value: {node: [peers...]}.
func (g Grudge) Value() map[string]any {
	out := make(map[string]any, len(g))
	for node, peers := range g {
		out[node] = strs(peers)
	}
	return out
}

// complete makes every node drop all nodes outside its own component.
func complete(nodes []string, comps [][]string) Grudge {
	g := Grudge{}
	for _, c := range comps {
		for _, node := range c {
			var drop []string
			for _, p := range nodes {
				if !slices.Contains(c, p) {
					drop = append(drop, p)
				}
			}
			if len(drop) > 0 {
				slices.Sort(drop)
				g[node] = drop
			}
		}
	}
	return g
}

// isolateEach cuts every victim off from every other node.
func isolateEach(nodes, victims []string) Grudge {
	g := Grudge{}
	for _, node := range nodes {
		if slices.Contains(victims, node) {
			g[node] = without(nodes, node)
			continue
		}
		if len(victims) > 0 {
			g[node] = sorted(victims)
		}
	}
	return g
}

// majoritiesRing arranges the nodes in a ring; each sees itself and its
// nearest neighbours up to a majority, and drops the rest.
func majoritiesRing(ring []string) Grudge {
	n := len(ring)
	m := n/2 + 1
	g := Grudge{}
	for i, node := range ring {
		sees := map[string]bool{node: true}
		for k := 1; len(sees) < m; k++ {
			sees[ring[(i+k)%n]] = true
			if len(sees) < m {
				sees[ring[(i-k+n)%n]] = true
			}
		}
		var drop []string
		for _, p := range ring {
			if !sees[p] {
				drop = append(drop, p)
			}
		}
		slices.Sort(drop)
		if len(drop) > 0 {
			g[node] = drop
		}
	}
	// Make it symmetric: a connection needs both directions anyway, and a
	// ring where a drops b but b accepts a is one-way, not a ring.
	for a, peers := range g {
		for _, b := range peers {
			if !slices.Contains(g[b], a) {
				g[b] = append(g[b], a)
				slices.Sort(g[b])
			}
		}
	}
	return g
}

// bridge splits the nodes into two halves joined only by one node.
func bridge(shuffled []string) (Grudge, error) {
	if len(shuffled) < 3 {
		return nil, fmt.Errorf("partition %q needs at least 3 nodes, have %d", "bridge", len(shuffled))
	}
	rest := shuffled[1:] // shuffled[0] is the bridge: it drops nothing
	left, right := rest[:len(rest)/2], rest[len(rest)/2:]
	g := Grudge{}
	for _, node := range left {
		g[node] = sorted(right)
	}
	for _, node := range right {
		g[node] = sorted(left)
	}
	return g, nil
}

func without(nodes []string, x string) []string {
	out := make([]string, 0, len(nodes))
	for _, n := range nodes {
		if n != x {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

func sorted(s []string) []string {
	c := slices.Clone(s)
	slices.Sort(c)
	return c
}

// strs converts to the []any form history values use.
func strs(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

// Partition shapes PartitionShape tells apart.
const (
	ShapeSymmetric  = "symmetric"  // a clean split: components that drop each other both ways
	ShapeAsymmetric = "asymmetric" // one-way drops, or overlapping views (bridge, majorities ring)
)

// PartitionShape reads a grudge as recorded in the history ({node:
// [peers]}) over the cluster's nodes (a node the grudge does not name, a
// bridge, talks to all) and says whether it is a clean symmetric split or
// something Jepsen would call non-symmetric: a one-way cut, or reachability
// that is not transitive (a bridge node, a ring of majorities). "" when v is
// no grudge.
func PartitionShape(v any, cluster []string) string {
	g, ok := grudgeValue(v)
	if !ok {
		return ""
	}
	nodes := map[string]bool{}
	for _, n := range cluster {
		nodes[n] = true
	}
	for node, peers := range g {
		nodes[node] = true
		for _, p := range peers {
			nodes[p] = true
		}
	}
	for a := range nodes {
		for b := range nodes {
			if g.Cut(a, b) != g.Cut(b, a) {
				return ShapeAsymmetric // one way only
			}
		}
	}
	// Both ways everywhere: a clean split only if reachability is
	// transitive (a and b talk, b and c talk, so a and c must).
	for a := range nodes {
		for b := range nodes {
			for c := range nodes {
				if a != c && g.Reachable(a, b) && g.Reachable(b, c) && !g.Reachable(a, c) {
					return ShapeAsymmetric
				}
			}
		}
	}
	return ShapeSymmetric
}

// grudgeValue reads a grudge as the history holds it ({node: [peers]},
// peers as []any after JSON or []string from Go); ok is false for anything
// else, and for an empty grudge.
func grudgeValue(v any) (Grudge, bool) {
	m, ok := v.(map[string]any)
	if !ok || len(m) == 0 {
		return nil, false
	}
	g := Grudge{}
	for node, ps := range m {
		switch list := ps.(type) {
		case []string:
			g[node] = append(g[node], list...)
		case []any:
			for _, p := range list {
				s, ok := p.(string)
				if !ok {
					return nil, false
				}
				g[node] = append(g[node], s)
			}
		default:
			return nil, false
		}
	}
	return g, true
}

// Victims names a fault's victims from the value its completion returned,
// for a person watching the run: the nodes it acted on ("n1,n2"), or a
// partition's sides, smallest first ("n3 | n1,n2"); "" when the value
// names none.
func Victims(v any) string {
	// Values come from Starlark or Go; their JSON form is what the history
	// holds, so read that.
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	var generic any
	if json.Unmarshal(b, &generic) != nil {
		return ""
	}
	switch v := generic.(type) {
	case []any:
		return joinStrings(v)
	case map[string]any:
		if nodes, ok := v["nodes"].([]any); ok {
			return joinStrings(nodes)
		}
		if g, ok := grudgeValue(v); ok {
			return g.sides()
		}
	}
	return ""
}

// sides renders the grudge's components, nodes that still hear each other
// both ways grouped, smallest first: "n3 | n1,n2"; "" when nothing is cut.
func (g Grudge) sides() string {
	var nodes []string
	for n := range g {
		nodes = append(nodes, n)
	}
	slices.Sort(nodes)
	var sides [][]string
	for _, n := range nodes {
		joined := -1
		for i, members := range sides {
			if g.Reachable(n, members[0]) {
				joined = i
				break
			}
		}
		if joined < 0 {
			joined = len(sides)
			sides = append(sides, nil)
		}
		sides[joined] = append(sides[joined], n)
	}
	if len(sides) < 2 {
		return ""
	}
	slices.SortStableFunc(sides, func(a, b []string) int { return len(a) - len(b) })
	out := make([]string, len(sides))
	for i, s := range sides {
		out[i] = strings.Join(s, ",")
	}
	return strings.Join(out, " | ")
}

func joinStrings(vs []any) string {
	var out []string
	for _, v := range vs {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	return strings.Join(out, ",")
}
