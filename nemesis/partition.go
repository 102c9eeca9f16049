package nemesis

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"strings"
	"sync"

	"github.com/faultline/faultline/control"
	"github.com/faultline/faultline/mesh"
)

func init() {
	register(Fault{
		Name: "partition", Inject: "start-partition", End: "stop-partition",
		Network: true, Effect: "packets, bytes or connections dropped on the cut links",
		Landing:  "each DROP rule and the INPUT jump read back right after inject, still there at the heal, their counters above 0",
		Needs:    []string{"iptables", "root"},
		Evidence: &Decl{Kind: "iptables_drops", Min: 1},
		Plan: &PlanPhrases{Phrases: "partition, iptables DROP, isolating", Target: "spec", Rank: 40,
			Match: regexp.MustCompile(`(?i)\bpartition\w*\b|\biptables\s+DROP\b|\bisolat(?:e|es|ed|ing|ion)\b`)},
		Validate: validateGrudgeSpec,
		inject: onMesh((*Worker).meshPartition, func(w *Worker, ctx context.Context, v any) (outcome, error) {
			return w.startPartition(ctx, v)
		}),
		end: onMesh(func(w *Worker, ctx context.Context, m *mesh.Mesh, _ any) (outcome, error) {
			return w.meshHealPartition(ctx, m)
		}, func(w *Worker, ctx context.Context, _ any) (outcome, error) {
			return w.stopPartition(ctx)
		}),
		open: func(w *Worker) bool { return w.partition != nil },
	})
}

// validateGrudgeSpec checks a start-partition value: a spec name
// (ComputeGrudge) or a {node: [peers it drops]} map.
func validateGrudgeSpec(v any) error {
	switch v := v.(type) {
	case nil, string:
	case map[string]any:
		for node, peers := range v {
			if _, ok := peers.([]any); !ok {
				return fmt.Errorf("spec[%q] must be a list of nodes it drops", node)
			}
		}
	default:
		return fmt.Errorf("spec must be a name such as \"majority\" or a {node: [peers]} map, got %T", v)
	}
	return nil
}

// grudgeOf resolves a start-partition value: a spec name or an explicit
// {node: [peers it drops]} map.
func (w *Worker) grudgeOf(ctx context.Context, v any) (Grudge, error) {
	switch v := v.(type) {
	case nil:
		return ComputeGrudge("majority", w.nodes, w.rng, nil)
	case string:
		var prim []string
		if v == "primaries" {
			p, err := w.primaries(ctx)
			if err != nil {
				return nil, err
			}
			prim = p
		}
		return ComputeGrudge(v, w.nodes, w.rng, prim)
	case map[string]any:
		g := map[string][]string{}
		for node, peers := range v {
			list, ok := peers.([]any)
			if !ok {
				return nil, fmt.Errorf("partition: peers of %s: want a list, got %T", node, peers)
			}
			for _, p := range list {
				s, ok := p.(string)
				if !ok {
					return nil, fmt.Errorf("partition: peer %v of %s is not a node name", p, node)
				}
				g[node] = append(g[node], s)
			}
		}
		return ExplicitGrudge(w.nodes, g)
	}
	return nil, fmt.Errorf("partition: want a spec name or a {node: [peers]} map, got %T", v)
}

func (w *Worker) startPartition(ctx context.Context, v any) (outcome, error) {
	if w.partition != nil {
		return outcome{value: v}, fmt.Errorf("start-partition: a partition is already active; stop it first")
	}
	g, err := w.grudgeOf(ctx, v)
	if err != nil {
		return outcome{value: v}, err
	}
	w.partition = g
	res := outcome{value: g.Value(), applied: true}
	landed := newVerdict()
	res.evidence, err = w.eachNode(ctx, g.victims(), func(node string, r control.Remote) (any, error) {
		ctl, err := w.controller(ctx, node, r)
		if err != nil {
			return nil, err
		}
		ips, err := w.addrsOf(ctx, g[node])
		if err != nil {
			return nil, err
		}
		out, err := runScript(ctx, r, "partition: drop "+strings.Join(g[node], ","), dropScript, append([]string{ctl, PartitionChain, ""}, ips...)...)
		if err != nil {
			landed.fail()
			return nil, err
		}
		st, err := ParseChain(out)
		if err != nil {
			landed.fail()
			return nil, fmt.Errorf("node %s: %w", node, err)
		}
		ev, ok := ruleEvidence(st, g[node], ips)
		if !ok {
			landed.fail()
		}
		return ev, nil
	})
	res.landed = landed.ok() && err == nil
	return res, err
}

