//go:build unix && !linux

package control

import "syscall"

// daemonAttr puts a daemon in its own process group. Without a
// parent-death signal (Linux only), a SIGKILLed faultline can leave
// daemons behind; Close and the demo's cleanup cover every other exit.
func daemonAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
