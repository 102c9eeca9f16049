//go:build !linux

package cluster

import (
	"fmt"
	"net/netip"
	"runtime"
)

// errNeedsNetns is why a namespace-cluster operation cannot run here:
// nodes are network namespaces (setns, the interface ioctls, /proc), which
// only Linux has.
func errNeedsNetns(what string) error {
	return fmt.Errorf("%s: network-namespace clusters need Linux (this is %s)", what, runtime.GOOS)
}

// inNetns fails: there are no network namespaces to enter on this system.
func inNetns(ns string, fn func() error) error {
	return errNeedsNetns("enter namespace " + ns)
}

// configureLinks fails: there is no node namespace whose links it could
// configure on this system.
func configureLinks(p netip.Prefix) error {
	return errNeedsNetns("configure eth0")
}
