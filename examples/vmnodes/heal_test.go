package vmnodes_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/faultline/faultline/cluster"
	"github.com/faultline/faultline/control"
	"github.com/faultline/faultline/internal/clitest"
	"github.com/faultline/faultline/internal/testcluster"
	"github.com/faultline/faultline/nodeclock"
)

// leftBehind is a scenario whose faults outlive a killed controller: a
// skewed clock on n1 and netem on n2, both held far past the moment the
// test kills the run.
const leftBehind = `load("@stdlib//workloads.star", "cas_register")

scenario(
    name = "left_behind",
    client = client.register(),
    workload = gen.stagger("50ms", cas_register(values = 5)),
    nemesis = nemesis.compose([
        nemesis.clock(nodes = ["n1"], mode = "skew", rate = 1.1, start = "1s", hold = "20m", repeat = False),
        nemesis.netem(nodes = ["n2"], delay = "5ms", duplicate = 0.2, reorder = 0.3, start = "1s", hold = "20m", repeat = False),
    ]),
    checker = check.stats(),
    budgets = {"smoke": budget(duration = "20m")},
)
`

// healAfterKilledController: a run's clock skew and netem, left on the VMs
// by a controller killed with SIGKILL mid-fault, are undone by `faultline
// heal` alone, which reads what to undo from the nodes: n1's clock is back
// at the controller's time with the kernel's tick restored, n2's netem
// qdisc is gone, and n3 was never touched.
func healAfterKilledController(t *testing.T, st *cluster.State) {
	dir := t.TempDir()
	script := filepath.Join(dir, "left_behind.star")
	if err := os.WriteFile(script, []byte(leftBehind), 0o644); err != nil {
		t.Fatal(err)
	}
	nodeArgs := []string{"--nodes-file", st.NodesFile, "--ssh-key", st.ClientKey, "--known-hosts", st.KnownHosts}
	pool := testcluster.Pool(t, st)
	// The untouched nodes' clocks before the run: their offsets, and their
	// boot times by their own wall clocks, which only setting the clock
	// changes (not the controller's clock being set, nor the host pausing).
	before := map[string]nodeclock.Offset{}
	booted := map[string]time.Time{}
	for _, n := range []string{"n2", "n3"} {
		before[n], booted[n] = measureClock(t, pool, n), bootWall(t, pool, n)
	}
	var out bytes.Buffer
	ctl := exec.Command(clitest.Binary(t), append([]string{"run", script, "--tier", "smoke", "--yes", "--out", filepath.Join(dir, "out")}, nodeArgs...)...)
	ctl.Stdout, ctl.Stderr = &out, &out
	if err := ctl.Start(); err != nil {
		t.Fatal(err)
	}
	killed := false
	defer func() {
		if !killed {
			ctl.Process.Kill()
			ctl.Wait()
		}
	}()

	// Wait until both faults are read back as landed in the run's history.
	landed := func() bool {
		hists, _ := filepath.Glob(filepath.Join(dir, "out", "*", "*", "artifacts", "left_behind", "history.jsonl"))
		for _, h := range hists {
			data, _ := os.ReadFile(h)
			clock, netem := false, false
			for _, line := range strings.Split(string(data), "\n") {
				ok := strings.Contains(line, `"process":"nemesis","type":"ok"`) && strings.Contains(line, `"landed":true`)
				clock = clock || ok && strings.Contains(line, `"f":"start-clock"`)
				netem = netem || ok && strings.Contains(line, `"f":"start-netem"`)
			}
			if clock && netem {
				return true
			}
		}
		return false
	}
	deadline := time.Now().Add(5 * time.Minute)
	for !landed() {
		if time.Now().After(deadline) {
			t.Fatalf("the faults did not land within 5 minutes:\n%s", out.String())
		}
		time.Sleep(time.Second)
	}
	time.Sleep(3 * time.Second) // let n1's clock run fast for a while
	if err := ctl.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	ctl.Wait()
	killed = true

	if qd := runOn(t, pool, "n2", "tc qdisc show"); !strings.Contains(qd, "netem") {
		t.Fatalf("n2 has no netem after the kill, so the test proves nothing: %s", qd)
	}
	if tick := readTick(t, pool, "n1"); tick == "10000" {
		t.Fatalf("n1's tick is %s after the kill: the skew was not left behind", tick)
	}

	code, stdout, stderr := clitest.Run(t, append([]string{"heal"}, nodeArgs...)...)
	t.Logf("faultline heal: exit %d\n%s%s", code, stdout, stderr)
	if code != 0 {
		t.Fatalf("faultline heal exited %d", code)
	}
	if tick := readTick(t, pool, "n1"); tick != "10000" {
		t.Errorf("n1's tick after heal: %s, want 10000", tick)
	}
	for _, n := range []string{"n1", "n2", "n3"} {
		if qd := runOn(t, pool, n, "tc qdisc show"); strings.Contains(qd, "netem") {
			t.Errorf("%s still has netem after heal: %s", n, qd)
		}
		o := measureClock(t, pool, n)
		if n == "n1" {
			// The victim's clock is back at the controller's.
			t.Logf("n1 after heal: offset %s", o)
			if d := o.Offset; d < -(o.Bound+100*time.Millisecond) || d > o.Bound+100*time.Millisecond {
				t.Errorf("n1's clock is %s off the controller's after heal", o)
			}
			continue
		}
		// The others were never touched: their wall clocks were not set.
		moved := o.Moved(before[n])
		shift := bootWall(t, pool, n).Sub(booted[n])
		t.Logf("%s after heal: offset %s, before the run %s (moved %s net of the controller's own steps); its boot time by its own clock changed by %s (to /proc/uptime's 10 ms)", n, o, before[n], moved, shift)
		if shift.Abs() > 50*time.Millisecond {
			t.Errorf("%s's wall clock was set by %s between the run's start and heal: something touched it", n, shift)
		}
	}
	// What heal says it did: each node's own fault, and nothing on n3.
	for _, want := range []string{"n1: removed clock reset", "n2: removed qdisc", "n3: nothing to remove"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("heal's report lacks %q:\n%s", want, stdout)
		}
	}
}

