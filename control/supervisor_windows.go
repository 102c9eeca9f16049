package control

import (
	"context"
	"fmt"
	"regexp"
	"runtime"
	"syscall"
	"time"
)

// Supervisor would run the daemons of local nodes, but on this system it
// refuses to: it leads each daemon's process group and stops, continues
// and kills the group with POSIX signals, none of which Windows has.
// Run local nodes on Linux or macOS, or nodes over SSH from here.
type Supervisor struct{}

// errNoSupervisor is why every Supervisor operation fails here.
var errNoSupervisor = fmt.Errorf("local-node daemons need process groups and POSIX signals, which %s does not have", runtime.GOOS)

// NewSupervisor returns a Supervisor that starts nothing.
func NewSupervisor() *Supervisor { return &Supervisor{} }

// Start fails: see Supervisor.
func (s *Supervisor) Start(ctx context.Context, node string, d Daemon) (int, error) {
	return 0, fmt.Errorf("node %s: start %q: %w", node, d.Argv, errNoSupervisor)
}

// Stop fails: see Supervisor. No daemon was started, so none is stopped.
func (s *Supervisor) Stop(ctx context.Context, node string, pid int, sig syscall.Signal, grace time.Duration) (bool, error) {
	return false, fmt.Errorf("node %s: stop pid %d: %w", node, pid, errNoSupervisor)
}

// Signal fails: see Supervisor.
func (s *Supervisor) Signal(ctx context.Context, node string, re *regexp.Regexp, sig syscall.Signal) (map[int]string, error) {
	return nil, fmt.Errorf("node %s: signal processes matching %q: %w", node, re, errNoSupervisor)
}

// Resume continues nothing: no daemon was started to be stopped.
func (s *Supervisor) Resume(node string) []string { return nil }

// Close has nothing to kill.
func (s *Supervisor) Close() error { return nil }
