package main

import (
	"github.com/spf13/pflag"

	"github.com/faultline/faultline/session"
)

// registerNodes adds the flags that say which real nodes a command reaches
// and how (DESIGN.md CLI).
func registerNodes(fl *pflag.FlagSet, n *session.Nodes) {
	fl.StringVar(&n.List, "nodes", "", "nodes to reach over SSH: n1,n2 or name=host:port,...")
	fl.StringVar(&n.File, "nodes-file", "", "file with one node per line (faultline cluster up writes one)")
	fl.StringVar(&n.User, "ssh-user", "root", "SSH login user")
	fl.StringArrayVar(&n.Keys, "ssh-key", nil, "SSH private key file (repeatable; default ~/.ssh/id_*, or ssh-agent)")
	fl.StringVar(&n.KnownHosts, "known-hosts", "", "known_hosts file checked strictly (default ~/.ssh/known_hosts)")
	fl.BoolVar(&n.AcceptNew, "ssh-accept-new", false, "trust and record the host key of a node not yet in known_hosts")
}

// registerLocal adds --local (not on heal: heal has nothing to do for local
// nodes, whose daemons and proxies die with the run that made them).
func registerLocal(fl *pflag.FlagSet, n *session.Nodes) {
	fl.BoolVar(&n.Local, "local", false, "run the nodes on this host without SSH or root: --nodes names them (default n1,n2,n3); links go through faultline's proxy mesh")
}
