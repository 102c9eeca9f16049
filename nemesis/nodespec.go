package nemesis

import (
	"fmt"
	"math/rand/v2"
	"slices"
)

// ResolveNodes picks the targets of a fault from a node spec: "one",
// "minority", "minority-third" (fewer than a third, at least one),
// "majority", "primaries", "all", or an explicit list of node
// names ([]string or []any of strings). rng picks random members; primaries
// answers the "primaries" spec. The result keeps the pool's node order.
func ResolveNodes(spec any, nodes []string, rng *rand.Rand, primaries []string) ([]string, error) {
	if len(nodes) == 0 {
		return nil, fmt.Errorf("node spec %v: no nodes", spec)
	}
	pick := func(k int) []string {
		s := slices.Clone(nodes)
		rng.Shuffle(len(s), func(i, j int) { s[i], s[j] = s[j], s[i] })
		return inOrder(nodes, s[:k])
	}
	switch v := spec.(type) {
	case nil:
		return pick(1), nil
	case string:
		switch v {
		case "one", "":
			return pick(1), nil
		case "minority":
			return pick(max(1, (len(nodes)-1)/2)), nil
		case "minority-third":
			return pick(max(1, (len(nodes)-1)/3)), nil
		case "majority":
			return pick(len(nodes)/2 + 1), nil
		case "all":
			return slices.Clone(nodes), nil
		case "primaries":
			if len(primaries) == 0 {
				return nil, fmt.Errorf("node spec %q: the database named no primaries", v)
			}
			return checkNames(nodes, primaries)
		}
		if slices.Contains(nodes, v) {
			return []string{v}, nil
		}
		return nil, fmt.Errorf("unknown node spec %q (want one, minority, minority-third, majority, primaries, all, a node name or a list)", v)
	case []string:
		return checkNames(nodes, v)
	case []any:
		names := make([]string, 0, len(v))
		for _, x := range v {
			s, ok := x.(string)
			if !ok {
				return nil, fmt.Errorf("node spec list: %v is not a node name", x)
			}
			names = append(names, s)
		}
		return checkNames(nodes, names)
	}
	return nil, fmt.Errorf("node spec %v (%T): want a name such as \"one\" or a list of nodes", spec, spec)
}

func checkNames(nodes, names []string) ([]string, error) {
	if len(names) == 0 {
		return nil, fmt.Errorf("node spec: empty list")
	}
	for _, n := range names {
		if !slices.Contains(nodes, n) {
			return nil, fmt.Errorf("node spec: %q is not a node", n)
		}
	}
	return inOrder(nodes, names), nil
}

// inOrder returns the members of pick in the order of nodes, once each.
func inOrder(nodes, pick []string) []string {
	out := make([]string, 0, len(pick))
	for _, n := range nodes {
		if slices.Contains(pick, n) {
			out = append(out, n)
		}
	}
	return out
}
