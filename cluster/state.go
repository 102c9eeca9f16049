package cluster

import (
	"fmt"
	"net/netip"
	"strings"
	"time"
)

// Action is what Up did.
type Action string

// Actions of Up.
const (
	Created   Action = "created"   // built from nothing (or from a crash's leftovers)
	Repaired  Action = "repaired"  // rebuilt some nodes of an existing cluster
	Unchanged Action = "unchanged" // the cluster was already up and healthy
)

// Node is one node of a running cluster.
type Node struct {
	Name      string         // n1..nN: hostname and name in the nodes file
	Namespace string         // <prefix>-nX: network namespace and host-side veth
	Addr      netip.AddrPort // where its sshd listens
	Dir       string         // StateDir/nX
	PID       int            // host PID of its sshd, PID 1 of the node
}

// State describes the cluster Up left running, with the files a client
// needs to reach it.
type State struct {
	Config   Config
	Action   Action
	Repaired []string   // nodes rebuilt, and leftovers removed, by a repairing Up
	Host     netip.Addr // the host's address on the bridge
	Nodes    []Node

	NodesFile  string // for `faultline run --nodes-file`
	KnownHosts string // host keys of every node
	ClientKey  string // private key authorised as root on every node
	SSHConfig  string // for `ssh -F`

	Elapsed  time.Duration // how long Up took
	Warnings []string      // host settings that may break node traffic

	VM *VMInfo // a VM cluster's image, accelerator, clocks and speed; nil for netns
}

func newState(c Config) *State {
	s := &State{
		Config:     c,
		Host:       c.hostPrefix().Addr(),
		NodesFile:  c.path(nodesFile),
		KnownHosts: c.path(knownHostsFile),
		ClientKey:  c.path(clientKeyFile),
		SSHConfig:  c.path(sshConfigFile),
	}
	for i := 1; i <= c.Nodes; i++ {
		s.Nodes = append(s.Nodes, Node{
			Name:      nodeName(i),
			Namespace: c.nsName(i),
			Addr:      netip.AddrPortFrom(c.nodeAddr(i), SSHPort),
			Dir:       c.nodeDir(i),
		})
	}
	return s
}

// Summary is a one-line account of what Up did, for the CLI.
func (s *State) Summary() string {
	n := len(s.Nodes)
	ms := s.Elapsed.Milliseconds()
	switch s.Action {
	case Unchanged:
		return fmt.Sprintf("cluster %s already up: %d nodes, nothing to do (%d ms); nodes file %s", s.Config.Prefix, n, ms, s.NodesFile)
	case Repaired:
		return fmt.Sprintf("cluster %s repaired (%s): %d nodes up in %d ms; nodes file %s", s.Config.Prefix, strings.Join(s.Repaired, ", "), n, ms, s.NodesFile)
	case Created:
		if s.VM == nil {
			return s.netnsCreated()
		}
		return fmt.Sprintf("cluster %s created: %d VM nodes up in %d ms (kernel %s, %s; boot %.1fs, slowdown %.1fx) on bridge %s, host %s; nodes file %s, ssh -F %s n1",
			s.Config.Prefix, n, ms, s.VM.KernelRelease, s.VM.Accel, s.VM.BootSec, s.VM.Slowdown, s.Config.Bridge, s.Host, s.NodesFile, s.SSHConfig)
	default:
		return s.netnsCreated()
	}
}

func (s *State) netnsCreated() string {
	return fmt.Sprintf("cluster %s created: %d nodes up in %d ms (bridge %s, host %s); nodes file %s, ssh -F %s n1",
		s.Config.Prefix, len(s.Nodes), s.Elapsed.Milliseconds(), s.Config.Bridge, s.Host, s.NodesFile, s.SSHConfig)
}
