package control

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The helpers below each run one small POSIX sh script on the node, with
// their inputs passed as positional parameters (never spliced into the
// script text). They assume a Linux node: liveness comes from /proc, so a
// zombie waiting to be reaped counts as dead.

// aliveFn is shared shell: alive PID succeeds while PID runs (not a zombie).
const aliveFn = `alive() { s=$(sed -n 's/^State:[[:space:]]*//p' "/proc/$1/status" 2>/dev/null); case $s in ''|Z*|X*) return 1;; esac; }
`

const startScript = aliveFn + `pidfile=$1 log=$2 dir=$3; shift 3
if [ -n "$dir" ]; then cd "$dir" || exit 1; fi
if [ -n "$pidfile" ] && [ -f "$pidfile" ]; then
  old=$(cat "$pidfile")
  case $old in ''|*[!0-9]*) ;; *) if alive "$old"; then echo "$old"; exit 0; fi;; esac
fi
mkdir -p "$(dirname "$log")" || exit 1
if [ -n "$pidfile" ]; then mkdir -p "$(dirname "$pidfile")" || exit 1; fi
export ` + DaemonMark + `
setsid nohup "$@" </dev/null >>"$log" 2>&1 &
pid=$!
if [ -n "$pidfile" ]; then echo "$pid" >"$pidfile" || exit 1; fi
echo "$pid"
`

// Daemon describes a long-running process started with StartDaemon.
type Daemon struct {
	Argv    []string          // program and arguments
	Pidfile string            // where the pid is kept; "" keeps none (then StopDaemon cannot find it)
	Logfile string            // stdout and stderr are appended here; default /dev/null
	Chdir   string            // working directory; relative Pidfile and Logfile resolve against it
	Env     map[string]string // extra environment
	Sudo    bool              // start it through sudo
}

// StartDaemon starts d detached from the session (setsid, nohup, stdio
// redirected), so it survives the ssh session and the connection. The
// daemon and its descendants carry DaemonMark in their environment: the
// process faults act only on them, and heal stops them (StopStarted). If the
// pidfile names a live process, nothing is started and that pid is returned,
// so calling it twice is safe. A dry-run remote yields pid 0.
func StartDaemon(ctx context.Context, r Remote, d Daemon) (int, error) {
	if len(d.Argv) == 0 {
		return 0, errors.New("start daemon: empty command")
	}
	if lp, ok := r.(Processes); ok {
		return lp.StartDaemon(ctx, d)
	}
	log := d.Logfile
	if log == "" {
		log = "/dev/null"
	}
	argv := []string{"sh", "-c", startScript, "faultline-start", d.Pidfile, log, d.Chdir}
	if len(d.Env) > 0 {
		argv = append(argv, "env")
		for _, k := range slices.Sorted(maps.Keys(d.Env)) {
			if !shellName(k) {
				return 0, fmt.Errorf("start daemon: environment variable name %q is not a shell identifier", k)
			}
			argv = append(argv, k+"="+d.Env[k])
		}
	}
	argv = append(argv, d.Argv...)
	label := fmt.Sprintf("start_daemon %s (pidfile %s, log %s, chdir %s)", QuoteArgv(d.Argv), Quote(d.Pidfile), Quote(log), Quote(d.Chdir))
	res, err := r.Run(ctx, Cmd{Argv: argv, Sudo: d.Sudo, Timeout: time.Minute, Label: label})
	if err != nil {
		return 0, fmt.Errorf("start daemon %s: %w", abbrev(QuoteArgv(d.Argv), 120), err)
	}
	if isDryRun(r) {
		return 0, nil
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(res.Stdout)))
	if err != nil {
		return 0, fmt.Errorf("node %s: start daemon %s: unexpected output %q", r.Node(), abbrev(QuoteArgv(d.Argv), 120), res.Stdout)
	}
	return pid, nil
}

