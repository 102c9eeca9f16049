package nemesis

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/faultline/faultline/control"
)

// signalScript signals, with $1, the processes of faultline's making whose
// command line matches the pattern $2 (pgrep -f), except this shell and its
// ancestors: those in the tree of the pid the pid file $4 names when one is
// given (the user named the process exactly), else those StartDaemon
// started and their descendants (control.OwnedFn's ours). A node's own
// processes that match (a look-alike, an exporter, a standby) are left
// alone and listed as "skip PID". Mode $3 pause records each pid it stops,
// with its start time, in the state file; mode resume signals not what
// matches but exactly the recorded pids that match and still are those
// processes (same start time), and forgets them, so a process the node
// stopped itself is never continued. For KILL and STOP it waits (up to 5s)
// for the signal to take effect. It prints "pid state" per process, the
// state read from /proc/pid/stat ("gone" when the process no longer
// exists).
const signalScript = stateLib + control.OwnedFn + `sig=$1 pat=$2 mode=$3 pidfile=$4
st() { s=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1); echo "${s:-gone}"; }
anc=" "; p=$$
while [ -n "$p" ] && [ "$p" -gt 1 ]; do anc="$anc$p "; p=$(sed -n 's/^PPid:[[:space:]]*//p' "/proc/$p/status" 2>/dev/null); done
root=
if [ -n "$pidfile" ]; then
  root=$(cat -- "$pidfile" 2>/dev/null)
  case $root in ''|*[!0-9]*) root=;; esac
fi
matched=" "
for p in $(pgrep -f -- "$pat"); do
  case $anc in *" $p "*) continue;; esac
  if [ -n "$pidfile" ]; then in_tree "$root" "$p" || { echo "skip $p"; continue; }
  else ours "$p" || { echo "skip $p"; continue; }; fi
  matched="$matched$p "
done
pids=""
if [ "$mode" = resume ]; then
  if [ -f "$state" ]; then
    while read -r kind p t; do
      [ "$kind" = paused ] || continue
      # Another fault's (alive, not matched) stays recorded; a gone one is forgotten.
      case $matched in *" $p "*) ;; *) [ -n "$(start_time "$p")" ] && continue;; esac
      forget paused "$p $t"
      [ -n "$t" ] && [ "$(start_time "$p")" = "$t" ] && pids="$pids $p"
    done <"$state"
  fi
else
  pids=$matched
fi
for p in $pids; do
  [ "$mode" = pause ] && note paused "$p $(start_time "$p")"
  kill -s "$sig" "$p" 2>/dev/null
done
i=0
while [ $i -lt 50 ]; do
  pending=0
  for p in $pids; do
    s=$(st "$p")
    case $sig in KILL) case $s in gone|Z|X) ;; *) pending=1;; esac;; STOP) [ "$s" = T ] || [ "$s" = gone ] || pending=1;; esac
  done
  [ $pending = 0 ] && break
  sleep 0.1; i=$((i + 1))
done
for p in $pids; do echo "$p $(st "$p")"; done
`

