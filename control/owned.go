package control

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// DaemonMark is the environment entry StartDaemon gives every daemon it
// starts on a node. The daemon's descendants inherit it, so the processes
// of faultline's making can be told from the node's own (a look-alike named
// like the system, an exporter, a standby) by reading /proc/PID/environ,
// with nothing to record first that a killed controller could leave
// unwritten.
const DaemonMark = "FAULTLINE_DAEMON=1"

// OwnedFn is shared shell for scripts that must act only on faultline's
// processes:
//
// start_time PID prints the process's start time (field 22 of
// /proc/PID/stat, clock ticks since boot), or nothing when it is gone; a
// pid with the same start time is the same process, not a reused pid.
//
// ours PID succeeds when PID is of faultline's making: it carries
// DaemonMark, or its session leader does (StartDaemon's daemons lead their
// sessions; a child that rewrites its environment memory for its process
// title, as PostgreSQL's do, still has its leader's session).
//
// in_tree ROOT PID succeeds when PID is ROOT, in ROOT's session, or below
// ROOT in the process tree: the process a pid file names and its children.
const OwnedFn = `start_time() { sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f20; }
session_of() { sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f4; }
marked() { tr '\0' '\n' <"/proc/$1/environ" 2>/dev/null | grep -qxF '` + DaemonMark + `'; }
ours() { marked "$1" && return 0; s=$(session_of "$1"); [ -n "$s" ] && [ "$s" -gt 1 ] && [ "$s" != "$1" ] && marked "$s"; }
in_tree() {
  [ -n "$1" ] || return 1
  [ "$2" = "$1" ] && return 0
  [ "$(session_of "$2")" = "$1" ] && return 0
  q=$2
  while [ -n "$q" ] && [ "$q" -gt 1 ]; do
    q=$(sed -n 's/^PPid:[[:space:]]*//p' "/proc/$q/status" 2>/dev/null)
    [ "$q" = "$1" ] && return 0
  done
  return 1
}
`

// stopStartedScript stops every process of faultline's making on the node
// (ours), except this shell and its ancestors: the set is taken once, up
// front (a child known by its session leader is still known once the
// leader is gone), sent TERM, given $1 tenths of a second, and what still
// runs, the same process by its start time, gets KILL. It prints
// "stopped PID COMMAND" per process and "survived PID" for one KILL did
// not end.
const stopStartedScript = aliveFn + OwnedFn + `grace=$1
anc=" "; p=$$
while [ -n "$p" ] && [ "$p" -gt 1 ]; do anc="$anc$p "; p=$(sed -n 's/^PPid:[[:space:]]*//p' "/proc/$p/status" 2>/dev/null); done
set --
for d in /proc/[0-9]*; do
  p=${d#/proc/}
  case $anc in *" $p "*) continue;; esac
  ours "$p" || continue
  alive "$p" || continue
  set -- "$@" "$p:$(start_time "$p")"
  echo "stopped $p $(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | tr -cd '[:print:]' | cut -c1-100)"
done
same() { [ "$(start_time "${1%%:*}")" = "${1#*:}" ] && alive "${1%%:*}"; }
for e; do kill -s TERM "${e%%:*}" 2>/dev/null; done
i=0
while [ $i -lt "$grace" ]; do
  left=0
  for e; do same "$e" && left=1; done
  [ $left = 0 ] && break
  sleep 0.1; i=$((i + 1))
done
for e; do same "$e" && kill -s KILL "${e%%:*}" 2>/dev/null; done
i=0
while [ $i -lt 50 ]; do
  left=0
  for e; do same "$e" && left=1; done
  [ $left = 0 ] && break
  sleep 0.1; i=$((i + 1))
done
for e; do same "$e" && echo "survived ${e%%:*}"; done
true
`

// StopStarted stops, on the node, every process StartDaemon started there
// and their descendants (DaemonMark): TERM, then KILL after grace. It is
// what `faultline heal` does with a run a killed controller left behind,
// whose db daemons no teardown stopped. It returns one line per process
// stopped; a process that survived KILL is an error. A node whose daemons
// faultline supervises in its own process (local mode) has none left: they
// ended with the run.
func StopStarted(ctx context.Context, r Remote, grace time.Duration) ([]string, error) {
	if _, ok := r.(Processes); ok {
		return nil, nil
	}
	tenths := fmt.Sprint(int((grace + 99*time.Millisecond) / (100 * time.Millisecond)))
	res, err := r.Run(ctx, Cmd{Argv: []string{"sh", "-c", stopStartedScript, "faultline-stop-started", tenths},
		Timeout: grace + 30*time.Second, Label: "stop the daemons faultline started"})
	if err != nil {
		return nil, fmt.Errorf("stop the daemons faultline started: %w", err)
	}
	var stopped, survived []string
	for _, l := range strings.Split(strings.TrimSpace(string(res.Stdout)), "\n") {
		if rest, ok := strings.CutPrefix(l, "stopped "); ok {
			stopped = append(stopped, "stopped daemon "+strings.TrimSpace(rest))
		} else if pid, ok := strings.CutPrefix(l, "survived "); ok {
			survived = append(survived, pid)
		}
	}
	if len(survived) > 0 {
		return stopped, fmt.Errorf("node %s: daemons faultline started survived KILL: pids %s", r.Node(), strings.Join(survived, ", "))
	}
	return stopped, nil
}
