package control

// linuxSignals are the names of Linux's signals 1 to 31 on x86 and arm, as
// golang.org/x/sys/unix lists them for Linux. Nodes are Linux, so their
// numbering is this table on every host, not the host's own: on macOS or
// FreeBSD USR1 is 30 and 10 is BUS.
var linuxSignals = [...]string{
	"SIGHUP",
	"SIGINT",
	"SIGQUIT",
	"SIGILL",
	"SIGTRAP",
	"SIGABRT",
	"SIGBUS",
	"SIGFPE",
	"SIGKILL",
	"SIGUSR1",
	"SIGSEGV",
	"SIGUSR2",
	"SIGPIPE",
	"SIGALRM",
	"SIGTERM",
	"SIGSTKFLT",
	"SIGCHLD",
	"SIGCONT",
	"SIGSTOP",
	"SIGTSTP",
	"SIGTTIN",
	"SIGTTOU",
	"SIGURG",
	"SIGXCPU",
	"SIGXFSZ",
	"SIGVTALRM",
	"SIGPROF",
	"SIGWINCH",
	"SIGIO",
	"SIGPWR",
	"SIGSYS",
}

// nodeSignalName names signal n as a Linux node numbers it ("SIGTERM"), or
// "" for none.
func nodeSignalName(n int) string {
	if n < 1 || n > len(linuxSignals) {
		return ""
	}
	return linuxSignals[n-1]
}

// nodeSignalNum is the Linux number of the signal named name ("SIGTERM"),
// or 0 for none.
func nodeSignalNum(name string) int {
	for i, s := range linuxSignals {
		if s == name {
			return i + 1
		}
	}
	return 0
}
