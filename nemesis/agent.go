package nemesis

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/faultline/faultline/control"
)

// Where the delay agent lives on a node. The binary goes under /tmp, named
// by its checksum so a node keeps one copy per build; the pid, stats and log
// files go beside StateFile under /run.
const (
	agentPidfile = control.StateDir + "/nfdelay.pid"
	agentStats   = control.StateDir + "/nfdelay.stats"
	agentLog     = control.StateDir + "/nfdelay.log"
)

// DelayQueue is the NFQUEUE number faultline's delay agent serves; like
// QdiscHandle it is distinctive so no one else's queue is taken.
const DelayQueue uint16 = 0xfa17

// agentExecutable names the local binary installed as the delay agent: it
// must serve `agent nfdelay` (the faultline binary does). Tests point it
// at a binary built from testdata, since a test binary cannot serve it.
var agentExecutable = control.SelfBinary

// agentPrepScript records the agent in StateFile before it starts (so a
// crash right after still lets HealAll stop it), records its pid, stats
// and log files in control.CreatedFile (so heal removes them, the log
// included, which outlives the agent for a failed start's diagnosis) and
// clears stale stats.
const agentPrepScript = stateLib + `forget agent ` + agentPidfile + ` && note agent ` + agentPidfile + ` || exit 1
made file ` + agentPidfile + ` && made file ` + agentStats + ` && made file ` + agentLog + ` || exit 1
rm -f ` + agentStats + `
`

// startAgent installs the agent binary on the node (once per build) and
// starts it as a daemon serving DelayQueue. It returns the agent's pid and
// whether the binary was uploaded.
func startAgent(ctx context.Context, r control.Remote, local string, delay, jitter time.Duration) (int, bool, error) {
	if _, err := runScript(ctx, r, "delay agent: prepare", agentPrepScript); err != nil {
		return 0, false, err
	}
	bin, uploaded, err := control.InstallBinary(ctx, r, local, "faultline")
	if err != nil {
		return 0, false, fmt.Errorf("delay agent: %w", err)
	}
	pid, err := control.StartDaemon(ctx, r, control.Daemon{
		Argv: []string{bin, "agent", "nfdelay", "-q", strconv.Itoa(int(DelayQueue)),
			"-delay", delay.String(), "-jitter", jitter.String(), "-stats", agentStats},
		Pidfile: agentPidfile, Logfile: agentLog})
	if err != nil {
		return 0, uploaded, fmt.Errorf("delay agent: %w", err)
	}
	return pid, uploaded, nil
}

// stopAgent stops the node's agent with SIGTERM, which makes it accept the
// packets it holds and write its final stats.
func stopAgent(ctx context.Context, r control.Remote) error {
	_, err := control.StopDaemon(ctx, r, control.Stop{Pidfile: agentPidfile, Grace: 5 * time.Second})
	if err != nil {
		return fmt.Errorf("delay agent: %w", err)
	}
	return nil
}

// stopAgentFn is shared shell for HealAll: stop_agent PIDFILE stops the
// delay agent named there (TERM, KILL after 3 s) if that pid still runs
// the agent, not a process that reused its pid, and removes its files, log
// included (also when a crash came before the agent started: the state
// file notes the agent before its upload).
const stopAgentFn = `stop_agent() {
  pid=$(cat "$1" 2>/dev/null)
  case $pid in ''|*[!0-9]*) rm -f "$1" ` + agentStats + ` ` + agentLog + `; return 0;; esac
  if tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q ' agent nfdelay '; then
    kill -s TERM "$pid" 2>/dev/null
    i=0
    while [ -d "/proc/$pid" ] && ! grep -q '^State:[[:space:]]*Z' "/proc/$pid/status" 2>/dev/null; do
      i=$((i + 1)); [ "$i" -eq 30 ] && kill -s KILL "$pid" 2>/dev/null
      [ "$i" -gt 60 ] && break
      sleep 0.1
    done
    echo "stopped agent $pid"
  fi
  rm -f "$1" ` + agentStats + ` ` + agentLog + `
}
`
