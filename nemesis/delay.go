package nemesis

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/faultline/faultline/agent/nfdelay"
	"github.com/faultline/faultline/control"
)

// DelayChain holds the NFQUEUE rule steering a node's input to the delay
// agent. It lives in the mangle table, jumped to from mangle INPUT, and
// first RETURNs loopback and the controller, so the controller's own ssh is
// never delayed.
//
// Why mangle and not filter: the agent's verdict is NF_ACCEPT, which ends
// the traversal of the table that queued the packet. Queued from filter
// INPUT, a delayed packet skipped the node's own filter rules after the
// jump (its DROPs stopped holding). Queued from mangle INPUT (priority
// -150), NF_ACCEPT only ends mangle: the packet goes on to the filter
// table's INPUT hook, where the node's rules and faultline's drops apply
// as to any other packet. The jump is appended to mangle INPUT, so the
// node's own mangle rules (marks, say) see every packet before it is
// queued. Marking packets and answering NF_REPEAT would work with the
// filter table too, but would take a mark bit the node may use itself.
const DelayChain = "FAULTLINE-DELAY"

// delayLib is shared shell: mipt runs iptables on the mangle table;
// delay_state prints what the nemesis reads back about a delay: the
// recorded agent ("agent none" when StateFile names none, else "agent PID
// alive|dead"), its stats ("stats none" or "stats JSON"), then the mangle
// INPUT jump count and DelayChain with counters, as ParseChain reads them.
const delayLib = `mipt() { iptables -w 5 -t mangle "$@"; }
alive() { s=$(sed -n 's/^State:[[:space:]]*//p' "/proc/$1/status" 2>/dev/null); case $s in ''|Z*|X*) return 1;; esac; }
delay_state() {
  grep -qxF "agent ` + agentPidfile + `" ` + StateFile + ` 2>/dev/null || { echo "agent none"; return 0; }
  pid=$(cat ` + agentPidfile + ` 2>/dev/null)
  case $pid in ''|*[!0-9]*) echo "agent 0 dead";; *) if alive "$pid"; then echo "agent $pid alive"; else echo "agent $pid dead"; fi;; esac
  if [ -s ` + agentStats + ` ]; then echo "stats $(cat ` + agentStats + `)"; else echo "stats none"; fi
  mipt -S INPUT | grep -c -- '-j ` + DelayChain + `$' || true
  mipt -L ` + DelayChain + ` -v -x -n 2>/dev/null || true
}
`

// delayRuleScript waits up to 5 s for the agent's first stats (it has
// bound the queue), then builds DelayChain in the mangle table (the
// exemptions, then the NFQUEUE rule), jumps to it from mangle INPUT and
// prints the state back. $1 is the controller's address, $2 the queue.
const delayRuleScript = delayLib + `i=0
until [ -s ` + agentStats + ` ]; do
  i=$((i + 1))
  if [ "$i" -gt 50 ]; then echo "the delay agent wrote no stats in 5s: $(tail -n 3 ` + agentLog + ` 2>/dev/null)" >&2; exit 1; fi
  sleep 0.1
done
mipt -N ` + DelayChain + ` 2>/dev/null || true
mipt -F ` + DelayChain + ` || exit 1
mipt -A ` + DelayChain + ` -i lo -j RETURN || exit 1
if [ -n "$1" ]; then mipt -A ` + DelayChain + ` -s "$1" -j RETURN || exit 1; fi
mipt -A ` + DelayChain + ` -j NFQUEUE --queue-num "$2" --queue-bypass || exit 1
mipt -C INPUT -j ` + DelayChain + ` 2>/dev/null || mipt -A INPUT -j ` + DelayChain + ` || exit 1
delay_state
`

// delayUnruleScript prints the state, then removes the rule; the agent is
// stopped next, so no packet is queued to a stopping agent.
const delayUnruleScript = delayLib + `delay_state
mipt -F ` + DelayChain + ` 2>/dev/null || true
`

// delayGoneScript prints the state after the agent stopped, then forgets
// the agent and removes its stats.
const delayGoneScript = stateLib + delayLib + `delay_state
forget agent ` + agentPidfile + ` && rm -f ` + agentStats + `
`

// delayState is a delay read back from a node.
type delayState struct {
	Recorded bool           // StateFile names an agent
	PID      int            // from the agent's pidfile; 0 if unreadable
	Alive    bool           // the pid runs
	Stats    *nfdelay.Stats // nil when the agent wrote none
	Chain    ChainState     // mangle INPUT's jump and DelayChain
}

