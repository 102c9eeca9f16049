package nemesis

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/faultline/faultline/control"
)

// clusterIfaceScript finds the cluster interface, the one holding the
// address the controller's ssh session reached (the third field of
// SSH_CONNECTION) or, for a Remote that is no ssh session, the node's
// address as peers use it ($1), and prints "addr A", "dev D" (empty when no
// interface holds A) and "root " followed by D's root qdisc as tc shows it.
// Faults shape only that interface: the node's other interfaces are none of
// the cluster's business.
const clusterIfaceScript = `a=$1
set -- $SSH_CONNECTION
if [ -n "$3" ]; then a=$3; fi
case $a in ::ffff:*.*) a=${a#::ffff:};; esac
a=${a%%%*}
echo "addr $a"
d=$(ip -o addr show | awk -v a="$a" '{split($4, p, "/"); if (p[1] == a) {print $2; exit}}') || exit 1
d=${d%%@*}
echo "dev $d"
if [ -n "$d" ]; then r=$(tc qdisc show dev "$d" root) || exit 1; echo "root $r"; fi
`

// shapeScript puts the qdisc "$@" after the first two arguments (kind and
// parameters), marked QdiscHandle, at the root of interface $1, then
// prints it back. $2 is the root qdisc's handle as the controller read and
// judged it: if the root changed since, the script refuses rather than
// replace a qdisc no one judged.
const shapeScript = `d=$1 want=$2; shift 2
h=$(tc qdisc show dev "$d" root | awk '{print $3; exit}') || exit 1
if [ "${h:-0:}" != "$want" ]; then echo "the root qdisc of $d changed from $want to $h since it was read; not replacing it" >&2; exit 1; fi
tc qdisc replace dev "$d" root handle ` + QdiscHandle + ` "$@" || exit 1
echo "$d $(tc qdisc show dev "$d" root)"
`

// unshapeScript prints each faultline qdisc (root handle QdiscHandle) with
// its statistics, then deletes it, which gives the interface back the
// kernel's default root qdisc, and prints "left N", the faultline qdiscs
// that remain. Only a root whose handle is QdiscHandle is touched, on any
// interface (a crashed run may have shaped another).
const unshapeScript = `ours() { [ "$(tc qdisc show dev "$1" root 2>/dev/null | awk '{print $3; exit}')" = ` + QdiscHandle + ` ]; }
for d in $(ls /sys/class/net); do
  if ours "$d"; then echo "$d" $(tc -s qdisc show dev "$d" root); tc qdisc del dev "$d" root || exit 1; fi
done
left=0
for d in $(ls /sys/class/net); do ours "$d" && left=$((left + 1)); done
echo "left $left"
`

// qdiscReadScript prints each faultline qdisc (root handle QdiscHandle)
// with its statistics, as unshapeScript does, without removing it.
const qdiscReadScript = `ours() { [ "$(tc qdisc show dev "$1" root 2>/dev/null | awk '{print $3; exit}')" = ` + QdiscHandle + ` ]; }
for d in $(ls /sys/class/net); do
  if ours "$d"; then echo "$d" $(tc -s qdisc show dev "$d" root); fi
done
`

// DefaultQdiscHandle is the handle of a root qdisc the kernel attached by
// itself (noqueue, pfifo_fast, fq_codel, mq ...): deleting faultline's
// qdisc brings such a default back, so replacing it loses nothing.
const DefaultQdiscHandle = "0:"

// rootQdisc is an interface's root qdisc as `tc qdisc show dev D root`
// prints it.
type rootQdisc struct {
	Kind   string // "" when tc showed none
	Handle string // "1:", DefaultQdiscHandle, QdiscHandle ...
}

// Owners of a root qdisc.
const (
	qdiscDefault = "default" // the kernel's: safe to replace
	qdiscOurs    = "ours"    // faultline's (QdiscHandle): safe to replace
	qdiscForeign = "foreign" // the node's own: never replaced
)

// parseRootQdisc parses the root line of `tc qdisc show dev D root`
// ("qdisc htb 1: root refcnt 2 ..."). No line means the interface shows no
// root qdisc, which faultline may take as it takes a default one.
func parseRootQdisc(line string) (rootQdisc, error) {
	f := strings.Fields(line)
	if len(f) == 0 {
		return rootQdisc{Handle: DefaultQdiscHandle}, nil
	}
	if len(f) < 4 || f[0] != "qdisc" || f[3] != "root" || !qdiscHandle.MatchString(f[2]) {
		return rootQdisc{}, fmt.Errorf("unexpected root qdisc line %q", line)
	}
	return rootQdisc{Kind: f[1], Handle: f[2]}, nil
}

var qdiscHandle = regexp.MustCompile(`^[0-9a-f]{1,4}:$`)

