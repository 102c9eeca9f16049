//go:build !linux

package cluster

import "context"

// statNS finds no namespace: without Linux's nsfs nothing has one.
func statNS(path string) (nsID, bool) { return nsID{}, false }

// namedNetns finds no namespace: `ip netns` names only Linux's.
func namedNetns(name string) (nsID, bool) { return nsID{}, false }

// scanProcs fails rather than report no processes: it reads namespaces and
// command lines from Linux's /proc, so an empty answer would be a guess.
func scanProcs(nets map[nsID]string, configs map[string]bool) ([]nodeProc, error) {
	return nil, errNeedsNetns("list node processes")
}

// isNodeInit is false: a node's sshd is PID 1 of a Linux PID namespace.
func isNodeInit(pid int) bool { return false }

// killAll fails for the reason scanProcs does: it cannot find the
// processes it would kill.
func killAll(ctx context.Context, nets map[nsID]string, configs map[string]bool) error {
	return errNeedsNetns("kill node processes")
}
