package cluster

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

// launchScript runs inside the node's fresh UTS, PID and mount namespaces,
// with $1 the node name, $2 its directory, $3 sshd and $4 its config (passed
// as arguments, so nothing needs shell quoting). One `mount -a` does all the
// node's bind mounts (one process instead of six). The mount namespace is
// private (unshare's default), so none of them reach the host.
const launchScript = `set -e
printf %s "$1" >/proc/sys/kernel/hostname
mount -a -T "$2/fstab"
exec "$3" -D -e -f "$4"
`

// privateDirs are a node's own /opt, /tmp, /root and /run, with the modes
// those paths have on Debian. run/sshd is sshd's privilege-separation dir.
var privateDirs = []struct {
	name string
	mode os.FileMode
}{
	{"opt", 0o755}, {"tmp", 0o777 | os.ModeSticky}, {"root", 0o700},
	{"run", 0o755}, {"run/sshd", 0o755}, {"run/lock", 0o777 | os.ModeSticky},
}

// prepareNode writes node i's directory: private dirs, /etc files, sshd
// config. Files already there (a repaired node's /opt) are kept.
func prepareNode(c Config, i int) error {
	dir := c.nodeDir(i)
	for _, d := range privateDirs {
		p := filepath.Join(dir, d.name)
		if err := os.MkdirAll(p, 0o755); err != nil {
			return fmt.Errorf("prepare %s: %w", nodeName(i), err)
		}
		if err := os.Chmod(p, d.mode); err != nil { // MkdirAll's mode is cut by umask
			return fmt.Errorf("prepare %s: %w", nodeName(i), err)
		}
	}
	for _, f := range []struct {
		name string
		data []byte
	}{
		{"hosts", renderHosts(c)},
		{"hostname", []byte(nodeName(i) + "\n")},
		{"fstab", renderFstab(c, i, exists("/etc/hostname"))},
		{"sshd_config", renderSSHDConfig(c, i)},
	} {
		if err := writeFile(filepath.Join(dir, f.name), f.data, 0o644); err != nil {
			return fmt.Errorf("prepare %s: %w", nodeName(i), err)
		}
	}
	return nil
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// start configures node i's links and launches its sshd as PID 1 of new
// UTS, PID and mount namespaces, from a thread inside the node's network
// namespace, which the launcher inherits. The launcher (unshare, in the
// host's PID namespace) gets its own session so a Ctrl-C on the terminal
// that ran Up does not reach it, and --kill-child so killing it kills the
// node. exited receives the launcher's end, which is also what reaps it.
func start(paths map[string]string, c Config, i int) (<-chan error, error) {
	var exited <-chan error
	err := inNetns(c.nsName(i), func() error {
		if err := configureLinks(c.nodePrefix(i)); err != nil {
			return err
		}
		var err error
		exited, err = launch(paths, c, i)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", nodeName(i), err)
	}
	return exited, nil
}

// launch starts node i's launcher with its output in the node's sshd.log.
// It must run inside the node's network namespace (see start).
func launch(paths map[string]string, c Config, i int) (<-chan error, error) {
	dir := c.nodeDir(i)
	logf, err := os.OpenFile(filepath.Join(dir, "sshd.log"), os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, fmt.Errorf("start sshd on %s: %w", nodeName(i), err)
	}
	defer logf.Close() // the child has its own copy
	cmd := exec.Command(paths["unshare"], "--uts", "--pid", "--fork", "--mount-proc", "--kill-child",
		"/bin/sh", "-c", launchScript, "sh", nodeName(i), dir, paths["sshd"], c.sshdConfigPath(i))
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start sshd on %s: %w", nodeName(i), err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	return done, nil
}

// readyTimeout bounds the wait for a launched sshd to answer.
const readyTimeout = 10 * time.Second

// waitReady polls the node's address until sshd accepts connections,
// failing early with sshd's log if the launcher exits first.
func waitReady(ctx context.Context, c Config, i int, exited <-chan error) error {
	ctx, cancel := context.WithTimeout(ctx, readyTimeout)
	defer cancel()
	addr := netip.AddrPortFrom(c.nodeAddr(i), SSHPort)
	for {
		if probeTCP(ctx, addr, 200*time.Millisecond) == nil {
			return nil
		}
		select {
		case err := <-exited:
			return fmt.Errorf("sshd on %s exited (%v): %s", nodeName(i), err, logTail(c, i))
		case <-ctx.Done():
			return fmt.Errorf("sshd on %s did not answer on %s: %w; log: %s", nodeName(i), addr, ctx.Err(), logTail(c, i))
		case <-time.After(10 * time.Millisecond):
		}
	}
}

func logTail(c Config, i int) string {
	b, err := os.ReadFile(filepath.Join(c.nodeDir(i), "sshd.log"))
	if err != nil {
		return err.Error()
	}
	b = bytes.TrimSpace(b)
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	if len(b) == 0 {
		return "(empty)"
	}
	return string(b)
}

// probeTCP reports whether a TCP connect to addr succeeds: sshd listens.
// It does not wait for the SSH greeting, because that makes sshd fork and
// re-exec itself for each probe, which costs more than the whole check.
func probeTCP(ctx context.Context, addr netip.AddrPort, timeout time.Duration) error {
	d := net.Dialer{Timeout: timeout}
	conn, err := d.DialContext(ctx, "tcp", addr.String())
	if err != nil {
		return err
	}
	return conn.Close()
}

// nodeInits maps each namespace in nets to the host PID of its node's sshd
// (PID 1 of the node); namespaces without one are absent.
func nodeInits(nets map[nsID]string) (map[string]int, error) {
	procs, err := scanProcs(nets, nil)
	if err != nil {
		return nil, err
	}
	inits := make(map[string]int)
	for _, p := range procs {
		if isNodeInit(p.pid) {
			inits[p.ns] = p.pid
		}
	}
	return inits, nil
}