// owner says whose the qdisc is, from its handle alone: tc gives a qdisc
// added without a handle one of its own (8001:), so only the kernel's
// defaults have 0:.
func (q rootQdisc) owner() string {
	switch q.Handle {
	case DefaultQdiscHandle:
		return qdiscDefault
	case QdiscHandle:
		return qdiscOurs
	}
	return qdiscForeign
}

func (q rootQdisc) String() string {
	if q.Kind == "" {
		return "none"
	}
	return q.Kind + " " + q.Handle
}

// clusterIface is what clusterIfaceScript read on a node.
type clusterIface struct {
	Addr, Dev string
	Root      rootQdisc
}

// parseClusterIface parses clusterIfaceScript's output.
func parseClusterIface(out string) (clusterIface, error) {
	var c clusterIface
	var seen []string
	for _, l := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		k, v, _ := strings.Cut(l, " ")
		v = strings.TrimSpace(v)
		switch k {
		case "addr":
			c.Addr = v
		case "dev":
			c.Dev = v
		case "root":
			r, err := parseRootQdisc(v)
			if err != nil {
				return c, err
			}
			c.Root = r
		default:
			return c, fmt.Errorf("unexpected line %q reading the cluster interface", l)
		}
		seen = append(seen, k)
	}
	want := "addr dev root"
	if c.Dev == "" {
		want = "addr dev"
	}
	if got := strings.Join(seen, " "); got != want {
		return c, fmt.Errorf("reading the cluster interface: got lines %q, want %q", got, want)
	}
	return c, nil
}

// shapeable says whether faultline may put its qdisc on the node's cluster
// interface, and if not, why not, naming node, interface and qdisc.
func (c clusterIface) shapeable(node string) error {
	switch {
	case c.Addr == "":
		return fmt.Errorf("%s: no cluster address (no ssh session and no node address); faultline shapes only the cluster interface", node)
	case c.Dev == "":
		return fmt.Errorf("%s: no interface holds the cluster address %s; faultline shapes only the cluster interface", node, c.Addr)
	case c.Dev == "lo":
		return fmt.Errorf("%s: the cluster address %s is on lo; faultline does not shape loopback", node, c.Addr)
	case c.Root.owner() == qdiscForeign:
		return fmt.Errorf("%s: %s has its own root qdisc %s; faultline does not replace a qdisc it did not create", node, c.Dev, c.Root)
	}
	return nil
}

var qdiscStats = regexp.MustCompile(`Sent (\d+) bytes (\d+) pkt \(dropped (\d+), overlimits (\d+)`)

func init() {
	register(Fault{
		Name: "bandwidth", Inject: "start-bandwidth", End: "stop-bandwidth", Holds: "qdisc",
		Network: true, Effect: "packets or time throttled",
		Landing: "the tbf qdisc read back on the cluster interface after inject, and its overlimits above 0 when removed",
		Needs:   []string{"root"},
		Validate: func(v any) error {
			m, _ := v.(map[string]any)
			if rate, _ := m["rate"].(string); rate == "" || strings.ContainsAny(rate, " \t\n") {
				return fmt.Errorf("rate %q: want a tc rate such as \"1mbit\"", rate)
			}
			return nil
		},
		inject: onMesh(shapeStep("bandwidth"), func(w *Worker, ctx context.Context, v any) (outcome, error) { return w.startBandwidth(ctx, v) }),
		end:    onMesh(unshapeStep("bandwidth"), func(w *Worker, ctx context.Context, _ any) (outcome, error) { return w.stopQdisc(ctx, "bandwidth") }),
		open:   shapeOpen("bandwidth"),
	})
}

// startBandwidth limits the egress of each target's cluster interface
// (qdisc). Value: {"nodes", "rate"} with
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

