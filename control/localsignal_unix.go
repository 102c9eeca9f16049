//go:build unix

package control

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// signalNumber maps a SignalName result to its number.
func signalNumber(name string) syscall.Signal { return unix.SignalNum("SIG" + name) }