const stopScript = aliveFn + `pidfile=$1 sig=$2 n=$3
[ -f "$pidfile" ] || { echo absent; exit 0; }
pid=$(cat "$pidfile")
case $pid in ''|*[!0-9]*) echo "pid file $pidfile holds '$pid', not a pid" >&2; exit 1;; esac
if ! alive "$pid"; then rm -f "$pidfile"; echo dead; exit 0; fi
kill -s "$sig" -- "-$pid" 2>/dev/null || kill -s "$sig" "$pid" 2>/dev/null
i=0
while alive "$pid"; do
  if [ "$i" -eq "$n" ]; then kill -s KILL -- "-$pid" 2>/dev/null || kill -s KILL "$pid" 2>/dev/null; fi
  if [ "$i" -gt $((n + 100)) ]; then echo "pid $pid survived KILL" >&2; exit 1; fi
  sleep 0.1; i=$((i + 1))
done
rm -f "$pidfile"
echo stopped
`

// Stop says how StopDaemon ends a daemon.
type Stop struct {
	Pidfile string        // as given to StartDaemon
	Signal  string        // first signal; default TERM
	Grace   time.Duration // wait before KILL; default 10s
	Sudo    bool
}

// StopDaemon signals the daemon in the pidfile (its whole process group
// when it leads one, as StartDaemon's daemons do), waits up to Grace for it
// to exit, then sends KILL, and removes the pidfile. It reports whether a
// live daemon was stopped; a missing pidfile or a dead pid is not an error.
func StopDaemon(ctx context.Context, r Remote, s Stop) (bool, error) {
	if s.Pidfile == "" {
		return false, errors.New("stop daemon: no pid file")
	}
	sig, err := SignalName(s.Signal)
	if err != nil {
		return false, fmt.Errorf("stop daemon: %w", err)
	}
	if lp, ok := r.(Processes); ok {
		return lp.StopDaemon(ctx, s)
	}
	if s.Grace <= 0 {
		s.Grace = 10 * time.Second
	}
	tenths := strconv.Itoa(int((s.Grace + 99*time.Millisecond) / (100 * time.Millisecond)))
	c := Cmd{Argv: []string{"sh", "-c", stopScript, "faultline-stop", s.Pidfile, sig, tenths},
		Sudo: s.Sudo, Timeout: s.Grace + 30*time.Second,
		Label: fmt.Sprintf("stop_daemon %s (signal %s, KILL after %s)", Quote(s.Pidfile), sig, s.Grace)}
	res, err := r.Run(ctx, c)
	if err != nil {
		return false, fmt.Errorf("stop daemon %s: %w", s.Pidfile, err)
	}
	return strings.TrimSpace(string(res.Stdout)) == "stopped", nil
}

const signalScript = aliveFn + `sig=$1 mode=$2 target=$3
if [ "$mode" = pid ]; then
  alive "$target" || { echo 0; exit 0; }
  kill -s "$sig" "$target" || exit 1
  echo 1; exit 0
fi
anc=" "; p=$$
while [ -n "$p" ] && [ "$p" -gt 1 ]; do anc="$anc$p "; p=$(sed -n 's/^PPid:[[:space:]]*//p' "/proc/$p/status" 2>/dev/null); done
n=0
for p in $(pgrep -f -- "$target"); do
  case $anc in *" $p "*) continue;; esac
  kill -s "$sig" "$p" 2>/dev/null && n=$((n + 1))
done
echo "$n"
`

// SignalPID sends sig to pid and returns 1, or 0 if pid is not running.
func SignalPID(ctx context.Context, r Remote, pid int, sig string, sudo bool) (int, error) {
	if pid <= 0 {
		return 0, fmt.Errorf("signal: bad pid %d", pid)
	}
	return sendSignal(ctx, r, "pid", strconv.Itoa(pid), sig, sudo)
}

// SignalMatching sends sig to every process whose full command line matches
// the extended regular expression pattern (as pgrep -f does), except the
// shell doing it and its ancestors, whose command lines contain the pattern
// too. It returns how many processes were signalled.
func SignalMatching(ctx context.Context, r Remote, pattern, sig string, sudo bool) (int, error) {
	if pattern == "" {
		return 0, errors.New("signal: empty pattern would match every process")
	}
	return sendSignal(ctx, r, "match", pattern, sig, sudo)
}

