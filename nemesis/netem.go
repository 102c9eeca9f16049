package nemesis

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/faultline/faultline/control"
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
		Name: "netem", Inject: "start-netem", End: "stop-netem", Holds: "qdisc",
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
	before := w.roundTrips(ctx, targets)
	res, err := w.qdisc(ctx, "netem", targets, "netem", args, val)
	if err != nil {
		return res, err
	}
	// Round trips from each victim to the controller, through its cluster
	// interface, before and under netem: what the clients' packets meet.
	// A delay must show in them; reordering sends some packets undelayed,
	// so with reorder the numbers are recorded but not judged.
	during := w.roundTrips(ctx, targets)
	want, _ := time.ParseDuration(str(m["delay"]))
	reorder, _ := m["reorder"].(float64)
	for _, n := range targets {
		e, _ := res.evidence[n].(map[string]any)
		if e == nil {
			continue
		}
		e["rtt_before"], e["rtt_during"] = before[n].String(), during[n].String()
		if want > 0 && reorder == 0 && !during[n].raised(before[n], want/2) {
			res.landed = false
			e["missing"] = fmt.Sprintf("delay: the median round trip went from %s to %s, not up by half of %s", before[n], during[n], want)
		}
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

// rtt is a node's measured round trips to the controller: the median of a
// few pings, or why there is none.
type rtt struct {
	median time.Duration
	err    string
}

func (r rtt) String() string {
	if r.err != "" {
		return "not measured: " + r.err
	}
	return r.median.Round(10 * time.Microsecond).String()
}

// raised reports whether r is at least by above before; a round trip not
// measured on either side proves nothing.
func (r rtt) raised(before rtt, by time.Duration) bool {
	return r.err == "" && before.err == "" && r.median-before.median >= by
}

// pingScript pings $1 ten times and prints each round trip in ms.
const pingScript = `ping -n -c 10 -i 0.2 -W 2 "$1" | sed -n 's/.* time=\([0-9.]*\) ms.*/\1/p'`

// roundTrips measures each target's round trips to the controller; a node
// that could not be reached has none.
func (w *Worker) roundTrips(ctx context.Context, targets []string) map[string]rtt {
	got, err := w.eachNode(ctx, targets, func(node string, r control.Remote) (any, error) {
		return measureRTT(ctx, w, node, r), nil
	})
	out := make(map[string]rtt, len(targets))
	for _, n := range targets {
		r, ok := got[n].(rtt)
		if !ok {
			r = rtt{err: fmt.Sprintf("no connection to %s (%v)", n, err)}
		}
		out[n] = r
	}
	return out
}

func measureRTT(ctx context.Context, w *Worker, node string, r control.Remote) rtt {
	ctl, err := w.controller(ctx, node, r)
	if err != nil || ctl == "" {
		return rtt{err: fmt.Sprintf("no controller address on %s (%v)", node, err)}
	}
	res, err := r.Run(ctx, control.Cmd{Argv: []string{"sh", "-c", pingScript, "ping", ctl}, Label: "ping the controller", Timeout: w.opts.Pool.ScaleTimeout(30 * time.Second)})
	if err != nil {
		return rtt{err: err.Error()}
	}
	var ms []float64
	for _, f := range strings.Fields(string(res.Stdout)) {
		if v, err := strconv.ParseFloat(f, 64); err == nil {
			ms = append(ms, v)
		}
	}
	if len(ms) == 0 {
		return rtt{err: "no reply to ping"}
	}
	slices.Sort(ms)
	return rtt{median: time.Duration(ms[len(ms)/2] * float64(time.Millisecond))}
}
