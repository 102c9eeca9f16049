package nemesis

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/faultline/faultline/builtins/control"
)

// shapeScript puts the qdisc "$@" (kind and parameters), marked
// QdiscHandle, at the root of every interface with an IPv4 address but
// loopback, then prints each qdisc back.
const shapeScript = `for d in $(ip -o -4 addr show | awk '$2 != "lo" {print $2}' | sort -u); do
  tc qdisc replace dev "$d" root handle ` + QdiscHandle + ` "$@" || exit 1
  echo "$d $(tc qdisc show dev "$d" root)"
done
`

// unshapeScript prints each faultline qdisc with its statistics, then
// deletes it and prints "left N", the faultline qdiscs that remain.
const unshapeScript = `for d in $(ls /sys/class/net); do
  s=$(tc -s qdisc show dev "$d" root 2>/dev/null)
  case $s in *" ` + QdiscHandle + ` "*) echo "$d" $s; tc qdisc del dev "$d" root || exit 1;; esac
done
left=0
for d in $(ls /sys/class/net); do tc qdisc show dev "$d" root 2>/dev/null | grep -q " ` + QdiscHandle + ` " && left=$((left + 1)); done
echo "left $left"
`

var qdiscStats = regexp.MustCompile(`Sent (\d+) bytes (\d+) pkt \(dropped (\d+), overlimits (\d+)`)

// startBandwidth limits the targets' egress. Value: {"nodes", "rate"} with
// a tc rate such as "1mbit".
func (w *Worker) startBandwidth(ctx context.Context, v any) (outcome, error) {
	m, _ := v.(map[string]any)
	rate, _ := m["rate"].(string)
	if rate == "" || strings.ContainsAny(rate, " \t\n") {
		return outcome{value: v}, fmt.Errorf("bandwidth: want a tc rate such as \"1mbit\", got %v", m["rate"])
	}
	targets, err := w.targets(ctx, "bandwidth", m["nodes"])
	if err != nil {
		return outcome{value: v}, err
	}
	return w.qdisc(ctx, "bandwidth", targets, "tbf", []string{"rate", rate, "burst", "32kbit", "latency", "400ms"},
		map[string]any{"nodes": strs(targets), "rate": rate})
}

// qdisc installs a marked root qdisc of kind with params on the targets'
// interfaces and reads each back.
func (w *Worker) qdisc(ctx context.Context, what string, targets []string, kind string, params []string, val map[string]any) (outcome, error) {
	if w.shaped != nil {
		return outcome{value: val}, fmt.Errorf("%s: a qdisc fault is already active on %s; stop it first", what, strings.Join(w.shaped, ", "))
	}
	w.shaped, w.shapedKind = targets, what
	landed := newVerdict()
	ev, err := w.eachNode(ctx, targets, func(node string, r control.Remote) (any, error) {
		out, err := runScript(ctx, r, what+": tc qdisc "+kind+" "+strings.Join(params, " "), shapeScript, append([]string{kind}, params...)...)
		lines := nonEmpty(out)
		ok := err == nil && len(lines) > 0
		for _, l := range lines {
			if !strings.Contains(l, kind+" "+QdiscHandle) {
				ok = false
			}
		}
		if !ok {
			landed.fail()
		}
		return map[string]any{"qdiscs": strs(lines)}, err
	})
	return outcome{value: val, evidence: ev, landed: landed.ok() && err == nil, applied: true}, err
}

// stopQdisc removes the marked qdiscs (stop-bandwidth, stop-delay), with
// their counters as evidence. kind ("bandwidth", "delay") says which
// counter is the fault's effect: a tbf's overlimits (packets it held back
// for the rate), a netem's packets sent (each was delayed).
func (w *Worker) stopQdisc(ctx context.Context, kind string) (outcome, error) {
	targets := w.shaped
	if targets == nil {
		return outcome{value: map[string]any{}}, fmt.Errorf("no bandwidth limit or delay is active")
	}
	if res, ok, err := w.stopAgentDelay(ctx, targets); ok {
		w.shaped, w.shapedKind = nil, ""
		return res, err
	}
	landed, healed, effect := newVerdict(), newVerdict(), &counter{}
	ev, err := w.eachNode(ctx, targets, func(node string, r control.Remote) (any, error) {
		out, err := runScript(ctx, r, "bandwidth: remove tbf", unshapeScript)
		lines := nonEmpty(out)
		if err != nil || len(lines) == 0 || lines[len(lines)-1] != "left 0" {
			healed.fail()
		}
		e := map[string]any{}
		var sent, pkts, overlimits int64
		found := 0
		for _, l := range lines {
			if m := qdiscStats.FindStringSubmatch(l); m != nil {
				found++
				b, _ := strconv.ParseInt(m[1], 10, 64)
				p, _ := strconv.ParseInt(m[2], 10, 64)
				o, _ := strconv.ParseInt(m[4], 10, 64)
				sent += b
				pkts += p
				overlimits += o
			}
		}
		acted := overlimits
		if kind == "delay" {
			acted = pkts
		}
		effect.add(acted)
		if found == 0 {
			landed.fail() // the qdisc was gone before the heal
		}
		e["sent_bytes"], e["sent_packets"], e["overlimits"], e["qdiscs"] = sent, pkts, overlimits, int64(found)
		return e, err
	})
	w.shaped, w.shapedKind = nil, ""
	h := healed.ok() && err == nil
	n := effect.total()
	return outcome{value: map[string]any{"nodes": strs(targets)}, evidence: ev, landed: landed.ok(), healed: &h, effect: &n}, err
}

// targets resolves a node spec, asking for primaries only when needed.
func (w *Worker) targets(ctx context.Context, what string, spec any) ([]string, error) {
	prim, err := w.primariesFor(ctx, spec)
	if err != nil {
		return nil, err
	}
	t, err := ResolveNodes(spec, w.nodes, w.rng, prim)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return t, nil
}

func nonEmpty(out string) []string {
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	return lines
}
