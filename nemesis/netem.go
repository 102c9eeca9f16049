package nemesis

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// netem is the full set of Linux's netem on the victims' cluster interface
// (nemesis.netem): delay with jitter, loss, reordering, duplication,
// corruption and a rate, in one qdisc marked as faultline's (never
// replacing a qdisc the node configured itself). It needs the nodes' own
// kernels with netem (VM nodes; the netns nodes share a host kernel that
// may lack it, and local nodes' proxy mesh can do none of reorder,
// duplicate or corrupt): elsewhere it fails with a missing capability.
// Landing is the qdisc read back with every asked parameter after inject;
// its effect is the packets it passed (tc -s) when removed.
func init() {
	register(Fault{
		Name: "netem", Inject: "start-netem", End: "stop-netem",
		Network: true, Effect: "packets through netem",
		Landing: "the netem qdisc read back on each victim's cluster interface with every parameter asked for, and packets through it (tc -s) when removed",
		Needs:   []string{"tc-netem", "root"},
		// A plan with no landing field of its own gets the read-back
		// above as its evidence (spec §5).
		Evidence: &Decl{Kind: "landed", Min: 1},
		// Before loss (rank 30): "packet loss 30%" stays the loss fault,
		// which works everywhere, but a clause that asks for something
		// only netem does (reordering, duplication, corruption, jitter, a
		// rate limit, or netem by name) is netem, its loss included.
		Plan: &PlanPhrases{Phrases: "netem, packet reordering, reorder N%, duplicate packets N%, packet duplication, corrupt packets, packet corruption, jitter, rate limit 1mbit",
			Target: "nodes", Rank: 25, Match: netemPhrase},
		Validate: func(v any) error {
			_, err := netemArgs(v)
			return err
		},
		inject: func(w *Worker, ctx context.Context, v any) (outcome, error) { return w.startNetem(ctx, v) },
		end:    func(w *Worker, ctx context.Context, _ any) (outcome, error) { return w.stopQdisc(ctx, "netem") },
		open:   func(w *Worker) bool { return w.shaped != nil && w.shapedKind == "netem" },
	})
}

// netemPhrase matches a plan clause that asks for what only netem does:
// netem by name, jitter (also as "50ms ± 10ms"), a rate limit, and
// reordering, duplication or corruption said of packets or with a
// percentage, so "reordered writes" or "corrupt the WAL" are not netem.
var netemPhrase = func() *regexp.Regexp {
	alts := []string{`\bnetem\b`, `\bjitter\b`, `\brate[- ]limit\w*`, `\d\s*(?:ms|s|us)\s*(?:±|\+/-)\s*\d`}
	for _, stem := range []string{`reorder\w*`, `duplicat\w*`, `corrupt\w*`} {
		alts = append(alts, `\b`+stem+`\s+(?:of\s+)?(?:\d+(?:\.\d+)?\s*%\s+(?:of\s+)?)?(?:the\s+)?packets?\b`,
			`\bpackets?\s+`+stem, `\b`+stem+`\s+\d+(?:\.\d+)?\s*%`, `\d+(?:\.\d+)?\s*%\s+(?:of\s+)?(?:packets?\s+)?`+stem)
	}
	return regexp.MustCompile(`(?i)` + strings.Join(alts, "|"))
}()

// netemArgs turns a start-netem value into tc netem's arguments, checked:
// times such as "50ms", probabilities in (0, 1], a tc rate ("1mbit").
// Reordering needs a delay (netem reorders by sending some packets at once
// while the rest wait); at least one parameter must be given.
func netemArgs(v any) ([]string, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("netem: want {nodes, delay, jitter, loss, reorder, duplicate, corrupt, rate}, got %T", v)
	}
	str := func(k string) string { s, _ := m[k].(string); return s }
	prob := func(k string) (float64, error) {
		switch p := m[k].(type) {
		case nil:
			return 0, nil
		case float64:
			if p < 0 || p > 1 {
				return 0, fmt.Errorf("netem %s: %v, want a probability from 0 to 1", k, p)
			}
			return p, nil
		case int64:
			if p != 0 && p != 1 {
				return 0, fmt.Errorf("netem %s: %v, want a probability from 0 to 1", k, p)
			}
			return float64(p), nil
		default:
			return 0, fmt.Errorf("netem %s: %v (%T), want a probability from 0 to 1", k, p, p)
		}
	}
	var args []string
	delay, jitter := str("delay"), str("jitter")
	if delay != "" {
		if !tcTime(delay) || jitter != "" && !tcTime(jitter) {
			return nil, fmt.Errorf("netem: want times such as \"50ms\", got delay %q jitter %q", delay, jitter)
		}
		args = append(args, "delay", delay)
		if jitter != "" {
			args = append(args, jitter)
		}
	} else if jitter != "" {
		return nil, fmt.Errorf("netem: jitter %q without a delay", jitter)
	}
	for _, k := range []string{"loss", "reorder", "duplicate", "corrupt"} {
		p, err := prob(k)
		if err != nil {
			return nil, err
		}
		if p == 0 {
			continue
		}
		if k == "reorder" && delay == "" {
			return nil, fmt.Errorf("netem reorder needs a delay: netem reorders by sending some packets at once while the others wait it")
		}
		args = append(args, k, strconv.FormatFloat(p*100, 'f', -1, 64)+"%")
	}
	if rate := str("rate"); rate != "" {
		if _, err := tcRate(rate); err != nil {
			return nil, fmt.Errorf("netem rate %q: want a tc rate such as \"1mbit\"", rate)
		}
		args = append(args, "rate", rate)
	}
	if len(args) == 0 {
		return nil, fmt.Errorf("netem: give at least one of delay, loss, reorder, duplicate, corrupt or rate")
	}
	return args, nil
}

// startNetem installs the netem qdisc on the victims (see init).
func (w *Worker) startNetem(ctx context.Context, v any) (outcome, error) {
	args, err := netemArgs(v)
	if err != nil {
		return outcome{value: v}, err
	}
	m, _ := v.(map[string]any)
	if w.mesh() != nil {
		return missingCapability(v, nil, "netem needs the nodes' own kernels: local nodes share this host, and faultline's proxy mesh cannot reorder, duplicate or corrupt packets")
	}
	targets, err := w.targets(ctx, "netem", m["nodes"])
	if err != nil {
		return outcome{value: v}, err
	}
	caps, err := Capabilities(ctx, w.opts.Pool, targets)
	if err != nil {
		return outcome{value: v}, err
	}
	if without := withoutNetem(caps, targets); len(without) > 0 {
		return missingCapability(v, caps, fmt.Sprintf("tc netem is not available in the kernel of %s (CONFIG_NET_SCH_NETEM); use VM nodes (faultline cluster up --vm), whose Debian kernel has it", strings.Join(without, ", ")))
	}
	val := map[string]any{"nodes": strs(targets), "netem": strings.Join(args, " ")}
	res, err := w.qdisc(ctx, "netem", targets, "netem", args, val)
	if err != nil {
		return res, err
	}
	// The qdisc must show every parameter asked for, not merely exist.
	for _, n := range targets {
		e, _ := res.evidence[n].(map[string]any)
		line := fmt.Sprint(e["qdiscs"])
		for k := 0; k < len(args); k++ {
			if word := args[k]; slices.Contains([]string{"delay", "loss", "reorder", "duplicate", "corrupt", "rate"}, word) && !strings.Contains(line, word) {
				res.landed = false
				if e != nil {
					e["missing"] = word
				}
			}
		}
	}
	return res, nil
}
