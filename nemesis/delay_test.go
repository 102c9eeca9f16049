package nemesis

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/cluster"
	"github.com/faultline/faultline/control"
	"github.com/faultline/faultline/internal/integration"
)

// TestMain keeps tests from uploading the test binary as the delay agent
// (it would run the tests on the nodes); TestDelayAgent builds a real one.
func TestMain(m *testing.M) {
	agentExecutable = func() (string, error) { return "", errors.New("no delay agent in tests: use buildAgent") }
	os.Exit(m.Run())
}

// buildAgent builds testdata/nfdelay-agent, which serves `agent nfdelay`
// as faultline does, and makes it the agent for the rest of the test.
func buildAgent(t *testing.T) {
	t.Helper()
	goTool := integration.NeedCommand(t, "go")
	bin := filepath.Join(t.TempDir(), "faultline")
	out, err := exec.Command(goTool, "build", "-o", bin, "./testdata/nfdelay-agent").CombinedOutput()
	if err != nil {
		t.Fatalf("build the agent: %v\n%s", err, out)
	}
	old := agentExecutable
	agentExecutable = func() (string, error) { return bin, nil }
	t.Cleanup(func() { agentExecutable = old })
}

// delayClusterConfig is the delay test's own cluster.
var delayClusterConfig = cluster.Config{Nodes: 3, Prefix: "fld", Subnet: "10.87.0.0/24",
	StateDir: "/var/lib/faultline-test-nfdelay/cluster"}

// connectScript times TCP connects to $1 port 22, in microseconds, one per
// line: the SYN's delay at the receiver shows in full.
const connectScript = `for i in 1 2 3 4 5; do
  s=$EPOCHREALTIME; exec 3<>"/dev/tcp/$1/22" || exit 1; e=$EPOCHREALTIME; exec 3>&-
  echo $(( ${e/./} - ${s/./} ))
done`

