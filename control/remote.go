package control

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Remote runs commands and copies files on one node. Implementations are safe
// for concurrent use.
type Remote interface {
	// Run executes cmd. A non-zero exit returns the Result and an *ExitError;
	// a connection lost after the command was sent returns an error matching
	// ErrIndeterminate.
	Run(ctx context.Context, cmd Cmd) (Result, error)
	// Upload copies the local file to the remote path atomically: readers on
	// the node see the old file or the complete new one, never a prefix.
	Upload(ctx context.Context, local, remote string) error
	// Download copies the remote file to the local path, atomically likewise.
	Download(ctx context.Context, remote, local string) error
	// Close releases connections; the Remote must not be used afterwards.
	Close() error
	// Node names the node in errors and logs.
	Node() string
}

// Cmd is one command. Exactly one of Argv and Raw is set.
type Cmd struct {
	Argv         []string          // program and arguments, each shell-escaped
	Raw          string            // a shell command line sent as is (pipes, globs, &&)
	Dir          string            // working directory; the command fails if cd fails
	Env          map[string]string // extra environment (names must be shell identifiers)
	Sudo         bool              // run as SudoUser through sudo (skipped when already root)
	SudoUser     string            // target user of sudo; "" means root
	SudoPassword string            // used only when sudo -n is refused; sent on stdin
	Stdin        []byte            // standard input of the command
	Timeout      time.Duration     // enforced on the node by timeout(1); 0 means none
	Label        string            // shown instead of the command line in logs and errors (for generated scripts)
}

// describe names the command in messages: its Label, or the line sent.
func (c Cmd) describe(line string) string {
	if c.Label != "" {
		return c.Label
	}
	return abbrev(line, 200)
}

// Result is what a finished command produced.
type Result struct {
	Stdout, Stderr []byte
	Exit           int           // exit status; 128+n when killed by signal n
	Duration       time.Duration // wall time as seen by the controller
	Truncated      bool          // output beyond MaxOutput per stream was dropped
}

// MaxOutput bounds the bytes kept per output stream, so a runaway command
// cannot exhaust the controller's memory; the rest is read and dropped.
const MaxOutput = 64 << 20

// killGrace is how long timeout(1) waits after TERM before it sends KILL.
const killGrace = 5 * time.Second

// Sentinel errors, matched with errors.Is.
var (
	// ErrIndeterminate marks a command whose outcome is unknown: the
	// connection was lost, or the caller gave up, after it was sent.
	ErrIndeterminate = errors.New("outcome unknown")
	// ErrTimeout marks a command stopped by its Cmd.Timeout on the node.
	ErrTimeout = errors.New("command timed out")
	// ErrClosed is returned by a Remote used after Close.
	ErrClosed = errors.New("remote closed")
	// ErrHostKeyUnknown means the node's host key is not on file and
	// trust-on-first-use was not allowed.
	ErrHostKeyUnknown = errors.New("host key unknown")
	// ErrHostKeyMismatch means the node presented a key other than the one on
	// file or pinned: possibly a man in the middle, or a reinstalled node.
	ErrHostKeyMismatch = errors.New("host key mismatch")
)

// ExitError reports a command that ran and exited non-zero.
type ExitError struct {
	Node     string
	Cmd      string // the command line as sent, or the Cmd's Label
	Exit     int
	Signal   string // signal name when the command was killed by one
	TimedOut bool   // stopped by Cmd.Timeout
	Stdout   []byte
	Stderr   []byte
}

// Error names the node, the command, the status and the first line of stderr.
func (e *ExitError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "node %s: command %s ", e.Node, abbrev(e.Cmd, 200))
	switch {
	case e.TimedOut:
		fmt.Fprintf(&b, "timed out (exit %d)", e.Exit)
	case e.Signal != "":
		fmt.Fprintf(&b, "killed by signal %s", e.Signal)
	default:
		fmt.Fprintf(&b, "exited %d", e.Exit)
	}
	if line := firstLine(e.Stderr); line != "" {
		fmt.Fprintf(&b, ": %s", abbrev(line, 300))
	}
	return b.String()
}

// Is lets errors.Is(err, ErrTimeout) find a timed-out command.
func (e *ExitError) Is(target error) bool { return target == ErrTimeout && e.TimedOut }

// indeterminate wraps cause so that it matches ErrIndeterminate and cause.
func indeterminate(node, what string, cause error) error {
	return fmt.Errorf("node %s: %s: %w: %w", node, what, ErrIndeterminate, cause)
}

// exitResult turns a finished command's status into the Run error.
func exitResult(node, line string, c Cmd, res Result, signal string) error {
	if res.Exit == 0 {
		return nil
	}
	timedOut := c.Timeout > 0 && (res.Exit == 124 || res.Exit == 137 && res.Duration >= c.Timeout)
	return &ExitError{Node: node, Cmd: c.describe(line), Exit: res.Exit, Signal: signal, TimedOut: timedOut,
		Stdout: res.Stdout, Stderr: res.Stderr}
}

func firstLine(b []byte) string {
	s := strings.TrimSpace(string(b))
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

func abbrev(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// capBuffer keeps the first limit bytes written to it (MaxOutput when 0) and
// accepts and drops the rest, so the command never blocks on its output.
type capBuffer struct {
	buf     []byte
	limit   int
	dropped bool
}

func (c *capBuffer) Write(p []byte) (int, error) {
	limit := c.limit
	if limit == 0 {
		limit = MaxOutput
	}
	if room := limit - len(c.buf); len(p) > room {
		c.buf = append(c.buf, p[:room]...)
		c.dropped = true
		return len(p), nil
	}
	c.buf = append(c.buf, p...)
	return len(p), nil
}

// runDeadline bounds a command on the controller side: its own timeout plus
// the kill grace and slack for the network, so a silent node cannot hang a
// caller that set a Timeout.
func runDeadline(ctx context.Context, c Cmd) (context.Context, context.CancelFunc) {
	if c.Timeout <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, c.Timeout+killGrace+10*time.Second)
}