func init() {
	register(Fault{
		Name: "kill", Inject: "kill", End: "start", Holds: "process",
		Landing:  "every matched pid gone from /proc after inject, and still gone when the restart runs",
		Evidence: &Decl{Kind: "process_state", Min: 1, State: "gone"},
		Plan: &PlanPhrases{Phrases: "kill -9, SIGKILL, hard kill, crash", Target: "nodes", Rank: 20,
			Match: regexp.MustCompile(`(?i)\bkill\s+-(?:9|KILL)\b|\bSIGKILL\b|\bhard[- ]kill\b|\bcrash(?:es|ed)?\b|\bkill(?:s|ed)?\b`)},
		// The restart command is part of the fault: start needs it.
		Validate: func(v any) error { _, err := parseProcessSpec("start", v); return err },
		inject:   func(w *Worker, ctx context.Context, v any) (outcome, error) { return w.signal(ctx, "kill", v) },
		end:      func(w *Worker, ctx context.Context, v any) (outcome, error) { return w.start(ctx, v) },
	})
	register(Fault{
		Name: "pause", Inject: "pause", End: "resume", Holds: "process",
		Landing:  "every matched pid in state T after inject, and still stopped when resumed",
		Evidence: &Decl{Kind: "process_state", Min: 1, State: "stopped"},
		Plan: &PlanPhrases{Phrases: "SIGSTOP, kill -STOP, pause, freeze", Target: "nodes", Rank: 10,
			Match: regexp.MustCompile(`(?i)\bSIGSTOP\b|\bkill\s+-STOP\b|\bpaus(?:e|es|ed|ing)\b|\bfreez(?:e|es|ing)\b`)},
		Validate: func(v any) error { _, err := parseProcessSpec("resume", v); return err },
		inject:   func(w *Worker, ctx context.Context, v any) (outcome, error) { return w.signal(ctx, "pause", v) },
		end:      func(w *Worker, ctx context.Context, v any) (outcome, error) { return w.signal(ctx, "resume", v) },
	})
}

// processSpec is the value of kill, start, pause and resume ops.
type processSpec struct {
	nodes   any
	pattern string
	restart []string
	// ready, when given, is a command that succeeds once the restarted
	// process serves again (a db's health check); start runs it until it
	// does, so the heal ends when the system is back, not when its process
	// merely exists (a member replaying its log on a slow node can take
	// tens of seconds).
	ready   []string
	pidfile string
	logfile string
}

func parseProcessSpec(f string, v any) (processSpec, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return processSpec{}, fmt.Errorf("%s: want {nodes, pattern, ...}, got %T", f, v)
	}
	s := processSpec{nodes: m["nodes"]}
	s.pattern, _ = m["pattern"].(string)
	s.pidfile, _ = m["pidfile"].(string)
	s.logfile, _ = m["logfile"].(string)
	for _, field := range []struct {
		name string
		argv *[]string
	}{{"restart", &s.restart}, {"ready", &s.ready}} {
		list, _ := m[field.name].([]any)
		for _, a := range list {
			str, ok := a.(string)
			if !ok {
				return s, fmt.Errorf("%s: %s argument %v is not a string", f, field.name, a)
			}
			*field.argv = append(*field.argv, str)
		}
	}
	if s.pattern == "" {
		return s, fmt.Errorf("%s: no process pattern (an empty one would match every process)", f)
	}
	if f == "start" && len(s.restart) == 0 {
		return s, fmt.Errorf("start: no restart command")
	}
	return s, nil
}

// signal kills (KILL), pauses (STOP) or resumes (CONT) the matching
// processes on the targets and reads their state back from /proc.
func (w *Worker) signal(ctx context.Context, f string, v any) (outcome, error) {
	spec, err := parseProcessSpec(f, v)
	if err != nil {
		return outcome{value: v}, err
	}
	targets, err := w.processTargets(ctx, f, spec)
	if err != nil {
		return outcome{value: v}, err
	}
	sig := map[string]string{"kill": "KILL", "pause": "STOP", "resume": "CONT"}[f]
	landed, held := newVerdict(), newVerdict()
	ev, err := w.eachNode(ctx, targets, func(node string, r control.Remote) (any, error) {
		if f == "resume" {
			// Still stopped when the hold ended? (signal 0 only looks)
			before, err := signalProcesses(ctx, r, "", "0", spec)
			if err != nil || !processLanded("pause", before.states) {
				held.fail()
			}
		}
		got, err := signalProcesses(ctx, r, f, sig, spec)
		if err != nil {
			landed.fail()
			return nil, err
		}
		e := got.evidence()
		if !processLanded(f, got.states) {
			landed.fail()
			if f != "resume" && len(got.skipped) > 0 {
				return e, fmt.Errorf("node %s: %s: %s", node, f, spec.notOurs(got.skipped))
			}
		}
		return e, nil
	})
	val := resolved(v, targets)
	res := outcome{value: val, evidence: ev, landed: landed.ok() && err == nil, applied: true}
	if f == "resume" {
		h, healed := held.ok(), res.landed
		res.held, res.healed = &h, &healed
	}
	return res, err
}

