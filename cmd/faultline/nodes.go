package main

import (
	"os"

	"github.com/spf13/pflag"

	"github.com/faultline/faultline/control"
)

// nodeFlags say which real nodes a run reaches and how (DESIGN.md CLI).
type nodeFlags struct {
	nodes      string
	nodesFile  string
	user       string
	keys       []string
	knownHosts string
	acceptNew  bool
	local      bool // run's --local: nodes on this host, no SSH, no root
}

func (f *nodeFlags) register(fl *pflag.FlagSet) {
	fl.StringVar(&f.nodes, "nodes", "", "nodes to reach over SSH: n1,n2 or name=host:port,...")
	fl.StringVar(&f.nodesFile, "nodes-file", "", "file with one node per line (faultline cluster up writes one)")
	fl.StringVar(&f.user, "ssh-user", "root", "SSH login user")
	fl.StringArrayVar(&f.keys, "ssh-key", nil, "SSH private key file (repeatable; default ~/.ssh/id_*, or ssh-agent)")
	fl.StringVar(&f.knownHosts, "known-hosts", "", "known_hosts file checked strictly (default ~/.ssh/known_hosts)")
	fl.BoolVar(&f.acceptNew, "ssh-accept-new", false, "trust and record the host key of a node not yet in known_hosts")
}

// registerLocal adds --local (run only: heal has nothing to do for local
// nodes, whose daemons and proxies die with the run that made them).
func (f *nodeFlags) registerLocal(fl *pflag.FlagSet) {
	fl.BoolVar(&f.local, "local", false, "run the nodes on this host without SSH or root: --nodes names them (default n1,n2,n3); links go through faultline's proxy mesh")
}

// pool returns the pool for the nodes named (nil when none were) and the
// func that releases it.
func (f *nodeFlags) pool(seed uint64) (*control.Pool, func() error, error) {
	if f.local {
		if f.nodesFile != "" {
			return nil, nil, usageErr("--local nodes are named with --nodes, not --nodes-file")
		}
		var names []string
		if f.nodes != "" {
			ns, err := control.ParseNodes(f.nodes)
			if err != nil {
				return nil, nil, usageErr("%w", err)
			}
			for _, n := range ns {
				names = append(names, n.Name)
			}
		}
		return localPool(names, seed, os.Stderr)
	}
	p, err := f.sshPool()
	if p == nil || err != nil {
		return nil, func() error { return nil }, err
	}
	return p, p.Close, nil
}

// sshPool returns the SSH pool for the nodes named, or nil when none were.
func (f *nodeFlags) sshPool() (*control.Pool, error) {
	var nodes []control.Node
	if f.nodes != "" {
		ns, err := control.ParseNodes(f.nodes)
		if err != nil {
			return nil, usageErr("%w", err)
		}
		nodes = append(nodes, ns...)
	}
	if f.nodesFile != "" {
		ns, err := control.ReadNodesFile(f.nodesFile)
		if err != nil {
			return nil, &exitError{code: exitRejected, err: err}
		}
		nodes = append(nodes, ns...)
	}
	if len(nodes) == 0 {
		return nil, nil
	}
	cfg := control.SSHConfig{User: f.user, KeyFiles: f.keys, UseAgent: len(f.keys) == 0,
		KnownHosts: f.knownHosts, AcceptNew: f.acceptNew}
	p, err := control.NewPool(nodes, control.SSHDialer(cfg))
	if err != nil {
		return nil, usageErr("nodes: %w", err)
	}
	return p, nil
}
