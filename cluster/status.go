package cluster

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"time"
)

// NodeStatus is one node as Status found it.
type NodeStatus struct {
	Name      string         // n1..nN
	Namespace string         // <prefix>-nX, also the host-side veth
	Addr      netip.AddrPort // the node's sshd address
	Netns     bool           // the named network namespace exists
	Link      bool           // the host-side veth is up on the bridge
	SSHD      bool           // an sshd runs as PID 1 of the node
	PID       int            // that sshd's host PID, 0 if none
	Reachable bool           // a TCP connect to Addr succeeded
	// VM marks a QEMU node: Namespace is then its tap's name, Netns is
	// unused, and SSHD and PID are about its QEMU process.
	VM bool
}

// Healthy reports whether the node is fully usable.
func (n NodeStatus) Healthy() bool { return (n.Netns || n.VM) && n.Link && n.SSHD && n.Reachable }

// Problems says what is wrong with the node ("" when healthy).
func (n NodeStatus) Problems() string {
	var p []string
	for _, c := range []struct {
		ok   bool
		what string
	}{
		{n.Netns || n.VM, "namespace missing"}, {n.Link, "link down"}, {n.SSHD || n.VM, "sshd dead"}, {n.SSHD || !n.VM, "QEMU not running"}, {n.Reachable, "ssh unreachable"},
	} {
		if !c.ok {
			p = append(p, c.what)
		}
	}
	return strings.Join(p, ", ")
}

// StatusReport is the state of a cluster, read from the host without
// changing it. (Named apart from Status, the function that makes it.)
type StatusReport struct {
	Config   Config       // the recorded configuration when Recorded
	Recorded bool         // StateDir holds a cluster record (cluster.json)
	Bridge   bool         // the bridge is up with the host address
	Nodes    []NodeStatus // the recorded nodes, n1 first
	// Strays are namespaces and links named with the prefix that the record
	// does not account for, such as leftovers of a crash; Up and Down remove
	// them.
	Strays []string
	// VM is what a VM cluster's Up measured (accelerator and why, kernel,
	// slowdown, clock offsets after boot); nil for netns clusters.
	VM *VMInfo
}

// Healthy reports whether a recorded cluster is fully up and has no strays.
func (s *StatusReport) Healthy() bool {
	if !s.Recorded || !s.Bridge || len(s.Strays) > 0 || len(s.Nodes) == 0 {
		return false
	}
	for _, n := range s.Nodes {
		if !n.Healthy() {
			return false
		}
	}
	return true
}

// Status reports, per node, whether its namespace and link exist, its sshd
// runs as the node's PID 1, and its address accepts TCP connections on
// port 22. A cluster recorded in cfg.StateDir is
// described by its record; otherwise only strays with cfg's prefix are
// listed.
func Status(ctx context.Context, cfg Config) (*StatusReport, error) {
	if err := checkRoot(geteuid()); err != nil {
		return nil, err
	}
	c, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	rec, recorded, err := readRecord(c.StateDir)
	if err != nil {
		return nil, err
	}
	if recorded {
		c = rec
	}
	return inspect(ctx, c, recorded)
}

// probeTimeout bounds one reachability check; a node whose namespace is
// gone does not answer ARP, so the connect would otherwise hang.
const probeTimeout = time.Second

// inspect gathers a StatusReport; Up uses it to decide what to repair.
func inspect(ctx context.Context, c Config, recorded bool) (*StatusReport, error) {
	h, err := findHostNet(c)
	if err != nil {
		return nil, err
	}
	st := &StatusReport{Config: c, Recorded: recorded, Bridge: bridgeHealthy(c)}
	st.Strays = strays(c, h, recorded)
	if !recorded {
		return st, nil
	}
	if c.VM {
		inspectVM(ctx, c, st)
		return st, nil
	}
	nets := make(map[nsID]string, c.Nodes)
	st.Nodes = make([]NodeStatus, c.Nodes)
	for i := 1; i <= c.Nodes; i++ {
		n := &st.Nodes[i-1]
		n.Name, n.Namespace = nodeName(i), c.nsName(i)
		n.Addr = netip.AddrPortFrom(c.nodeAddr(i), SSHPort)
		n.Link = nodeLinkHealthy(c, i)
		if id, ok := namedNetns(n.Namespace); ok {
			n.Netns = true
			nets[id] = n.Namespace
		}
	}
	inits, err := nodeInits(nets)
	if err != nil {
		return nil, err
	}
	var wg sync.WaitGroup
	for i := range st.Nodes {
		n := &st.Nodes[i]
		n.PID, n.SSHD = inits[n.Namespace], inits[n.Namespace] != 0
		wg.Go(func() { n.Reachable = probeTCP(ctx, n.Addr, probeTimeout) == nil })
	}
	wg.Wait()
	return st, nil
}

// strays lists the prefix's namespaces and links beyond the recorded nodes
// (all of them, and the bridge, when nothing is recorded).
func strays(c Config, h hostNet, recorded bool) []string {
	namespaces, links := h.namespaces, h.links
	if recorded {
		namespaces, links = beyond(c, namespaces), beyond(c, links)
	}
	var out []string
	for _, ns := range namespaces {
		out = append(out, "netns "+ns)
	}
	for _, l := range links {
		out = append(out, "link "+l)
	}
	if h.bridge && !recorded {
		out = append(out, "bridge "+c.Bridge)
	}
	slices.Sort(out)
	return out
}

// beyond keeps the names whose node index exceeds c.Nodes.
func beyond(c Config, names []string) []string {
	var out []string
	for _, n := range names {
		if c.nodeIndex(n) > c.Nodes {
			out = append(out, n)
		}
	}
	return out
}

// Summary is a one-line account of the cluster, for the CLI.
func (s *StatusReport) Summary() string {
	switch {
	case !s.Recorded && len(s.Strays) == 0:
		return fmt.Sprintf("no cluster in %s", s.Config.StateDir)
	case !s.Recorded:
		return fmt.Sprintf("no cluster in %s, but leftovers: %s (run down)", s.Config.StateDir, strings.Join(s.Strays, ", "))
	}
	healthy := 0
	var sick []string
	for _, n := range s.Nodes {
		if n.Healthy() {
			healthy++
		} else {
			sick = append(sick, n.Name+": "+n.Problems())
		}
	}
	msg := fmt.Sprintf("cluster %s: %d of %d nodes healthy, bridge %s %s", s.Config.Prefix, healthy, len(s.Nodes), s.Config.Bridge, upDown(s.Bridge))
	if v := s.VM; v != nil {
		msg += fmt.Sprintf("; VM nodes: kernel %s, %s, slowdown %.1fx", v.KernelRelease, v.AccelReason, v.Slowdown)
	}
	if len(sick) > 0 {
		msg += " (" + strings.Join(sick, "; ") + ")"
	}
	if len(s.Strays) > 0 {
		msg += "; leftovers: " + strings.Join(s.Strays, ", ")
	}
	return msg
}

func upDown(ok bool) string {
	if ok {
		return "up"
	}
	return "down"
}
