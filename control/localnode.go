package control

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"
)

// LocalDir is the Starlark-visible default working directory of a node over
// SSH (node.dir); /opt is private per node on a netns cluster.
const LocalDir = "/opt/faultline"

// NewLocalPool returns a pool of nodes that are directories under root on
// this host (--local): node n runs its commands in root/n and its daemons
// are children of faultline, started, signalled and reaped by a Supervisor,
// so process faults reach only them and none outlives faultline. Every node's
// host is 127.0.0.1; give the pool a Network (mesh) so they can share it.
func NewLocalPool(root string, names []string) (*Pool, *Supervisor, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, nil, fmt.Errorf("local nodes: %w", err)
	}
	nodes := make([]Node, 0, len(names))
	for _, name := range names {
		if name == "." || name == ".." || strings.Trim(name, ".") == "" {
			// A local node is a directory named after it: "." or ".."
			// would be the root itself or outside it.
			return nil, nil, fmt.Errorf("local node name %q names no directory of its own", name)
		}
		if err := checkName(name); err != nil {
			return nil, nil, fmt.Errorf("local nodes: %w", err)
		}
		if err := os.MkdirAll(filepath.Join(abs, name), 0o755); err != nil {
			return nil, nil, fmt.Errorf("local nodes: %w", err)
		}
		nodes = append(nodes, Node{Name: name, Host: "127.0.0.1", Dir: filepath.Join(abs, name)})
	}
	sup := NewSupervisor()
	p, err := NewPool(nodes, func(_ context.Context, n Node) (Remote, error) {
		return &localNode{localRemote: localRemote{node: n.Name, sudo: &sudoer{root: os.Geteuid() == 0}},
			dir: n.Dir, sup: sup}, nil
	})
	if err != nil {
		return nil, nil, err
	}
	return p, sup, nil
}

// localNode is one --local node: a directory, commands run in it, and its
// daemons under the Supervisor.
type localNode struct {
	localRemote
	dir string
	sup *Supervisor
}

// Processes is implemented by remotes whose daemons faultline supervises
// itself (local nodes). Process faults and signals then reach exactly those
// daemons, never another process of the host whose command line matches.
type Processes interface {
	// Dir is the node's directory; relative paths resolve against it.
	Dir() string
	StartDaemon(ctx context.Context, d Daemon) (int, error)
	StopDaemon(ctx context.Context, s Stop) (bool, error)
	// SignalMatching signals the node's live daemons whose command line
	// matches the regular expression, waits (up to 5 s) for KILL and STOP
	// to take effect, and returns each one's state afterwards (as in
	// /proc/PID/stat, or "gone").
	SignalMatching(ctx context.Context, pattern string, sig syscall.Signal) (map[int]string, error)
	// Resume continues every stopped daemon of the node and names them.
	Resume(ctx context.Context) ([]string, error)
}

var _ Processes = (*localNode)(nil)

func (l *localNode) Dir() string { return l.dir }

func (l *localNode) Run(ctx context.Context, c Cmd) (Result, error) {
	if c.Dir == "" {
		c.Dir = l.dir
	} else {
		c.Dir = l.path(c.Dir)
	}
	return l.localRemote.Run(ctx, c)
}

// path resolves p against the node's directory.
func (l *localNode) path(p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(l.dir, p)
}

func (l *localNode) Upload(ctx context.Context, local, remote string) error {
	return l.localRemote.Upload(ctx, local, l.path(remote))
}

func (l *localNode) Download(ctx context.Context, remote, local string) error {
	return l.localRemote.Download(ctx, l.path(remote), local)
}

func (l *localNode) StartDaemon(ctx context.Context, d Daemon) (int, error) {
	if d.Sudo {
		return 0, fmt.Errorf("node %s: start daemon: local nodes run without root; sudo is not available", l.node)
	}
	dir := l.dir
	if d.Chdir != "" {
		dir = l.path(d.Chdir)
	}
	at := func(p string) string {
		if p == "" || filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(dir, p)
	}
	pid, err := l.sup.Start(ctx, l.node, Daemon{Argv: d.Argv, Pidfile: at(d.Pidfile), Logfile: at(d.Logfile), Chdir: dir, Env: d.Env})
	if err != nil {
		return 0, fmt.Errorf("node %s: start daemon %s: %w", l.node, abbrev(QuoteArgv(d.Argv), 120), err)
	}
	return pid, nil
}

func (l *localNode) StopDaemon(ctx context.Context, s Stop) (bool, error) {
	sig, err := SignalName(s.Signal)
	if err != nil {
		return false, fmt.Errorf("stop daemon: %w", err)
	}
	data, err := os.ReadFile(l.path(s.Pidfile))
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("node %s: stop daemon: %w", l.node, err)
	}
	var pid int
	if _, err := fmt.Sscan(strings.TrimSpace(string(data)), &pid); err != nil {
		return false, fmt.Errorf("node %s: pid file %s holds %q, not a pid", l.node, s.Pidfile, data)
	}
	grace := s.Grace
	if grace <= 0 {
		grace = 10 * time.Second
	}
	stopped, err := l.sup.Stop(ctx, l.node, pid, signalNumber(sig), grace)
	if err == nil {
		os.Remove(l.path(s.Pidfile))
	}
	return stopped, err
}

func (l *localNode) SignalMatching(ctx context.Context, pattern string, sig syscall.Signal) (map[int]string, error) {
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, fmt.Errorf("node %s: process pattern %q: %w", l.node, pattern, err)
	}
	return l.sup.Signal(ctx, l.node, re, sig)
}

func (l *localNode) Resume(ctx context.Context) ([]string, error) {
	return l.sup.Resume(l.node), nil
}
