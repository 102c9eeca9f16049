package probe

// This file judges what the run's nodes allow, as opposed to the host:
// whether clock faults can land (every node on a kernel of its own) and
// whether netem can (sch_netem in the nodes' kernels). The same facts decide
// whether nemesis.clock and nemesis.netem refuse at injection
// (nemesis/clock.go, nemesis/netem.go); reading them up front turns a
// refusal an hour into a run into a row of the capability matrix.

import (
	"context"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/faultline/faultline/control"
	"github.com/faultline/faultline/nemesis"
)

// Cluster is what the probe read of the run's nodes. A nil *Cluster means
// no nodes were given: the capabilities only nodes can tell stay Unknown.
type Cluster struct {
	// Local: the nodes are --local processes on the controller's own
	// kernel, their links carried by faultline's proxy mesh.
	Local bool
	// Nodes is each node's kernel as read back (nemesis.Capabilities);
	// empty for Local.
	Nodes map[string]nemesis.Capability
	// Controller is the controller's boot id.
	Controller string
	// Err says why the nodes could not be read; what depends on them is
	// then Unknown.
	Err error
}

// ReadCluster reads the kernels of the pool's nodes with one short script
// each, which changes nothing (boot id, sch_netem, NFQUEUE). local says
// the pool is --local: nothing needs reading, every node is this host. A
// nil pool that is not local is no cluster.
func ReadCluster(ctx context.Context, pool *control.Pool, local bool) *Cluster {
	self, _ := os.ReadFile("/proc/sys/kernel/random/boot_id")
	c := &Cluster{Local: local, Controller: strings.TrimSpace(string(self))}
	if local {
		return c
	}
	if pool == nil {
		return nil
	}
	var names []string
	for _, n := range pool.Nodes() {
		names = append(names, n.Name)
	}
	caps, err := nemesis.Capabilities(ctx, pool, names)
	c.Nodes = caps
	if err != nil {
		c.Err = fmt.Errorf("read the nodes' kernels: %w", err)
	}
	return c
}

// clusterSource is the Source of a row judged from the nodes.
const clusterSource = "nodes' kernels (boot id, sch_netem, NFQUEUE)"

// source is the Source of a row the cluster decides.
func (c *Cluster) source() string {
	if c.Local {
		return "--local nodes"
	}
	return clusterSource
}

// nodeCapabilities are the capabilities the nodes decide, not the host.
var nodeCapabilities = []string{"clock", "tc-netem", "delay"}

// FromNodes reports whether a requirement is one the nodes decide (clock
// faults, netem, delay), so a caller reads the nodes (ReadCluster) only
// when it has to.
func FromNodes(reqs []Requirement) bool {
	for _, r := range reqs {
		for _, c := range r.Capabilities {
			if slices.Contains(nodeCapabilities, c) {
				return true
			}
		}
	}
	return false
}

// judge decides capability name from the nodes; ok is false for a
// capability the host decides. With no cluster, clock faults are Unknown:
// only the nodes can tell whether they have kernels of their own.
func (c *Cluster) judge(name string) (result, bool) {
	if c == nil {
		if name == "clock" {
			return result{present: Unknown, source: "-", note: "no nodes given: clock faults need nodes with kernels of their own, which only the nodes can tell " +
				"(probe with --nodes-file; faultline cluster up --vm writes one)"}, true
		}
		return result{}, false
	}
	switch name {
	case "clock":
		return c.clock(), true
	case "tc-netem":
		return c.netem(), true
	case "delay":
		return c.delay(), true
	}
	return result{}, false
}

// start is a judgement's opening: no on local nodes (localNote says why),
// unknown when the nodes could not be read, and done in both cases; else
// yes, to be judged from the nodes.
func (c *Cluster) start(localNote string) (result, bool) {
	res := result{present: Yes, source: c.source()}
	switch {
	case c.Local:
		res.present, res.note = No, localNote
		return res, true
	case c.Err != nil:
		res.present, res.note = Unknown, c.Err.Error()
		return res, true
	}
	return res, false
}

// clock: every node on a kernel of its own, none on the controller's.
func (c *Cluster) clock() result {
	res, done := c.start("local nodes run on the controller's own kernel: a clock fault would move every node's clock and the controller's; clock faults need nodes with kernels of their own (faultline cluster up --vm)")
	if done {
		return res
	}
	byBoot := map[string][]string{}
	for n, k := range c.Nodes {
		byBoot[k.BootID] = append(byBoot[k.BootID], n)
	}
	var notes []string
	for _, id := range slices.Sorted(maps.Keys(byBoot)) {
		nodes := byBoot[id]
		slices.Sort(nodes)
		switch {
		case id == "":
			res.present = worse(res.present, Unknown)
			notes = append(notes, "no boot id read from "+strings.Join(nodes, ", "))
		case id == c.Controller:
			res.present = No
			notes = append(notes, fmt.Sprintf("%s on the controller's own kernel (boot id %s): a clock fault would move the controller's clock too", strings.Join(nodes, ", "), id))
		case len(nodes) > 1:
			res.present = No
			notes = append(notes, fmt.Sprintf("%s share one kernel (boot id %s), so their clocks cannot differ", strings.Join(nodes, ", "), id))
		}
	}
	if res.present == No {
		notes = append(notes, "clock faults need nodes with kernels of their own (faultline cluster up --vm)")
	}
	res.note = strings.Join(notes, "; ")
	return res
}