// parseDelayState parses delayStateScript's output.
func parseDelayState(out string) (delayState, error) {
	var st delayState
	agent, rest, _ := strings.Cut(out, "\n")
	f := strings.Fields(agent)
	switch {
	case len(f) == 2 && f[0] == "agent" && f[1] == "none":
		return st, nil
	case len(f) != 3 || f[0] != "agent" || (f[2] != "alive" && f[2] != "dead"):
		return st, fmt.Errorf("parse delay state: agent line %q", agent)
	}
	pid, err := strconv.Atoi(f[1])
	if err != nil || pid < 0 {
		return st, fmt.Errorf("parse delay state: agent pid %q", f[1])
	}
	st.Recorded, st.PID, st.Alive = true, pid, f[2] == "alive"
	stats, rest, _ := strings.Cut(rest, "\n")
	js, ok := strings.CutPrefix(stats, "stats ")
	if !ok {
		return st, fmt.Errorf("parse delay state: stats line %q", stats)
	}
	if js != "none" {
		s, err := nfdelay.ParseStats([]byte(js))
		if err != nil {
			return st, err
		}
		st.Stats = &s
	}
	if st.Chain, err = ParseChain(rest); err != nil {
		return st, fmt.Errorf("parse delay state: %w", err)
	}
	return st, nil
}

// queueRule returns the NFQUEUE rule of DelayChain, if there is one.
func (st delayState) queueRule() (Rule, bool) {
	for _, r := range st.Chain.Rules {
		if r.Target == "NFQUEUE" {
			return r, true
		}
	}
	return Rule{}, false
}

// inEffect reports whether the delay is applied: the jump, the NFQUEUE
// rule and a live agent that has bound the queue (its stats name its pid).
func (st delayState) inEffect() bool {
	_, rule := st.queueRule()
	return st.Chain.Jumped && rule && st.Alive && st.Stats != nil && st.Stats.PID == st.PID && st.Stats.Running
}

// evidence is what a delay op records for the node.
func (st delayState) evidence() map[string]any {
	e := map[string]any{"agent_pid": int64(st.PID), "agent_alive": st.Alive, "jump": st.Chain.Jumped}
	r, ok := st.queueRule()
	e["rule"] = ok
	if ok {
		e["queued_packets"] = r.Packets
	}
	if s := st.Stats; s != nil {
		e["seen"], e["delayed"], e["flushed"] = int64(s.Seen), int64(s.Delayed), int64(s.Flushed)
		e["mean_delay_ms"] = float64(s.MeanDelayNS) / 1e6
		e["max_delay_ms"] = float64(s.MaxDelayNS) / 1e6
		e["agent_errors"] = int64(s.Errors)
		if s.LastError != "" {
			e["agent_last_error"] = s.LastError
		}
	}
	return e
}

// startAgentDelay delays the targets' input with faultline's NFQUEUE agent,
// for kernels without netem: on each target it uploads the agent (unless
// the same build is there), starts it, adds the NFQUEUE rule and reads
// both back. Landed means, on every target, the rule is in place behind
// the jump and the agent runs and has bound the queue.
func (w *Worker) startAgentDelay(ctx context.Context, targets []string, delay, jitter time.Duration) (outcome, error) {
	val := map[string]any{"nodes": strs(targets), "delay": delay.String(), "jitter": jitter.String(), "mechanism": "nfqueue"}
	if w.shaped != nil {
		return outcome{value: val}, fmt.Errorf("delay: a qdisc fault or delay is already active on %s; stop it first", strings.Join(w.shaped, ", "))
	}
	bin, err := agentExecutable()
	if err != nil {
		return outcome{value: val}, fmt.Errorf("delay agent: %w", err)
	}
	w.shaped, w.shapedKind = targets, "delay"
	landed := newVerdict()
	ev, err := w.eachNode(ctx, targets, func(node string, r control.Remote) (any, error) {
		e, err := w.startAgentOn(ctx, node, r, bin, delay, jitter)
		if err != nil || e["in_effect"] != true {
			landed.fail()
		}
		if e == nil {
			return nil, err
		}
		return e, err
	})
	return outcome{value: val, evidence: ev, landed: landed.ok() && err == nil, applied: true}, err
}

