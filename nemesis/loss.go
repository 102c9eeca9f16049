package nemesis

import (
	"context"
	"fmt"
	"regexp"
	"strconv"

	"github.com/faultline/faultline/control"
)

func init() {
	register(Fault{
		Name: "loss", Inject: "start-loss", End: "stop-loss",
		Network: true, Effect: "packets or connections dropped",
		Landing:  "the statistic DROP rule read back after inject and still there at the heal, its counters above 0",
		Needs:    []string{"iptables", "root"},
		Evidence: &Decl{Kind: "op_errors", Min: 1, DuringFault: true},
		Plan: &PlanPhrases{Phrases: "packet loss N%, N% packet loss", Target: "nodes", Rank: 30,
			Match: regexp.MustCompile(`(?i)\bpacket[- ]loss\b|\bloss\s+\d+(?:\.\d+)?\s*%`)},
		Validate: func(v any) error {
			m, _ := v.(map[string]any)
			_, err := probability(m["probability"])
			return err
		},
		inject: onMesh(shapeStep("loss"), func(w *Worker, ctx context.Context, v any) (outcome, error) { return w.startLoss(ctx, v) }),
		end:    onMesh(unshapeStep("loss"), func(w *Worker, ctx context.Context, _ any) (outcome, error) { return w.stopLoss(ctx) }),
		open: func(w *Worker) bool {
			if w.mesh() != nil {
				_, on := w.shapedBy["loss"]
				return on
			}
			return w.loss != nil
		},
	})
}

// startLoss drops a random fraction of the packets the target nodes receive
// (iptables statistic; the controller's packets are exempt). Value:
// {"nodes": node spec, "probability": 0 < p <= 1}.
func (w *Worker) startLoss(ctx context.Context, v any) (outcome, error) {
	if w.loss != nil {
		return outcome{value: v}, fmt.Errorf("start-loss: loss is already active; stop it first")
	}
	m, _ := v.(map[string]any)
	prob, err := probability(m["probability"])
	if err != nil {
		return outcome{value: v}, err
	}
	targets, err := w.targets(ctx, "loss", m["nodes"])
	if err != nil {
		return outcome{value: v}, err
	}
	w.loss, w.lossProb = targets, prob
	p := strconv.FormatFloat(prob, 'f', -1, 64)
	landed := newVerdict()
	ev, err := w.eachNode(ctx, targets, func(node string, r control.Remote) (any, error) {
		ctl, err := w.controller(ctx, node, r)
		if err != nil {
			return nil, err
		}
		out, err := runScript(ctx, r, "loss: drop "+p+" of input", dropScript, ctl, LossChain, p)
		if err != nil {
			landed.fail()
			return nil, err
		}
		st, err := ParseChain(out)
		if err != nil {
			landed.fail()
			return nil, fmt.Errorf("node %s: %w", node, err)
		}
		e, ok := ruleEvidence(st, nil, nil)
		if !ok {
			landed.fail()
		}
		return e, nil
	})
	val := map[string]any{"nodes": strs(targets), "probability": prob}
	return outcome{value: val, evidence: ev, landed: landed.ok() && err == nil, applied: true}, err
}

func (w *Worker) stopLoss(ctx context.Context) (outcome, error) {
	targets := w.loss
	if targets == nil {
		return outcome{value: map[string]any{}}, fmt.Errorf("stop-loss: no loss is active")
	}
	// Each target pings the other nodes: the replies into it meet the
	// random DROP, enough of them that one is dropped but for odds below
	// one in a million.
	var sys int64
	var sent map[string]any
	if to, err := w.otherAddrs(ctx, targets); err == nil {
		sys, sent = w.probeChain(ctx, LossChain, targets, to, probeCount(w.lossProb))
	}
	res, err := w.flushChain(ctx, LossChain, targets, func(string) ([]string, error) { return nil, nil }, nil)
	attachProbe(&res, sys, sent)
	w.loss = nil
	res.value = map[string]any{"nodes": strs(targets)}
	return res, err
}

// primariesFor asks for primaries only when spec needs them.
func (w *Worker) primariesFor(ctx context.Context, spec any) ([]string, error) {
	if s, ok := spec.(string); ok && s == "primaries" {
		return w.primaries(ctx)
	}
	return nil, nil
}

func probability(v any) (float64, error) {
	var p float64
	switch v := v.(type) {
	case float64:
		p = v
	case int64:
		p = float64(v)
	default:
		return 0, fmt.Errorf("loss: probability %v: want a number in (0, 1]", v)
	}
	if !(p > 0 && p <= 1) {
		return 0, fmt.Errorf("loss: probability %v is outside (0, 1]", p)
	}
	return p, nil
}