// netem: sch_netem in every node's kernel, and not the proxy mesh. Where
// it is missing the note says what still works: delay through faultline's
// NFQUEUE agent where every such node has NFQUEUE.
func (c *Cluster) netem() result {
	res, done := c.start("local nodes' links go through faultline's proxy mesh, which delays, drops and throttles but cannot reorder, duplicate or corrupt packets: nemesis.netem needs nodes with kernels of their own (faultline cluster up --vm)")
	if done {
		return res
	}
	no, unknown := c.nodesWhere(func(k nemesis.Capability) string { return k.Netem })
	switch {
	case len(no) > 0:
		res.present = No
		without := strings.Join(no, ", ")
		delay := "delay uses faultline's agent (NFQUEUE)"
		if agentless, _ := c.nodesWhereIn(no, func(k nemesis.Capability) string { return k.NFQueue }); len(agentless) > 0 {
			delay = "delay is unavailable too on " + strings.Join(agentless, ", ") + " (no NFQUEUE for faultline's agent)"
		}
		res.note = fmt.Sprintf("netem: no on %s (CONFIG_NET_SCH_NETEM) — %s; reorder/duplicate/corrupt unavailable", without, delay)
	case len(unknown) > 0:
		res.present, res.note = Unknown, "cannot tell whether the kernel of "+strings.Join(unknown, ", ")+" has sch_netem"
	}
	return res
}

// delay (nemesis.delay): netem, or NFQUEUE for faultline's agent, on
// every node; local nodes' proxy mesh delays by itself.
func (c *Cluster) delay() result {
	res := result{present: Yes, source: clusterSource}
	switch {
	case c.Local:
		res.source = "faultline's proxy mesh"
		return res
	case c.Err != nil:
		res.present, res.note = Unknown, c.Err.Error()
		return res
	}
	var neither []string
	for _, n := range slices.Sorted(maps.Keys(c.Nodes)) {
		if k := c.Nodes[n]; k.Netem != "yes" && k.NFQueue != "yes" {
			neither = append(neither, n)
		}
	}
	if len(neither) > 0 {
		res.present, res.note = No, "neither netem nor NFQUEUE (for faultline's delay agent) on "+strings.Join(neither, ", ")
	}
	return res
}

// nodesWhere sorts the nodes whose field reads "no" and those where it is
// neither yes nor no.
func (c *Cluster) nodesWhere(field func(nemesis.Capability) string) (no, unknown []string) {
	return c.nodesWhereIn(slices.Sorted(maps.Keys(c.Nodes)), field)
}

func (c *Cluster) nodesWhereIn(nodes []string, field func(nemesis.Capability) string) (no, unknown []string) {
	for _, n := range nodes {
		switch field(c.Nodes[n]) {
		case "yes":
		case "no":
			no = append(no, n)
		default:
			unknown = append(unknown, n)
		}
	}
	return no, unknown
}

// Summary is the cluster in a few lines for the top of the matrix: what
// was read from each node, then whether clock faults and netem can land.
func (c *Cluster) Summary() []string {
	if c == nil {
		return nil
	}
	var out []string
	if c.Local {
		out = append(out, "local nodes: processes on this host's kernel, links through faultline's proxy mesh")
	}
	for _, n := range slices.Sorted(maps.Keys(c.Nodes)) {
		k := c.Nodes[n]
		id := k.BootID
		if id == c.Controller && id != "" {
			id += " (the controller's)"
		}
		out = append(out, fmt.Sprintf("%s: boot id %s, netem %s, nfqueue %s", n, orDash(id), orDash(k.Netem), orDash(k.NFQueue)))
	}
	if c.Err != nil {
		out = append(out, "error: "+c.Err.Error())
	}
	for _, v := range []struct {
		what string
		res  result
	}{{"clock faults", c.clock()}, {"netem (reorder, duplicate, corrupt)", c.netem()}, {"delay", c.delay()}} {
		line := v.what + ": " + string(v.res.present)
		if v.res.note != "" {
			line += " — " + v.res.note
		}
		out = append(out, line)
	}
	return out
}

func worse(a, b Presence) Presence {
	if rank(b) > rank(a) {
		return b
	}
	return a
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
