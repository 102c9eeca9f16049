package nemesis

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/faultline/faultline/control"
)

// A network fault is proven by what it did to traffic during its hold
// (Window). When the system's own traffic did not cross a cut or shaped
// link, the counters read 0 and the window would stay unproven by luck:
// the closing op then sends faultline's own probe through the faulted
// links, from each victim to the cluster's own node addresses only, and
// counts what faultline's rules and qdiscs did to it. The history records
// that part of the effect as effect_probe, and the report says which
// traffic proved the fault.

// Probe modes of probeScript.
const (
	// probeReach sends echo requests (ping) or, without ping, TCP connection
	// attempts to the discard port, normally closed, so answered by a
	// reset, stopping at the first that gets no answer: the replies or the
	// requests cross the cut, where faultline's DROP rules count them.
	probeReach = "reach"
	// probeBulk sends a burst of datagrams to the discard port (9), larger
	// than the bucket faultline's tbf allows, so the qdisc must hold some
	// back (overlimits); without bash, large echo requests.
	probeBulk = "bulk"
)

// probeScript sends faultline's probe from this node to the addresses
// after $1 (mode, probeReach or probeBulk) and $2 (attempts per address,
// or bytes per address), in parallel, and prints "tool T", the tool it
// used (ping, tcp, udp or none). A probe that gets no answer is the
// expected outcome across a cut, so its exit status is not an error.
const probeScript = `mode=$1 n=$2; shift 2
has() { command -v "$1" >/dev/null 2>&1; }
tool=none
case $mode in
reach) if has ping; then tool=ping; elif has bash && has timeout; then tool=tcp; fi ;;
bulk) if has bash; then tool=udp; elif has ping; then tool=ping; fi ;;
esac
echo "tool $tool"
for ip; do
  case $mode.$tool in
  bulk.udp) bash -c 'head -c "$1" /dev/zero >"/dev/udp/$2/9"' faultline-probe "$n" "$ip" 2>/dev/null & ;;
  bulk.ping) ping -n -q -c 16 -l 16 -s 1400 -W 1 "$ip" >/dev/null 2>&1 & ;;
  reach.ping) (ping -n -q -c "$n" -i 0.002 -W 1 "$ip" >/dev/null 2>&1; [ $? -eq 2 ] && ping -n -q -c 3 -W 1 "$ip" >/dev/null 2>&1) & ;;
  reach.tcp) bash -c 'i=0; while [ $i -lt "$2" ]; do i=$((i+1)); timeout 0.5 bash -c "</dev/tcp/$1/9" 2>/dev/null; [ $? -eq 124 ] && break; done' faultline-probe "$ip" "$n" & ;;
  esac
done
wait
exit 0
`

// probeCount is how many echo requests a reach probe sends per address:
// enough that every one escaping a random drop of probability p has odds
// below one in a million ((1-p)^(14/p) < e^-14), at least 3, at most 2000.
func probeCount(p float64) int {
	if !(p > 0) || p >= 1 {
		return 3
	}
	return int(min(max(math.Ceil(14/p), 3), 2000))
}

// sendProbe runs probeScript on each node in to (node -> the addresses it
// probes), in parallel, and returns node -> what it sent, for evidence.
func (w *Worker) sendProbe(ctx context.Context, mode string, n int, to map[string][]string) map[string]any {
	nodes := make([]string, 0, len(to))
	for node, addrs := range to {
		if len(addrs) > 0 {
			nodes = append(nodes, node)
		}
	}
	out := map[string]any{}
	ev, _ := w.eachNode(ctx, nodes, func(node string, r control.Remote) (any, error) {
		res, err := runScript(ctx, r, "probe: "+mode+" "+strings.Join(to[node], ","), probeScript,
			append([]string{mode, strconv.Itoa(n)}, to[node]...)...)
		tool := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(res), "tool"))
		if err != nil {
			return map[string]any{"error": err.Error(), "tool": tool}, nil
		}
		return map[string]any{"tool": tool, "to": strs(to[node])}, nil
	})
	for node, e := range ev {
		out[node] = e
	}
	for node, addrs := range to {
		if len(addrs) == 0 {
			out[node] = map[string]any{"tool": "none", "error": "no other node's address to probe"}
		}
	}
	return out
}

// otherAddrs maps each of targets to the addresses of every other node of
// the cluster: where a loss or bandwidth probe may go.
func (w *Worker) otherAddrs(ctx context.Context, targets []string) (map[string][]string, error) {
	out := map[string][]string{}
	for _, t := range targets {
		others := slices.DeleteFunc(slices.Clone(w.nodes), func(n string) bool { return n == t })
		addrs, err := w.addrsOf(ctx, others)
		if err != nil {
			return nil, fmt.Errorf("probe from %s: %w", t, err)
		}
		out[t] = addrs
	}
	return out, nil
}

// chainDrops reads chain's DROP counters on targets and sums them: what the
// system's own traffic met so far.
func (w *Worker) chainDrops(ctx context.Context, chain string, targets []string) int64 {
	total := &counter{}
	_, _ = w.eachNode(ctx, targets, func(node string, r control.Remote) (any, error) {
		out, err := runScript(ctx, r, "read "+chain, readScript, chain)
		if err != nil {
			return nil, err
		}
		st, err := ParseChain(out)
		if err != nil {
			return nil, err
		}
		total.add(st.Drops())
		return nil, nil
	})
	return total.total()
}

// probeChain makes sure an iptables fault's window has traffic to count:
// when chain's rules on targets have dropped nothing yet, it sends the
// probe (to: node -> addresses) and reports what it sent. It returns the
// drops the system's own traffic had made before any probe, and nil
// evidence when no probe was needed.
func (w *Worker) probeChain(ctx context.Context, chain string, targets []string, to map[string][]string, n int) (int64, map[string]any) {
	sys := w.chainDrops(ctx, chain, targets)
	if sys > 0 {
		return sys, nil
	}
	return 0, w.sendProbe(ctx, probeReach, n, to)
}

// attachProbe records on res what the probe made of its effect (all of it
// beyond sys, the system's own drops read before the probe) and what each
// node sent.
func attachProbe(res *outcome, sys int64, sent map[string]any) {
	if sent == nil || res.effect == nil {
		return
	}
	p := max(*res.effect-sys, 0)
	res.probe = &p
	if res.evidence == nil {
		res.evidence = map[string]any{}
	}
	for node, s := range sent {
		if e, ok := res.evidence[node].(map[string]any); ok {
			e["probe"] = s
		} else if res.evidence[node] == nil {
			res.evidence[node] = map[string]any{"probe": s}
		}
	}
}
