package control

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// nodeSignalName names signal n as a Linux node numbers it ("SIGTERM"), or
// "" for none. Nodes are Linux, so this host's own table serves.
func nodeSignalName(n int) string { return unix.SignalName(syscall.Signal(n)) }

// nodeSignalNum is the Linux number of the signal named name ("SIGTERM"),
// or 0 for none.
func nodeSignalNum(name string) int { return int(unix.SignalNum(name)) }
