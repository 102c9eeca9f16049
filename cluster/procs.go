package cluster

import (
	"bytes"
	"path/filepath"
	"strconv"
)

// netnsDir is where `ip netns` mounts named network namespaces.
const netnsDir = "/run/netns"

// nsID identifies a namespace by its nsfs device and inode, which is how
// /proc/PID/ns/net and /run/netns/NAME can be compared without setns.
type nsID struct{ dev, ino uint64 }

// nodeProc is a host process found in one of the cluster's namespaces.
type nodeProc struct {
	pid int
	ns  string // namespace name, or "" when matched by argument only
}

// argvNamesConfig reports whether a NUL-separated command line is sshd or
// unshare run with one of configs as a whole argument.
func argvNamesConfig(cmdline []byte, configs map[string]bool) bool {
	args := bytes.Split(bytes.TrimRight(cmdline, "\x00"), []byte{0})
	if len(args) < 2 {
		return false
	}
	if base := filepath.Base(string(args[0])); base != "sshd" && base != "unshare" {
		return false
	}
	for _, a := range args[1:] {
		if configs[string(a)] {
			return true
		}
	}
	return false
}

// innermostPID reads the last field of the NSpid line of /proc/PID/status:
// the process's PID in its innermost PID namespace.
func innermostPID(status []byte) (int, bool) {
	for line := range bytes.SplitSeq(status, []byte{'\n'}) {
		rest, ok := bytes.CutPrefix(line, []byte("NSpid:"))
		if !ok {
			continue
		}
		f := bytes.Fields(rest)
		if len(f) == 0 {
			return 0, false
		}
		n, err := strconv.Atoi(string(f[len(f)-1]))
		if err != nil || n <= 0 {
			return 0, false
		}
		return n, true
	}
	return 0, false
}
