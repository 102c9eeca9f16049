package control

import "syscall"

// daemonAttr puts a daemon in its own process group and has the kernel
// kill it when faultline dies.
func daemonAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