// connectRTT returns the fastest of five TCP connects from node a to node b.
func connectRTT(t *testing.T, pool *control.Pool, a, b string) time.Duration {
	t.Helper()
	ctx := context.Background()
	r, err := pool.Remote(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	nb, _ := pool.Node(b)
	res, err := r.Run(ctx, control.Cmd{Argv: []string{"bash", "-c", connectScript, "rtt", nb.Host}, Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	var us []int64
	for _, l := range nonEmpty(string(res.Stdout)) {
		n, err := strconv.ParseInt(l, 10, 64)
		if err != nil {
			t.Fatalf("connect time %q: %v", l, err)
		}
		us = append(us, n)
	}
	if len(us) != 5 {
		t.Fatalf("connect times %q, want 5", res.Stdout)
	}
	return time.Duration(slices.Min(us)) * time.Microsecond
}

// agentsRunning counts delay agents on node (its own PID namespace); the
// bracket keeps the pattern from matching the shell that runs pgrep.
func agentsRunning(t *testing.T, pool *control.Pool, node string) int {
	t.Helper()
	ctx := context.Background()
	r, _ := pool.Remote(ctx, node)
	out, err := runScript(ctx, r, "count agents", `pgrep -c -f -- '[ ]agent nfdelay ' || true`)
	if err != nil {
		t.Fatal(err)
	}
	n, err := strconv.Atoi(strings.TrimSpace(out))
	if err != nil {
		t.Fatalf("pgrep said %q", out)
	}
	return n
}

// noDelayLeft fails if node still has a delay rule or a recorded agent
// (stop ops flush faultline's chains; HealAll deletes them).
func noDelayLeft(t *testing.T, pool *control.Pool, node string) {
	t.Helper()
	ctx := context.Background()
	r, _ := pool.Remote(ctx, node)
	out, err := runScript(ctx, r, "look for delay leftovers",
		`iptables -w 5 -t mangle -S `+DelayChain+` | grep NFQUEUE; grep agent `+StateFile+`; ls `+agentStats+` 2>/dev/null; true`)
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(out) != "" {
		t.Errorf("node %s: delay leftovers:\n%s", node, out)
	}
}

// On a kernel without netem, start-delay runs faultline's NFQUEUE agent:
// the delay is measured between nodes, read back from the rule and the
// agent, and removed by stop-delay or, abandoned, by HealAll.
func TestDelayAgent(t *testing.T) {
	_, pool := upClusterWith(t, delayClusterConfig)
	buildAgent(t)
	ctx := context.Background()
	caps, err := Capabilities(ctx, pool, []string{"n2"})
	if err != nil {
		t.Fatal(err)
	}
	integration.Need(t, caps["n2"].Netem != "yes", "a kernel without netem (this one has it, so delay uses netem)")
	integration.Need(t, caps["n2"].NFQueue == "yes", "NFQUEUE in the kernel")
	if _, err := HealAll(ctx, pool); err != nil {
		t.Fatalf("initial heal: %v", err)
	}
	w, err := New(Options{Pool: pool})
	if err != nil {
		t.Fatal(err)
	}
	const delay = 100 * time.Millisecond
	delayN2 := map[string]any{"nodes": []any{"n2"}, "delay": "100ms"}

	before := connectRTT(t, pool, "n1", "n2")
	t0 := time.Now()
	start := w.Invoke(ctx, opF("start-delay", delayN2))
	t.Logf("start-delay took %v", time.Since(t0))
	if start.Type != "ok" || start.Extra["landed"] != true {
		t.Fatalf("start-delay: %+v", start)
	}
	ev := evidenceOf(t, start.Extra, "n2")
	if ev["uploaded"] != true || ev["rule"] != true || ev["agent_alive"] != true {
		t.Errorf("start evidence %v: want the agent uploaded and alive, and the rule", ev)
	}
	during := connectRTT(t, pool, "n1", "n2")
	if during < delay {
		t.Errorf("connect n1 -> n2 took %v with a %v delay on n2 (before: %v)", during, delay, before)
	}
	t0 = time.Now()
	stop := w.Invoke(ctx, opF("stop-delay", nil))
	t.Logf("stop-delay took %v", time.Since(t0))
	if stop.Type != "ok" || stop.Extra["landed"] != true || stop.Extra["healed"] != true {
		t.Fatalf("stop-delay: %+v", stop)
	}
	ev = evidenceOf(t, stop.Extra, "n2")
	if q, _ := ev["queued_packets"].(int64); q < 5 {
		t.Errorf("rule counted %d packets, want >= 5 (five SYNs): %v", q, ev)
	}
	if d, _ := ev["delayed"].(int64); d < 5 {
		t.Errorf("agent delayed %d packets, want >= 5: %v", d, ev)
	}
	if m, _ := ev["mean_delay_ms"].(float64); m < float64(delay/time.Millisecond) {
		t.Errorf("agent's mean delay %vms, want >= %v", m, delay)
	}
	after := connectRTT(t, pool, "n1", "n2")
	t.Logf("connect n1 -> n2: before %v, during a %v delay %v (agent mean %.2fms), after %v", before, delay, during, ev["mean_delay_ms"], after)
	if n := agentsRunning(t, pool, "n2"); n != 0 {
		t.Errorf("%d agents still run after stop-delay", n)
	}
	noDelayLeft(t, pool, "n2")

	t.Run("killed-behind-our-back", func(t *testing.T) {
		start := w.Invoke(ctx, opF("start-delay", delayN2))
		if start.Extra["landed"] != true || evidenceOf(t, start.Extra, "n2")["uploaded"] != false {
			t.Fatalf("second start-delay (binary already there): %+v", start)
		}
		r, _ := pool.Remote(ctx, "n2")
		if _, err := runScript(ctx, r, "kill the agent", `kill -9 "$(cat `+agentPidfile+`)"`); err != nil {
			t.Fatal(err)
		}
		stop := w.Invoke(ctx, opF("stop-delay", nil))
		if stop.Extra["landed"] != false || stop.Extra["healed"] != true {
			t.Fatalf("an agent killed behind faultline's back must be reported not landed: %+v", stop)
		}
		noDelayLeft(t, pool, "n2")
	})

	t.Run("abandoned", func(t *testing.T) {
		w, err := New(Options{Pool: pool})
		if err != nil {
			t.Fatal(err)
		}
		if c := w.Invoke(ctx, opF("start-delay", map[string]any{"nodes": "all", "delay": "100ms", "jitter": "10ms"})); c.Extra["landed"] != true {
			t.Fatalf("start-delay: %+v", c)
		}
		rep, err := HealAll(ctx, pool)
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range nodeNames(pool) {
			got := strings.Join(rep[n], ";")
			if !strings.Contains(got, "stopped agent") || !strings.Contains(got, "chain "+DelayChain) {
				t.Errorf("HealAll on %s removed %q, want the agent and %s", n, got, DelayChain)
			}
			if k := agentsRunning(t, pool, n); k != 0 {
				t.Errorf("%d agents still run on %s after HealAll", k, n)
			}
		}
		noFaultlineLeft(t, pool)
		if rtt := connectRTT(t, pool, "n1", "n2"); rtt >= delay {
			t.Errorf("connect n1 -> n2 still takes %v after HealAll", rtt)
		}
		rep, err = HealAll(ctx, pool)
		if err != nil {
			t.Fatal(err)
		}
		for n, removed := range rep {
			if len(removed) > 0 {
				t.Errorf("second heal removed %v on %s; want nothing", removed, n)
			}
		}
	})
}