// start runs the restart command on the targets and reads back that a
// matching process runs.
func (w *Worker) start(ctx context.Context, v any) (outcome, error) {
	spec, err := parseProcessSpec("start", v)
	if err != nil {
		return outcome{value: v}, err
	}
	targets, err := w.processTargets(ctx, "start", spec)
	if err != nil {
		return outcome{value: v}, err
	}
	landed, held := newVerdict(), newVerdict()
	ev, err := w.eachNode(ctx, targets, func(node string, r control.Remote) (any, error) {
		// Still dead when the hold ended, not revived behind faultline's back?
		before, err := signalProcesses(ctx, r, "", "0", spec)
		if err != nil || len(before.states) > 0 && !processLanded("kill", before.states) {
			held.fail()
		}
		pid, err := control.StartDaemon(ctx, r, control.Daemon{Argv: spec.restart, Pidfile: spec.pidfile, Logfile: spec.logfile})
		if err != nil {
			landed.fail()
			return nil, err
		}
		// Signal 0 only looks (a CONT would continue a process the node
		// stopped itself). A process just started may not have exec'd into
		// the command the pattern names yet (a wrapper script), so look
		// again for a few seconds before calling it not started.
		var got signalled
		for try := 0; ; try++ {
			got, err = signalProcesses(ctx, r, "", "0", spec)
			if err != nil {
				landed.fail()
				return nil, err
			}
			if len(got.states) > 0 || try == 50 || ctx.Err() != nil {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		if !processLanded("start", got.states) {
			landed.fail()
		}
		ev := got.evidence()
		ev["pid"] = int64(pid)
		if len(spec.ready) > 0 {
			ev["ready"] = awaitReady(ctx, r, spec.ready, w.opts.Pool.ScaleTimeout(readyWait))
		}
		return ev, nil
	})
	val := resolved(v, targets)
	res := outcome{value: val, evidence: ev, landed: landed.ok() && err == nil, applied: true}
	h, healed := held.ok(), res.landed
	res.held, res.healed = &h, &healed
	return res, err
}

// processTargets resolves the nodes of a process fault. The op that ends
// a fault (start after kill, resume after pause) acts on the nodes its
// fault hit, not on a fresh resolution of the spec: "the leader" or "one"
// names another node by then.
func (w *Worker) processTargets(ctx context.Context, f string, spec processSpec) ([]string, error) {
	if flt, ok := ByOp(f); ok && flt.End == f {
		key := flt.Inject + "\x00" + spec.pattern
		if t, ok := w.procTargets[key]; ok {
			delete(w.procTargets, key)
			return t, nil
		}
	}
	targets, err := w.targets(ctx, f, spec.nodes)
	if err == nil && (f == "kill" || f == "pause") {
		if w.procTargets == nil {
			w.procTargets = map[string][]string{}
		}
		w.procTargets[f+"\x00"+spec.pattern] = targets
	}
	return targets, err
}

// resolved is a process fault's value with its nodes resolved: what the
// history and a replayed schedule need to act on the same nodes again.
func resolved(v any, targets []string) map[string]any {
	out := map[string]any{}
	if m, ok := v.(map[string]any); ok {
		for k, x := range m {
			out[k] = x
		}
	}
	out["nodes"] = strs(targets)
	return out
}

// signalled is what a process signal found on a node: {pid: state} of the
// processes it acted on, read back afterwards, and the pids that matched
// the pattern but are the node's own, left alone.
type signalled struct {
	states  map[string]any
	skipped []string
}

// evidence is the node's landing evidence: the pids signalled and their
// states, and the matching pids left alone, if any.
func (s signalled) evidence() map[string]any {
	e := map[string]any{"pids": s.states}
	if len(s.skipped) > 0 {
		e["left_alone"] = strs(s.skipped)
	}
	return e
}

// notOurs says why a process fault found nothing to act on although the
// pattern matched: faultline signals only its own processes.
func (s processSpec) notOurs(skipped []string) string {
	whose := "started by faultline (node.start_daemon) or below one it started"
	if s.pidfile != "" {
		whose = "the process pid file " + control.Quote(s.pidfile) + " names or below it"
	}
	return fmt.Sprintf("pids %s match %s but none is %s: faultline signals only its own processes and leaves the node's own alone "+
		"(start the system with node.start_daemon, or name its pid file with pidfile=)",
		strings.Join(skipped, ", "), control.Quote(s.pattern), whose)
}

// signalProcesses sends sig to the processes of faultline's making that
// match spec's pattern on the node (signalScript says which) and returns
// what it found. A node whose daemons faultline supervises itself (local
// mode) signals only those; otherwise a script does it through /proc,
// recording pauses in StateFile (mode f).
func signalProcesses(ctx context.Context, r control.Remote, f, sig string, spec processSpec) (signalled, error) {
	if lp, ok := r.(control.Processes); ok {
		got, err := lp.SignalMatching(ctx, spec.pattern, unix.SignalNum("SIG"+sig))
		states := make(map[string]any, len(got))
		for pid, st := range got {
			states[strconv.Itoa(pid)] = st
		}
		return signalled{states: states}, err
	}
	what := "read back"
	if f != "" {
		what = f
	}
	out, err := runScript(ctx, r, what+" processes matching "+control.Quote(spec.pattern), signalScript, sig, spec.pattern, f, spec.pidfile)
	if err != nil {
		return signalled{}, err
	}
	return parseStates(out), nil
}

// parseStates reads "pid state" and "skip pid" lines.
func parseStates(out string) signalled {
	s := signalled{states: map[string]any{}}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) != 2 {
			continue
		}
		if f[0] == "skip" {
			s.skipped = append(s.skipped, f[1])
		} else if _, err := strconv.Atoi(f[0]); err == nil {
			s.states[f[0]] = f[1]
		}
	}
	return s
}

