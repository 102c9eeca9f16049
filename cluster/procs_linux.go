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
