//go:build unix

package control

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Supervisor starts, signals and reaps the daemons of local nodes. Each
// daemon leads its own process group (so a signal reaches what it forked)
// and, on Linux, dies with faultline (parent-death signal), so even a
// SIGKILLed controller leaves none behind; Close kills the rest.
type Supervisor struct {
	mu     sync.Mutex
	procs  []*supervised
	closed bool
	forks  chan forkReq // served by one OS-locked thread: see forker
}

type supervised struct {
	node    string
	argv    []string
	pidfile string
	cmd     *exec.Cmd
	done    chan struct{} // closed when reaped
}

type forkReq struct {
	cmd   *exec.Cmd
	reply chan error
}

// NewSupervisor returns an empty Supervisor.
func NewSupervisor() *Supervisor {
	s := &Supervisor{forks: make(chan forkReq)}
	go s.forker()
	return s
}

// forker starts every daemon from one goroutine locked to its OS thread:
// the kernel sends the parent-death signal when the thread that forked a
// child exits, and Go may retire threads, so they all come from one that
// lives as long as the Supervisor.
func (s *Supervisor) forker() {
	runtime.LockOSThread()
	for req := range s.forks {
		req.reply <- req.cmd.Start()
	}
}

// Start runs d.Argv as a daemon of node (output appended to d.Logfile,
// pid written to d.Pidfile). A live daemon already recorded in the same
// pidfile is kept and its pid returned, so starting twice is safe.
func (s *Supervisor) Start(ctx context.Context, node string, d Daemon) (int, error) {
	if len(d.Argv) == 0 {
		return 0, errors.New("empty command")
	}
	if d.Pidfile != "" {
		if p := s.find(node, func(p *supervised) bool { return p.pidfile == d.Pidfile && p.alive() }); p != nil {
			return p.cmd.Process.Pid, nil
		}
	}
	logPath := d.Logfile
	if logPath == "" {
		logPath = os.DevNull
	}
	if err := os.MkdirAll(dirOf(logPath), 0o755); err != nil {
		return 0, err
	}
	log, err := os.OpenFile(logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return 0, err
	}
	defer log.Close() // the child has its own descriptor
	cmd := exec.Command(d.Argv[0], d.Argv[1:]...)
	cmd.Dir = d.Chdir
	cmd.Stdout, cmd.Stderr = log, log
	cmd.Env = os.Environ()
	for _, k := range slices.Sorted(maps.Keys(d.Env)) {
		cmd.Env = append(cmd.Env, k+"="+d.Env[k])
	}
	cmd.SysProcAttr = daemonAttr()
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return 0, fmt.Errorf("supervisor %w", ErrClosed)
	}
	reply := make(chan error, 1)
	s.forks <- forkReq{cmd, reply}
	if err := <-reply; err != nil {
		s.mu.Unlock()
		return 0, err
	}
	p := &supervised{node: node, argv: d.Argv, pidfile: d.Pidfile, cmd: cmd, done: make(chan struct{})}
	s.procs = append(s.procs, p)
	s.mu.Unlock()
	go func() { _ = cmd.Wait(); close(p.done) }()
	if d.Pidfile != "" {
		if err := os.MkdirAll(dirOf(d.Pidfile), 0o755); err != nil {
			return 0, err
		}
		if err := os.WriteFile(d.Pidfile, []byte(strconv.Itoa(cmd.Process.Pid)+"\n"), 0o644); err != nil {
			return 0, err
		}
	}
	return cmd.Process.Pid, nil
}

// Stop sends sig to the process group of node's daemon pid, waits up to
// grace for it to exit, then kills it. It reports whether a live daemon was
// stopped.
func (s *Supervisor) Stop(ctx context.Context, node string, pid int, sig syscall.Signal, grace time.Duration) (bool, error) {
	p := s.find(node, func(p *supervised) bool { return p.cmd.Process.Pid == pid })
	if p == nil || !p.alive() {
		return false, nil
	}
	p.group(sig)
	p.group(syscall.SIGCONT) // a paused daemon cannot act on TERM
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-p.done:
		return true, nil
	case <-t.C:
	case <-ctx.Done():
	}
	p.group(syscall.SIGKILL)
	select {
	case <-p.done:
		return true, nil
	case <-time.After(10 * time.Second):
		return false, fmt.Errorf("pid %d survived KILL", pid)
	}
}