func (w *Worker) stopPartition(ctx context.Context) (outcome, error) {
	g := w.partition
	if g == nil {
		return outcome{value: map[string]any{}, landed: false}, fmt.Errorf("stop-partition: no partition is active")
	}
	// Each victim probes the peers it cuts: their replies, or the requests
	// where the peer cuts the victim too, meet faultline's DROP rules.
	to := map[string][]string{}
	for _, node := range g.victims() {
		to[node], _ = w.addrsOf(ctx, g[node]) // an unresolvable peer fails the flush below, naming it
	}
	sys, sent := w.probeChain(ctx, PartitionChain, g.victims(), to, probeCount(0))
	res, err := w.flushChain(ctx, PartitionChain, g.victims(), func(node string) ([]string, error) {
		return w.addrsOf(ctx, g[node])
	}, g)
	attachProbe(&res, sys, sent)
	w.partition = nil
	res.value = g.Value()
	return res, err
}

// flushChain reads chain's counters on targets, checks every expected rule
// was still there, empties the chain and reads it back empty.
func (w *Worker) flushChain(ctx context.Context, chain string, targets []string, expect func(node string) ([]string, error), g Grudge) (outcome, error) {
	landed, healed, effect := newVerdict(), newVerdict(), &counter{}
	ev, err := w.eachNode(ctx, targets, func(node string, r control.Remote) (any, error) {
		ips, err := expect(node)
		if err != nil {
			return nil, err
		}
		out, err := runScript(ctx, r, "heal: flush "+chain, flushScript, chain)
		if err != nil {
			healed.fail()
			return nil, err
		}
		st, err := ParseChain(out)
		if err != nil {
			healed.fail()
			return nil, fmt.Errorf("node %s: %w", node, err)
		}
		var peers []string
		if g != nil {
			peers = g[node]
		}
		ev, ok := ruleEvidence(st, peers, ips)
		if !ok {
			landed.fail()
		}
		effect.add(st.Drops())
		after, err := runScript(ctx, r, "verify healed: read "+chain, readScript, chain)
		if err != nil {
			healed.fail()
			return ev, err
		}
		ast, err := ParseChain(after)
		if err != nil || len(ast.Rules) > 0 {
			healed.fail()
		}
		ev["rules_after_heal"] = int64(len(ast.Rules))
		return ev, nil
	})
	h := healed.ok() && err == nil
	// The DROP counters are the effect: packets of the cut traffic that
	// actually arrived and were dropped while the rules stood.
	n := effect.total()
	return outcome{evidence: ev, landed: landed.ok(), healed: &h, effect: &n}, err
}

// ruleEvidence describes a chain read back from a node and reports whether
// it holds a DROP for every expected source (or, with no sources expected,
// at least one DROP rule) and INPUT jumps to faultline.
func ruleEvidence(st ChainState, peers, ips []string) (map[string]any, bool) {
	ok := st.Jumped
	var missing []any
	for i, ip := range ips {
		if !st.hasDrop(ip) {
			ok = false
			missing = append(missing, peers[i])
		}
	}
	if len(ips) == 0 && st.Drops() == 0 && !hasTarget(st, "DROP") {
		ok = false
		missing = append(missing, "statistic DROP rule")
	}
	ev := map[string]any{
		"jump":  st.Jumped,
		"rules": int64(len(st.Rules)),
		"drops": st.Drops(),
	}
	if len(missing) > 0 {
		ev["missing"] = missing
	}
	return ev, ok
}

func hasTarget(st ChainState, target string) bool {
	for _, r := range st.Rules {
		if r.Target == target {
			return true
		}
	}
	return false
}

// victims are the nodes that drop something, in no particular order.
func (g Grudge) victims() []string {
	out := make([]string, 0, len(g))
	for node, peers := range g {
		if len(peers) > 0 {
			out = append(out, node)
		}
	}
	return out
}

func (w *Worker) addrsOf(ctx context.Context, nodes []string) ([]string, error) {
	out := make([]string, len(nodes))
	for i, n := range nodes {
		a, err := w.addr(ctx, n)
		if err != nil {
			return nil, err
		}
		out[i] = a
	}
	return out, nil
}

// counter sums a count that node steps running in parallel add to.
type counter struct {
	mu sync.Mutex
	n  int64
}

func (c *counter) add(n int64) {
	c.mu.Lock()
	c.n = min(c.n+max(n, 0), math.MaxInt64-1) // saturate rather than wrap
	c.mu.Unlock()
}

func (c *counter) total() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

// verdict is a flag that starts true and that node steps running in
// parallel may clear.
type verdict struct {
	mu     sync.Mutex
	failed bool
}

func newVerdict() *verdict { return &verdict{} }

func (v *verdict) fail() {
	v.mu.Lock()
	v.failed = true
	v.mu.Unlock()
}

func (v *verdict) ok() bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	return !v.failed
}
