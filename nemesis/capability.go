package nemesis

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/faultline/faultline/control"
)

// capabilityScript reports, one "key value" per line, whether the node's
// kernel has netem (yes, no or unknown, from /sys/module, the modules
// directory or the kernel config), whether it can queue packets to
// userspace with iptables' NFQUEUE target (nfnetlink_queue loaded and the
// target registered), and the kernel's boot id, which nodes sharing one
// kernel have in common.
const capabilityScript = `netem=unknown
if [ -d /sys/module/sch_netem ] || ls /lib/modules/"$(uname -r)"/kernel/net/sched/sch_netem.ko* >/dev/null 2>&1; then
  netem=yes
elif [ -r /proc/config.gz ]; then
  if zcat /proc/config.gz | grep -Eq '^CONFIG_NET_SCH_NETEM=[ym]'; then netem=yes; else netem=no; fi
elif [ -r "/boot/config-$(uname -r)" ]; then
  if grep -Eq '^CONFIG_NET_SCH_NETEM=[ym]' "/boot/config-$(uname -r)"; then netem=yes; else netem=no; fi
fi
echo "netem $netem"
if [ -e /proc/net/netfilter/nfnetlink_queue ] && grep -qx NFQUEUE /proc/net/ip_tables_targets 2>/dev/null; then echo "nfqueue yes"; else echo "nfqueue no"; fi
echo "boot_id $(cat /proc/sys/kernel/random/boot_id)"
`

// Capability is what a node's kernel allows.
type Capability struct {
	Netem   string // "yes", "no" or "unknown"
	NFQueue string // "yes" or "no": the NFQUEUE delay agent can work there
	BootID  string // shared by nodes on one kernel
}

// withoutNetem names the targets whose kernel has no netem, sorted.
func withoutNetem(caps map[string]Capability, targets []string) []string {
	var without []string
	for _, n := range targets {
		if caps[n].Netem != "yes" {
			without = append(without, n)
		}
	}
	slices.Sort(without)
	return without
}

// Capabilities reads each node's capabilities.
func Capabilities(ctx context.Context, pool *control.Pool, nodes []string) (map[string]Capability, error) {
	out := map[string]Capability{}
	ev, err := eachNode(ctx, pool, nodes, func(node string, r control.Remote) (any, error) {
		s, err := runScript(ctx, r, "read kernel capabilities", capabilityScript)
		if err != nil {
			return nil, err
		}
		var c Capability
		for _, l := range nonEmpty(s) {
			k, v, _ := strings.Cut(l, " ")
			switch k {
			case "netem":
				c.Netem = v
			case "nfqueue":
				c.NFQueue = v
			case "boot_id":
				c.BootID = v
			}
		}
		return c, nil
	})
	for n, c := range ev {
		out[n] = c.(Capability)
	}
	return out, err
}

// missingCapability completes a fault this kernel cannot inject: fail,
// never faked, with what was read back as evidence.
func missingCapability(value any, caps map[string]Capability, reason string) (outcome, error) {
	ev := map[string]any{}
	for n, c := range caps {
		ev[n] = map[string]any{"netem": c.Netem, "nfqueue": c.NFQueue, "boot_id": c.BootID}
	}
	return outcome{value: value, evidence: ev}, fmt.Errorf("missing capability: %s", reason)
}

