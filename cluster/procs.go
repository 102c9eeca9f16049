package cluster

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// netnsDir is where `ip netns` mounts named network namespaces.
const netnsDir = "/run/netns"

// nsID identifies a namespace by its nsfs device and inode, which is how
// /proc/PID/ns/net and /run/netns/NAME can be compared without setns.
type nsID struct{ dev, ino uint64 }

func statNS(path string) (nsID, bool) {
	fi, err := os.Stat(path)
	if err != nil {
		return nsID{}, false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nsID{}, false
	}
	return nsID{dev: st.Dev, ino: st.Ino}, true
}

// namedNetns returns the namespace mounted at /run/netns/name. A plain file
// there (a crash between `ip netns add`'s create and mount) is no namespace.
func namedNetns(name string) (nsID, bool) {
	self, ok := statNS("/proc/self/ns/net")
	if !ok {
		return nsID{}, false
	}
	id, ok := statNS(filepath.Join(netnsDir, name))
	if !ok || id.dev != self.dev {
		return nsID{}, false
	}
	return id, true
}

// nodeProc is a host process found in one of the cluster's namespaces.
type nodeProc struct {
	pid int
	ns  string // namespace name, or "" when matched by argument only
}

// scanProcs lists processes whose network namespace is in nets, and, when
// configs is not empty, sshd or unshare processes with one of configs as an
// argument: those are the cluster's even if their namespace lost its name.
// Zombies have no namespace and no arguments, so they never match.
func scanProcs(nets map[nsID]string, configs map[string]bool) ([]nodeProc, error) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil, fmt.Errorf("list processes: %w", err)
	}
	self := os.Getpid()
	var out []nodeProc
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		dir := "/proc/" + e.Name()
		if id, ok := statNS(dir + "/ns/net"); ok {
			if ns, ok := nets[id]; ok {
				out = append(out, nodeProc{pid: pid, ns: ns})
				continue
			}
		}
		if len(configs) > 0 {
			if argv, err := os.ReadFile(dir + "/cmdline"); err == nil && argvNamesConfig(argv, configs) {
				out = append(out, nodeProc{pid: pid})
			}
		}
	}
	return out, nil
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

// isNodeInit reports whether pid is PID 1 of its own PID namespace and runs
// sshd: the node's sshd, as opposed to its launcher or a session child.
func isNodeInit(pid int) bool {
	dir := "/proc/" + strconv.Itoa(pid)
	comm, err := os.ReadFile(dir + "/comm")
	if err != nil || string(bytes.TrimSpace(comm)) != "sshd" {
		return false
	}
	status, err := os.ReadFile(dir + "/status")
	if err != nil {
		return false
	}
	inner, ok := innermostPID(status)
	return ok && inner == 1
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

// killTimeout bounds how long Down waits for killed processes to vanish.
const killTimeout = 5 * time.Second

// killAll SIGKILLs every matching process, all namespaces at once (so peers
// die together and their TCP connections close on both sides), and repeats
// until none is left: a node's sshd may fork between scan and kill.
func killAll(ctx context.Context, nets map[nsID]string, configs map[string]bool) error {
	ctx, cancel := context.WithTimeout(ctx, killTimeout)
	defer cancel()
	for {
		procs, err := scanProcs(nets, configs)
		if err != nil {
			return err
		}
		if len(procs) == 0 {
			return nil
		}
		for _, p := range procs {
			if err := syscall.Kill(p.pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
				return fmt.Errorf("kill node process %d: %w", p.pid, err)
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("node processes still alive after SIGKILL (%d, e.g. pid %d): %w", len(procs), procs[0].pid, ctx.Err())
		case <-time.After(10 * time.Millisecond):
		}
	}
}