// startAgentOn starts the agent on one node, adds the rule and returns
// what it read back, with "in_effect" the node's landing verdict.
func (w *Worker) startAgentOn(ctx context.Context, node string, r control.Remote, bin string, delay, jitter time.Duration) (map[string]any, error) {
	ctl, err := w.controller(ctx, node, r)
	if err != nil {
		return nil, err
	}
	pid, uploaded, err := startAgent(ctx, r, bin, delay, jitter)
	if err != nil {
		return nil, err
	}
	e := map[string]any{"agent_pid": int64(pid), "uploaded": uploaded, "in_effect": false}
	out, err := runScript(ctx, r, "delay: NFQUEUE rule to the agent", delayRuleScript, ctl, strconv.Itoa(int(DelayQueue)))
	if err != nil {
		return e, err
	}
	st, err := parseDelayState(out)
	if err != nil {
		return e, fmt.Errorf("node %s: %w", node, err)
	}
	e = st.evidence()
	e["uploaded"], e["in_effect"] = uploaded, st.inEffect()
	return e, nil
}

// stopAgentDelay ends an agent delay on targets: it reads the delay back
// (still in effect until now: landed), removes the rule, stops the agent
// (which accepts what it holds) and reads both back gone (healed). Which
// nodes run an agent is read from their StateFile, as HealAll does, so it
// needs no memory of the start; ok is false when no target has one (the
// active fault is then a qdisc).
func (w *Worker) stopAgentDelay(ctx context.Context, targets []string) (res outcome, ok bool, err error) {
	before := map[string]delayState{}
	var mu sync.Mutex
	_, err = w.eachNode(ctx, targets, func(node string, r control.Remote) (any, error) {
		out, err := runScript(ctx, r, "delay: read back and remove the NFQUEUE rule", delayUnruleScript)
		if err != nil {
			return nil, err
		}
		st, err := parseDelayState(out)
		if err != nil {
			return nil, fmt.Errorf("node %s: %w", node, err)
		}
		mu.Lock()
		defer mu.Unlock()
		if st.Recorded {
			before[node] = st
		}
		return nil, nil
	})
	if err == nil && len(before) == 0 {
		return outcome{}, false, nil
	}
	landed, healed, effect := newVerdict(), newVerdict(), &counter{}
	ev, err2 := w.eachNode(ctx, targets, func(node string, r control.Remote) (any, error) {
		b, had := before[node]
		if !had || !b.inEffect() {
			landed.fail()
		}
		e := map[string]any{"before": b.evidence()}
		if !had {
			e["before"] = map[string]any{"agent": "none"}
		}
		if err := stopAgent(ctx, r); err != nil {
			healed.fail()
			return e, err
		}
		out, err := runScript(ctx, r, "delay: read back the agent gone", delayGoneScript)
		if err != nil {
			healed.fail()
			return e, err
		}
		after, err := parseDelayState(out)
		if err != nil {
			healed.fail()
			return e, fmt.Errorf("node %s: %w", node, err)
		}
		_, rule := after.queueRule()
		if after.Alive || rule {
			healed.fail()
		}
		e["after"] = after.evidence()
		if s := after.Stats; s != nil {
			// The final stats, written at exit, count every packet.
			e["seen"], e["delayed"], e["flushed"] = int64(s.Seen), int64(s.Delayed), int64(s.Flushed)
			e["mean_delay_ms"] = float64(s.MeanDelayNS) / 1e6
			effect.add(int64(s.Delayed)) // packets the agent held back: the delay's effect
		}
		if r, ok := b.queueRule(); ok {
			e["queued_packets"] = r.Packets
		}
		return e, nil
	})
	h := healed.ok() && err2 == nil && err == nil
	n := effect.total()
	return outcome{value: map[string]any{"nodes": strs(targets), "mechanism": "nfqueue"}, evidence: ev, landed: landed.ok(), healed: &h, effect: &n},
		true, errors.Join(err, err2)
}

// agentCanDelay says whether the agent can take the delay: every target
// has NFQUEUE, and the tc times given are durations it accepts.
func agentCanDelay(caps map[string]Capability, targets []string, delay, jitter string) (time.Duration, time.Duration, bool) {
	for _, n := range targets {
		if caps[n].NFQueue != "yes" {
			return 0, 0, false
		}
	}
	d, err := time.ParseDuration(delay)
	if err != nil {
		return 0, 0, false
	}
	var j time.Duration
	if jitter != "" {
		if j, err = time.ParseDuration(jitter); err != nil {
			return 0, 0, false
		}
	}
	return d, j, true
}