func init() {
	register(Fault{
		Name: "delay", Inject: "start-delay", End: "stop-delay", Holds: "qdisc",
		Network: true, Effect: "packets delayed",
		Landing: "the netem qdisc (or the NFQUEUE rule and a live delay agent) read back after inject, and packets delayed when removed",
		Needs:   []string{"tc-netem", "root"},
		Validate: func(v any) error {
			m, _ := v.(map[string]any)
			delay, _ := m["delay"].(string)
			jitter, _ := m["jitter"].(string)
			if !tcTime(delay) || jitter != "" && !tcTime(jitter) {
				return fmt.Errorf("want times such as \"50ms\", got delay %q jitter %q", delay, jitter)
			}
			return nil
		},
		inject: onMesh(shapeStep("delay"), func(w *Worker, ctx context.Context, v any) (outcome, error) { return w.startDelay(ctx, v) }),
		end:    onMesh(unshapeStep("delay"), func(w *Worker, ctx context.Context, _ any) (outcome, error) { return w.stopQdisc(ctx, "delay") }),
		open:   shapeOpen("delay"),
	})
	// Old names of clock faults, never injected (clockFault): clock
	// faults are start-clock (nemesis.clock, clock.go); a schedule may
	// still name these.
	for _, f := range []string{"bump-clock", "clock-skew", "strobe-clock"} {
		register(Fault{
			Inject: f, NoEnd: "it is never injected: clock faults fail with a missing capability",
			Landing: "never lands: the op fails, naming the nodes that share one kernel",
			inject:  func(w *Worker, ctx context.Context, v any) (outcome, error) { return w.clockFault(ctx, v) },
		})
	}
}

// startDelay adds latency with netem, applied as a marked qdisc (removed by
// stop-delay, which is stop-bandwidth, and by HealAll). Where a target's
// kernel has no netem but NFQUEUE, faultline's own agent delays the
// targets' input instead (startAgentDelay); with neither, the op fails
// with a missing capability. Value: {"nodes", "delay": "50ms", "jitter":
// "10ms"}.
func (w *Worker) startDelay(ctx context.Context, v any) (outcome, error) {
	m, _ := v.(map[string]any)
	delay, _ := m["delay"].(string)
	jitter, _ := m["jitter"].(string)
	if !tcTime(delay) || jitter != "" && !tcTime(jitter) {
		return outcome{value: v}, fmt.Errorf("delay: want times such as \"50ms\", got delay %v jitter %v", m["delay"], m["jitter"])
	}
	targets, err := w.targets(ctx, "delay", m["nodes"])
	if err != nil {
		return outcome{value: v}, err
	}
	caps, err := Capabilities(ctx, w.opts.Pool, targets)
	if err != nil {
		return outcome{value: v}, err
	}
	if without := withoutNetem(caps, targets); len(without) > 0 {
		if d, j, ok := agentCanDelay(caps, targets, delay, jitter); ok {
			return w.startAgentDelay(ctx, targets, d, j)
		}
		return missingCapability(v, caps, fmt.Sprintf("tc netem is not available in the kernel of %s (CONFIG_NET_SCH_NETEM), nor NFQUEUE on every target for faultline's delay agent; delay, jitter, reordering and duplication cannot be injected there", strings.Join(without, ", ")))
	}
	args := []string{"delay", delay}
	if jitter != "" {
		args = append(args, jitter)
	}
	return w.qdisc(ctx, "delay", targets, "netem", args, map[string]any{"nodes": strs(targets), "delay": delay, "jitter": jitter})
}

// clockFault refuses the old clock op names: where the targets share a
// kernel with each other (a clock change would hit all of them, and usually
// the controller) it says so; elsewhere it names start-clock.
func (w *Worker) clockFault(ctx context.Context, v any) (outcome, error) {
	caps, err := Capabilities(ctx, w.opts.Pool, w.nodes)
	if err != nil {
		return outcome{value: v}, err
	}
	byBoot := map[string][]string{}
	for n, c := range caps {
		byBoot[c.BootID] = append(byBoot[c.BootID], n)
	}
	for id, nodes := range byBoot {
		if len(nodes) > 1 {
			slices.Sort(nodes)
			return missingCapability(v, caps, fmt.Sprintf("nodes %s share one kernel (boot id %s), so their clocks cannot differ", strings.Join(nodes, ", "), id))
		}
	}
	return missingCapability(v, caps, "this op name is never injected: clock faults are nemesis.clock (op start-clock)")
}

// tcTime accepts a tc time such as "50ms", "1s" or "200us".
func tcTime(s string) bool {
	num := strings.TrimRight(s, "smu")
	if num == "" || len(s)-len(num) > 2 {
		return false
	}
	for _, c := range num {
		if (c < '0' || c > '9') && c != '.' {
			return false
		}
	}
	switch s[len(num):] {
	case "s", "ms", "us":
		return true
	}
	return false
}