// qdisc installs a marked root qdisc of kind with params on each target's
// cluster interface and reads it back. A target whose cluster interface
// has a root qdisc of its own is refused (an error naming it): the fault
// does not land there, and the node's qdisc is left as it was.
func (w *Worker) qdisc(ctx context.Context, what string, targets []string, kind string, params []string, val map[string]any) (outcome, error) {
	if w.shaped != nil {
		return outcome{value: val}, fmt.Errorf("%s: a qdisc fault is already active on %s; stop it first", what, strings.Join(w.shaped, ", "))
	}
	w.shaped, w.shapedKind = targets, what
	landed := newVerdict()
	var applied atomic.Bool // some replace may have taken effect
	ev, err := w.eachNode(ctx, targets, func(node string, r control.Remote) (_ any, err error) {
		ok := false
		defer func() {
			if !ok || err != nil {
				landed.fail()
			}
		}()
		// The node's address is only the fallback for a Remote that is no
		// ssh session; a name the controller cannot resolve (an ssh alias,
		// say) must not stop a fault that SSH_CONNECTION can place.
		addr, _ := w.addr(ctx, node)
		out, err := runScript(ctx, r, what+": find the cluster interface", clusterIfaceScript, addr)
		if err != nil {
			return nil, err
		}
		c, err := parseClusterIface(out)
		if err != nil {
			return nil, fmt.Errorf("node %s: %w", node, err)
		}
		e := map[string]any{"address": c.Addr, "interface": c.Dev, "before": c.Root.String()}
		if err := c.shapeable(node); err != nil {
			return e, err
		}
		applied.Store(true)
		out, err = runScript(ctx, r, what+": tc qdisc "+kind+" "+strings.Join(params, " "), shapeScript,
			append([]string{c.Dev, c.Root.Handle, kind}, params...)...)
		lines := nonEmpty(out)
		e["qdiscs"] = strs(lines)
		ok = len(lines) == 1 && strings.HasPrefix(lines[0], c.Dev+" qdisc "+kind+" "+QdiscHandle+" root")
		return e, err
	})
	return outcome{value: val, evidence: ev, landed: landed.ok() && err == nil, applied: applied.Load()}, err
}

// stopQdisc removes the marked qdiscs (stop-bandwidth, stop-delay), with
// their counters as evidence. kind ("bandwidth", "delay", "netem") says
// which counter is the fault's effect: a tbf's overlimits (packets it held
// back for the rate), a netem's packets sent (each went through it).
func (w *Worker) stopQdisc(ctx context.Context, kind string) (outcome, error) {
	targets := w.shaped
	if targets == nil {
		return outcome{value: map[string]any{}}, fmt.Errorf("no bandwidth limit or delay is active")
	}
	if res, ok, err := w.stopAgentDelay(ctx, targets); ok {
		w.shaped, w.shapedKind = nil, ""
		return res, err
	}
	sys, probed := w.probeQdisc(ctx, kind, targets)
	landed, healed, effect := newVerdict(), newVerdict(), &counter{}
	ev, err := w.eachNode(ctx, targets, func(node string, r control.Remote) (any, error) {
		out, err := runScript(ctx, r, "bandwidth: remove tbf", unshapeScript)
		lines := nonEmpty(out)
		if err != nil || len(lines) == 0 || lines[len(lines)-1] != "left 0" {
			healed.fail()
		}
		e := map[string]any{}
		sent, pkts, overlimits, found := qdiscCounts(lines)
		acted := qdiscActed(kind, pkts, overlimits)
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
	res := outcome{value: map[string]any{"nodes": strs(targets)}, evidence: ev, landed: landed.ok(), healed: &h, effect: &n}
	attachProbe(&res, sys, probed)
	return res, err
}

// qdiscCounts sums the statistics of the qdiscs unshapeScript or
// qdiscReadScript printed: bytes and packets sent, overlimits, and how
// many qdiscs there were.
func qdiscCounts(lines []string) (sent, pkts, overlimits int64, found int) {
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
	return sent, pkts, overlimits, found
}

// qdiscActed is the counter that is a qdisc fault's effect: a tbf's
// overlimits (packets it held back for the rate), a netem's packets sent
// (each went through it).
func qdiscActed(kind string, pkts, overlimits int64) int64 {
	if kind == "delay" || kind == "netem" {
		return pkts
	}
	return overlimits
}

// probeQdisc reads what faultline's qdiscs on targets did so far and, when
// they acted on none of the system's packets, sends the probe out through
// them to the other nodes: a burst of datagrams beyond a tbf's bucket, or
// echo requests through a netem. It returns the system's own count and
// what each node sent (nil when no probe was needed).
func (w *Worker) probeQdisc(ctx context.Context, kind string, targets []string) (int64, map[string]any) {
	sys := &counter{}
	_, _ = w.eachNode(ctx, targets, func(node string, r control.Remote) (any, error) {
		out, err := runScript(ctx, r, kind+": read the qdisc", qdiscReadScript)
		if err != nil {
			return nil, err
		}
		_, pkts, overlimits, _ := qdiscCounts(nonEmpty(out))
		sys.add(qdiscActed(kind, pkts, overlimits))
		return nil, nil
	})
	if sys.total() > 0 {
		return sys.total(), nil
	}
	to, err := w.otherAddrs(ctx, targets)
	if err != nil {
		return 0, nil
	}
	if kind == "bandwidth" {
		return 0, w.sendProbe(ctx, probeBulk, probeBulkBytes, to)
	}
	return 0, w.sendProbe(ctx, probeReach, probeCount(0), to)
}

// probeBulkBytes is what a bandwidth probe sends each address: eight times
// the 32kbit bucket faultline's tbf gets, so some must wait or drop.
const probeBulkBytes = 32 << 10

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
