package check

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/faultline/faultline/history"
)

func init() {
	Register(Spec{
		Name:    "replicas",
		NoModel: "faultline check has no flag for the final read of each replica (final=)",
		Plan:    []string{"replica-reconciliation"},
		Oracle:  "replica-reconciliation",
		Mutants: []string{"replicas"},
	})
}

// ReplicasOptions configures Replicas.
type ReplicasOptions struct {
	Final string // the function of each replica's dump; default "dump"
}

// Replicas returns a replica-reconciliation checker: after forced quiescence
// each replica's last ok :dump (Final) must equal every other's. The replica
// is the op's Node (completion, then invocation), else Op.Extra["node"]. Map
// dumps are compared key by key so the explanation names the keys that
// diverge. Fewer than two replicas dumped is unknown.
func Replicas(o ReplicasOptions) Checker {
	if o.Final == "" {
		o.Final = "dump"
	}
	return replicas{o: o}
}

type replicas struct{ o ReplicasOptions }

// Name implements Checker.
func (replicas) Name() string { return "replicas" }

// String describes the checker as it would be written in a scenario.
func (c replicas) String() string { return fmt.Sprintf("check.replicas(final=%q)", c.o.Final) }

// nodeOf names the replica an op read from.
func nodeOf(op clientOp) (string, bool) {
	if op.comp != nil && op.comp.Node != "" {
		return op.comp.Node, true
	}
	if op.inv.Node != "" {
		return op.inv.Node, true
	}
	if v, ok := extraField(op, "node"); ok {
		return history.KeyText(v), true
	}
	return "", false
}

// Check implements Checker.
func (c replicas) Check(_ context.Context, h []history.Op, _ Env) Result {
	blind := []string{
		"dumps taken before the convergence window closed can differ, or agree, by timing alone",
		"equal dumps can still all be wrong: pair with no-lost-ack or a final-state invariant",
	}
	ops, err := clientOps(h)
	if err != nil {
		return cannotCheck(c.Name(), err, blind)
	}
	dumps := map[string]clientOp{}
	unnamed := 0
	for _, op := range ops {
		if op.inv.F != c.o.Final || op.outcome() != history.OK {
			continue
		}
		n, ok := nodeOf(op)
		if !ok {
			unnamed++
			continue
		}
		if d, seen := dumps[n]; !seen || op.compAt > d.compAt {
			dumps[n] = op
		}
	}
	if len(dumps) == 0 {
		return nothingToCheck(c.Name(), fmt.Sprintf("no ok :%s naming its node (%d without a node)", c.o.Final, unnamed), blind)
	}
	nodes := make([]string, 0, len(dumps))
	keys := keyCounter{}
	for n, d := range dumps {
		nodes = append(nodes, n)
		if m, ok := d.comp.Value.(map[string]any); ok {
			for k := range m {
				keys.add(k)
			}
		}
	}
	sort.Strings(nodes)
	res := Result{Checker: c.Name(), Valid: Valid, Consumed: Consumed{Ops: len(dumps), Keys: len(keys)}, BlindSpots: blind,
		Details: map[string]any{"replicas": nodes, "without_node": unnamed}}
	if len(nodes) < 2 {
		res.Valid = Unknown
		res.Summary = fmt.Sprintf("unknown: only replica %s dumped its state; reconciliation needs two", nodes[0])
		return res
	}
	ref := dumps[nodes[0]].comp.Value
	var diffs []string
	for _, n := range nodes[1:] {
		if d := diffStates(ref, dumps[n].comp.Value); d != "" {
			diffs = append(diffs, fmt.Sprintf("%s vs %s: %s", nodes[0], n, d))
		}
	}
	res.Summary = fmt.Sprintf("%d replicas (%s) hold equal final states", len(nodes), strings.Join(nodes, ", "))
	if len(diffs) > 0 {
		res.Valid = Invalid
		res.Summary = fmt.Sprintf("%d of %d replicas diverge from %s; first: %s", len(diffs), len(nodes)-1, nodes[0], diffs[0])
		res.Details["divergent"] = diffs
		res.Explanation = "Replica final states must be equal after quiescence:\n  " + strings.Join(diffs, "\n  ") + "\n"
	}
	return res
}

// diffStates describes how b differs from a, or "" when they are equal.
func diffStates(a, b any) string {
	if history.Equal(a, b) {
		return ""
	}
	ma, okA := a.(map[string]any)
	mb, okB := b.(map[string]any)
	if !okA || !okB {
		return truncate(formatValue(a), 200) + " vs " + truncate(formatValue(b), 200)
	}
	var ks []string
	for k, va := range ma {
		if vb, ok := mb[k]; !ok || !history.Equal(va, vb) {
			ks = append(ks, k)
		}
	}
	for k := range mb {
		if _, ok := ma[k]; !ok {
			ks = append(ks, k)
		}
	}
	sort.Strings(ks)
	parts := make([]string, 0, min(len(ks), 10))
	for i, k := range ks {
		if i == 10 {
			parts = append(parts, fmt.Sprintf("... %d more keys", len(ks)-10))
			break
		}
		va, vb := "absent", "absent"
		if v, ok := ma[k]; ok {
			va = truncate(formatValue(v), 80)
		}
		if v, ok := mb[k]; ok {
			vb = truncate(formatValue(v), 80)
		}
		parts = append(parts, fmt.Sprintf("%s %s/%s", k, va, vb))
	}
	return fmt.Sprintf("%d keys differ: %s", len(ks), strings.Join(parts, ", "))
}