// Signal sends sig to node's live daemons whose command line (as started,
// or as it is now after an exec) matches re
// and returns their states afterwards, waiting up to 5 s for KILL (gone)
// and STOP (T) to take effect.
func (s *Supervisor) Signal(ctx context.Context, node string, re *regexp.Regexp, sig syscall.Signal) (map[int]string, error) {
	var hit []*supervised
	s.mu.Lock()
	for _, p := range s.procs {
		if p.node == node && p.alive() && (re.MatchString(strings.Join(p.argv, " ")) || re.MatchString(cmdline(p.cmd.Process.Pid))) {
			hit = append(hit, p)
		}
	}
	s.mu.Unlock()
	for _, p := range hit {
		_ = p.cmd.Process.Signal(sig)
	}
	settled := func() bool {
		for _, p := range hit {
			st := p.state()
			if sig == syscall.SIGKILL && st != "gone" || sig == syscall.SIGSTOP && st != "T" && st != "gone" {
				return false
			}
		}
		return true
	}
	for i := 0; i < 50 && !settled(); i++ {
		select {
		case <-ctx.Done():
			i = 50
		case <-time.After(100 * time.Millisecond):
		}
	}
	states := make(map[int]string, len(hit))
	for _, p := range hit {
		states[p.cmd.Process.Pid] = p.state()
	}
	return states, nil
}

// Resume continues node's stopped daemons and names each ("resumed PID").
func (s *Supervisor) Resume(node string) []string {
	var out []string
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range s.procs {
		if p.node == node && p.state() == "T" {
			p.group(syscall.SIGCONT)
			out = append(out, "resumed "+strconv.Itoa(p.cmd.Process.Pid))
		}
	}
	return out
}

// Close kills every daemon still running and waits for them to be reaped.
func (s *Supervisor) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	procs := s.procs
	close(s.forks)
	s.mu.Unlock()
	var errs []error
	for _, p := range procs {
		if !p.alive() {
			continue
		}
		p.group(syscall.SIGKILL)
		select {
		case <-p.done:
		case <-time.After(10 * time.Second):
			errs = append(errs, fmt.Errorf("node %s: pid %d survived KILL", p.node, p.cmd.Process.Pid))
		}
	}
	return errors.Join(errs...)
}

func (s *Supervisor) find(node string, match func(*supervised) bool) *supervised {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := len(s.procs) - 1; i >= 0; i-- {
		if p := s.procs[i]; p.node == node && match(p) {
			return p
		}
	}
	return nil
}

func (p *supervised) alive() bool {
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

// group signals the daemon's whole process group.
func (p *supervised) group(sig syscall.Signal) {
	_ = syscall.Kill(-p.cmd.Process.Pid, sig)
}

// state is the daemon's scheduler state ("R", "S", "T", ...) or "gone".
func (p *supervised) state() string {
	if !p.alive() {
		return "gone"
	}
	return procState(p.cmd.Process.Pid)
}

// procState reads a process's state from /proc, or from ps where there is
// no /proc (macOS).
func procState(pid int) string {
	if data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil {
		s := string(data)
		if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
			st := s[i+2 : i+3]
			if st == "Z" || st == "X" {
				return "gone"
			}
			return st
		}
	}
	out, err := exec.Command("ps", "-o", "state=", "-p", strconv.Itoa(pid)).Output()
	st := strings.TrimSpace(string(out))
	if err != nil || st == "" {
		return "gone"
	}
	return st[:1]
}

// cmdline is a process's current command line, "" where /proc has none.
func cmdline(pid int) string {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(strings.ReplaceAll(string(data), "\x00", " "))
}

func dirOf(p string) string {
	if i := strings.LastIndexByte(p, '/'); i > 0 {
		return p[:i]
	}
	return "."
}
