package session

import (
	"io"
	"os"
	"strings"

	"github.com/faultline/faultline/control"
)

// Nodes say which nodes a run reaches and how: real nodes over SSH, or
// local ones on this host (the CLI's --nodes, --nodes-file, --ssh-*,
// --known-hosts and --local). The zero value names no nodes: the run is in
// process, or reaches what the script declares.
type Nodes struct {
	// List is "n1,n2" or "name=host:port,..."; with Local, the local
	// nodes' names (default n1,n2,n3).
	List string
	// File is a nodes file, one node per line (faultline cluster up
	// writes one).
	File string
	// User is the SSH login user; "" is root.
	User string
	// Keys are SSH private key files; none means ~/.ssh/id_* or ssh-agent.
	Keys []string
	// KnownHosts is the known_hosts file checked strictly ("" is
	// ~/.ssh/known_hosts).
	KnownHosts string
	// AcceptNew trusts and records the host key of a node not yet known.
	AcceptNew bool
	// Local runs the nodes on this host without SSH or root; links go
	// through faultline's proxy mesh.
	Local bool
}

// Open returns the pool of the nodes named (nil when none were) and the
// func that releases it. A --local pool's sweep of roots killed runs left
// behind is reported on warn.
func (n Nodes) Open(seed uint64, warn io.Writer) (*control.Pool, func() error, error) {
	if n.Local {
		if n.File != "" {
			return nil, nil, usage("--local nodes are named with --nodes, not --nodes-file")
		}
		var names []string
		if n.List != "" {
			ns, err := control.ParseNodes(n.List)
			if err != nil {
				return nil, nil, usage("%w", err)
			}
			for _, n := range ns {
				names = append(names, n.Name)
			}
		}
		return localPool(names, seed, warn)
	}
	p, err := n.SSHPool()
	if p == nil || err != nil {
		return nil, func() error { return nil }, err
	}
	return p, p.Close, nil
}

// SSHPool returns the SSH pool for the nodes named, or nil when none were.
func (n Nodes) SSHPool() (*control.Pool, error) {
	var nodes []control.Node
	if n.List != "" {
		ns, err := control.ParseNodes(n.List)
		if err != nil {
			return nil, usage("%w", err)
		}
		nodes = append(nodes, ns...)
	}
	slowdown := 1.0
	if n.File != "" {
		ns, err := control.ReadNodesFile(n.File)
		if err != nil {
			return nil, rejected(err)
		}
		nodes = append(nodes, ns...)
		// A VM cluster's nodes file says how slow its nodes are; the run's
		// op timeouts and readiness waits stretch by it.
		if f, ok, err := control.ReadNodesFileSlowdown(n.File); err != nil {
			return nil, rejected(err)
		} else if ok {
			slowdown = f
		}
	}
	if len(nodes) == 0 {
		return nil, nil
	}
	user := n.User
	if user == "" {
		user = "root"
	}
	// Without --ssh-key: the agent's keys when one runs, else ~/.ssh/id_*.
	cfg := control.SSHConfig{User: user, KeyFiles: n.Keys, UseAgent: len(n.Keys) == 0 && os.Getenv("SSH_AUTH_SOCK") != "",
		KnownHosts: n.KnownHosts, AcceptNew: n.AcceptNew}
	if err := cfg.Validate(); err != nil {
		return nil, rejected(err)
	}
	p, err := control.NewPool(nodes, control.SSHDialer(cfg))
	if err != nil {
		return nil, usage("nodes: %w", err)
	}
	p.SetSlowdown(slowdown)
	return p, nil
}

// flags repeats how the run reached its nodes, for a reproduce command:
// --local with the node names (so the count too; the default ones when
// List named none), or the SSH nodes with the non-default SSH settings.
func (n Nodes) flags() string {
	if n.Local {
		names := n.List
		if names == "" {
			names = strings.Join(defaultLocalNodes, ",")
		}
		return " --local --nodes " + shellQuote(names)
	}
	var b strings.Builder
	if n.List != "" {
		b.WriteString(" --nodes " + shellQuote(n.List))
	}
	if n.File != "" {
		b.WriteString(" --nodes-file " + shellQuote(n.File))
	}
	if b.Len() == 0 {
		return ""
	}
	if n.User != "" && n.User != "root" {
		b.WriteString(" --ssh-user " + shellQuote(n.User))
	}
	for _, k := range n.Keys {
		b.WriteString(" --ssh-key " + shellQuote(k))
	}
	if n.KnownHosts != "" {
		b.WriteString(" --known-hosts " + shellQuote(n.KnownHosts))
	}
	return b.String()
}