func sendSignal(ctx context.Context, r Remote, mode, target, sig string, sudo bool) (int, error) {
	name, err := SignalName(sig)
	if err != nil {
		return 0, fmt.Errorf("signal: %w", err)
	}
	if lp, ok := r.(Processes); ok && mode == "match" {
		states, err := lp.SignalMatching(ctx, target, signalNumber(name))
		return len(states), err
	}
	label := "signal " + name + " pid " + target
	if mode == "match" {
		label = "signal " + name + " processes matching " + Quote(target)
	}
	c := Cmd{Argv: []string{"sh", "-c", signalScript, "faultline-signal", name, mode, target}, Sudo: sudo, Timeout: time.Minute, Label: label}
	res, err := r.Run(ctx, c)
	if err != nil {
		return 0, fmt.Errorf("signal %s %s: %w", name, target, err)
	}
	if isDryRun(r) {
		return 0, nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(res.Stdout)))
	if err != nil {
		return 0, fmt.Errorf("node %s: signal %s %s: unexpected output %q", r.Node(), name, target, res.Stdout)
	}
	return n, nil
}

// SignalName normalises a signal given as "TERM", "SIGTERM", "term" or a
// number to the name kill -s takes. "" means TERM. Numbers use Linux
// numbering, since nodes are Linux.
func SignalName(s string) (string, error) {
	if s == "" {
		return "TERM", nil
	}
	if n, err := strconv.Atoi(s); err == nil {
		name := nodeSignalName(n)
		if name == "" {
			return "", fmt.Errorf("unknown signal %d", n)
		}
		return strings.TrimPrefix(name, "SIG"), nil
	}
	name := strings.TrimPrefix(strings.ToUpper(s), "SIG")
	if nodeSignalNum("SIG"+name) == 0 {
		return "", fmt.Errorf("unknown signal %q", s)
	}
	return name, nil
}

const awaitPortScript = `hex=$(printf '%04X' "$1")
while ! grep -Eq "^ *[0-9]+: [0-9A-F]+:$hex [0-9A-F]+:[0-9A-F]+ 0A " /proc/net/tcp /proc/net/tcp6 2>/dev/null; do sleep 0.1; done
`

// AwaitPort waits until a TCP socket on the node listens on port (any
// address), polling the kernel's socket table every 100ms on the node
// itself. It fails with ErrTimeout after timeout (default 60s).
func AwaitPort(ctx context.Context, r Remote, port int, timeout time.Duration) error {
	if port < 1 || port > 65535 {
		return fmt.Errorf("await port: %d out of range", port)
	}
	if timeout <= 0 {
		timeout = time.Minute
	}
	c := Cmd{Argv: []string{"sh", "-c", awaitPortScript, "faultline-await", strconv.Itoa(port)}, Timeout: timeout,
		Label: fmt.Sprintf("await_port %d (timeout %s)", port, timeout)}
	if _, err := r.Run(ctx, c); err != nil {
		if errors.Is(err, ErrTimeout) {
			return fmt.Errorf("node %s: port %d not listening after %s: %w", r.Node(), port, timeout, ErrTimeout)
		}
		return fmt.Errorf("await port %d: %w", port, err)
	}
	return nil
}

// Exists reports whether path exists on the node.
func Exists(ctx context.Context, r Remote, path string) (bool, error) {
	_, err := r.Run(ctx, Cmd{Argv: []string{"test", "-e", path}})
	var ee *ExitError
	switch {
	case err == nil:
		return true, nil
	case errors.As(err, &ee) && ee.Exit == 1:
		return false, nil
	}
	return false, fmt.Errorf("exists %s: %w", path, err)
}

func isDryRun(r Remote) bool {
	_, ok := r.(*DryRunRemote)
	return ok
}
