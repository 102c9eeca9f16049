package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/session"
)

// slowLocalScript starts a daemon writing a log on each --local node, then
// runs a workload for minutes (in real time, with --realtime): long enough
// to be killed mid-run.
const slowLocalScript = `load("@stdlib//workloads.star", "cas_register")

def setup(node):
    node.start_daemon(["sh", "-c", "echo started on " + node.name + "; exec sleep 300"],
                      pidfile = node.dir + "/d.pid", logfile = node.dir + "/d.log")

def teardown(node):
    pass

scenario(
    name = "slow",
    db = struct(name = "d", setup = setup, teardown = teardown, logs = []),
    client = client.register(),
    workload = gen.stagger("50ms", cas_register(values = 5)),
    checker = check.stats(),
    budgets = {"smoke": budget(duration = "5m", min_ops = 1)},
)
`

// TestKilledLocalRunKeepsNodeLogs: a --local run killed with SIGKILL
// leaves its node directories (nothing can run after SIGKILL); the next
// --local run's sweep removes them and puts the nodes' logs into the
// killed run's session.
func TestKilledLocalRunKeepsNodeLogs(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs faultline")
	}
	bin := buildFaultline(t)
	dir, out, tmp := t.TempDir(), t.TempDir(), t.TempDir()
	script := filepath.Join(dir, "slow.star")
	if err := os.WriteFile(script, []byte(slowLocalScript), 0o644); err != nil {
		t.Fatal(err)
	}
	// --realtime: an in-process client would otherwise run the 5 minutes in
	// simulated time, finishing (and cleaning up) before the test looks.
	cmd := exec.Command(bin, "run", script, "--local", "--yes", "--realtime", "--out", out)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait until every node's daemon logged and the run noted its session.
	var root string
	for deadline := time.Now().Add(2 * time.Minute); ; {
		roots, _ := filepath.Glob(filepath.Join(tmp, session.LocalRootPattern+"*"))
		var owner []byte
		var logs []string
		if len(roots) == 1 {
			owner, _ = os.ReadFile(filepath.Join(roots[0], session.LocalOwnerFile))
			logs, _ = filepath.Glob(filepath.Join(roots[0], "n*", "d.log"))
			if strings.Contains(string(owner), "session ") && len(logs) == 3 {
				root = roots[0]
				break
			}
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			var files []string
			filepath.Walk(tmp, func(p string, _ os.FileInfo, _ error) error { files = append(files, p); return nil })
			t.Fatalf("the run never got its nodes going: roots %q, owner file %q, logs %q, files %q\nstderr:\n%s",
				roots, owner, logs, files, stderr.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	if _, err := os.Stat(root); err != nil {
		t.Fatalf("the killed run's nodes are gone before any sweep (%v): the test proves nothing", err)
	}
	msgs := session.SweepLocalRoots(tmp)
	if _, err := os.Stat(root); !os.IsNotExist(err) {
		t.Errorf("the sweep left %s: %v (%q)", root, err, msgs)
	}
	sessions, _ := filepath.Glob(filepath.Join(out, "slow", "*"))
	if len(sessions) != 1 {
		t.Fatalf("sessions %q, want the killed run's", sessions)
	}
	for _, n := range []string{"n1", "n2", "n3"} {
		b, err := os.ReadFile(filepath.Join(sessions[0], "logs", "local-nodes", n, "d.log"))
		if err != nil || !strings.Contains(string(b), "started on "+n) {
			t.Errorf("%s's log in the session: %q, %v (sweep said %q)", n, b, err, msgs)
		}
	}
}
