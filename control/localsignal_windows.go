package control

import "syscall"

// signalNumber is 0, which is no signal: Windows has no signals to send a
// local daemon, and its Supervisor starts none to send them to.
func signalNumber(name string) syscall.Signal { return 0 }