// measureClock is node's clock offset from the controller's.
func measureClock(t *testing.T, pool *control.Pool, n string) nodeclock.Offset {
	t.Helper()
	node, _ := pool.Node(n)
	r, err := pool.Remote(context.Background(), n)
	if err != nil {
		t.Fatal(err)
	}
	o, err := nodeclock.Measure(context.Background(), r, node.Host, 5)
	if err != nil {
		t.Fatalf("%s: clock offset: %v", n, err)
	}
	return o
}

// bootWall is node's boot time by its own wall clock.
func bootWall(t *testing.T, pool *control.Pool, n string) time.Time {
	t.Helper()
	r, err := pool.Remote(context.Background(), n)
	if err != nil {
		t.Fatal(err)
	}
	b, err := nodeclock.BootWall(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// runOn runs a shell command on node over SSH and returns its stdout.
func runOn(t *testing.T, pool *control.Pool, node, cmd string) string {
	t.Helper()
	return run(t, pool, node, control.Cmd{Raw: cmd})
}

// readTick is the node's kernel tick (10000 unless a skew changed it).
func readTick(t *testing.T, pool *control.Pool, node string) string {
	t.Helper()
	return strings.TrimSpace(run(t, pool, node, control.Cmd{Argv: nodeclock.ReadTickArgv()}))
}

func run(t *testing.T, pool *control.Pool, node string, cmd control.Cmd) string {
	t.Helper()
	r, err := pool.Remote(context.Background(), node)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Timeout = 2 * time.Minute
	res, err := r.Run(context.Background(), cmd)
	if err != nil {
		t.Fatalf("%s: %v: %v", node, cmd, err)
	}
	return string(res.Stdout)
}