// processLanded decides from the /proc states whether a process fault took
// effect: something matched, and every match is gone (kill), stopped
// (pause) or running (resume, start).
func processLanded(f string, states map[string]any) bool {
	if len(states) == 0 {
		return false
	}
	for _, s := range states {
		st, _ := s.(string)
		switch f {
		case "kill":
			if st != "gone" && st != "Z" && st != "X" {
				return false
			}
		case "pause":
			if st != "T" {
				return false
			}
		default:
			if st == "T" || st == "gone" || st == "Z" || st == "X" {
				return false
			}
		}
	}
	return true
}

// readyWait bounds how long start waits for a restarted process to serve,
// on nodes of this host's speed; slow (emulated) nodes stretch it by their
// slowdown (control.Pool.ScaleTimeout).
const readyWait = 30 * time.Second

// awaitReady runs the ready command until it succeeds or limit has passed
// and says which, for the evidence. A process that never gets ready is not
// a failed restart: whether the system recovered is judged from what its
// clients saw (the recovery audit), and the evidence says how long it was
// given.
func awaitReady(ctx context.Context, r control.Remote, argv []string, limit time.Duration) string {
	began := time.Now()
	for {
		_, err := r.Run(ctx, control.Cmd{Argv: argv, Timeout: limit, Label: "ready"})
		if err == nil {
			return fmt.Sprintf("ready after %s", time.Since(began).Round(10*time.Millisecond))
		}
		if time.Since(began) >= limit || ctx.Err() != nil {
			return fmt.Sprintf("not ready after %s: %v", time.Since(began).Round(10*time.Millisecond), err)
		}
		time.Sleep(500 * time.Millisecond)
	}
}
