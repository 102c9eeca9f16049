package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/cluster"
	"github.com/faultline/faultline/internal/clitest"
	"github.com/faultline/faultline/internal/integration"
	"github.com/faultline/faultline/internal/testcluster"
)

var rerunClusterConfig = cluster.Config{Nodes: 3, Prefix: "flz", Subnet: "10.95.0.0/24",
	StateDir: "/var/lib/faultline-test-rerun/cluster"}

// rerunScript is the demo store under a linearizability check: a short
// smoke run, and a hardening run long enough to be killed mid-workload.
const rerunScript = `
load("@stdlib//db/demo.star", "demo_store")
load("@stdlib//workloads.star", "cas_register")

scenario(name = "rerun", db = demo_store(), client = client.demo_kv(),
         workload = gen.stagger("5ms", cas_register()),
         checker = check.linearizable(model = "cas-register"),
         budgets = {"smoke": budget(duration = "4s"), "hardening": budget(duration = "5m")})
`

// A run killed with SIGKILL leaves the demo store running with its data;
// the next run on the same nodes must still give the verdict a run on fresh
// nodes gives (before runs started from a clean db it read the killed run's
// values: "not linearizable: ... read -> 4 ... the register holds nil").
// Both ways out are shown: `faultline heal --session` tears the db down,
// and a plain heal leaves it for the next run's teardown-before-setup.
func TestRerunAfterCrashAndHeal(t *testing.T) {
	integration.NeedRoot(t)
	for _, tool := range []string{"sshd", "iptables", "ip", "unshare", "pgrep"} {
		integration.NeedCommand(t, tool)
	}
	st := testcluster.Up(t, rerunClusterConfig)
	sshArgs := []string{"--nodes-file", st.NodesFile, "--ssh-key", st.ClientKey, "--known-hosts", st.KnownHosts}
	dir := t.TempDir()
	script := filepath.Join(dir, "rerun.star")
	if err := os.WriteFile(script, []byte(rerunScript), 0o644); err != nil {
		t.Fatal(err)
	}
	// demoNodes counts this cluster's demo-node daemons (other tests may run
	// demo stores on clusters of their own, on other subnets).
	ours := regexp.MustCompile(`demo-node --id n[0-9]+ .*--raft-listen 10\.95\.0\.`)
	demoNodes := func() int {
		out, _ := exec.Command("pgrep", "-af", "demo-node --id").Output()
		n := 0
		for _, line := range strings.Split(string(out), "\n") {
			if ours.MatchString(line) {
				n++
			}
		}
		return n
	}
	// run is one smoke run with seed 1 into out: its exit code and the
	// verdict in its table.
	run := func(out string) (int, string) {
		t.Helper()
		code, stdout, stderr := runCLI(t, append([]string{"run", script, "--realtime", "--seed", "1", "--out", out}, sshArgs...)...)
		for _, v := range []string{"PASS-smoke", "FAIL-reproducible", "FAIL-nondeterministic", "INCONCLUSIVE-load-not-reached"} {
			if clitest.HasRow(stdout, "rerun", v) {
				return code, v
			}
		}
		t.Fatalf("run into %s: exit %d, no verdict row\n%s\n%s", out, code, stdout, stderr)
		return 0, ""
	}
	// crash starts a hardening run, waits until its journal holds completed
	// writes (the store then has data of its own), kills it with SIGKILL and
	// returns its session directory.
	crash := func(name string) string {
		t.Helper()
		out := filepath.Join(dir, name)
		cmd := faultlineCmd(append([]string{"run", script, "--tier", "hardening", "--realtime", "--seed", "2", "--out", out}, sshArgs...)...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(90 * time.Second)
		for okWrites(filepath.Join(out, "rerun", "*", "artifacts", "rerun", "history.jsonl")) < 20 {
			if time.Now().After(deadline) {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatal("the run wrote no 20 ok writes within 90s")
			}
			time.Sleep(100 * time.Millisecond)
		}
		cmd.Process.Kill()
		cmd.Wait()
		if n := demoNodes(); n != 3 {
			t.Fatalf("after SIGKILL %d demo-node daemons run, want the 3 the killed run left; the test proves nothing", n)
		}
		return clitest.OnlySession(t, filepath.Join(out, "rerun"))
	}

	freshCode, fresh := run(filepath.Join(dir, "fresh"))
	if fresh != "PASS-smoke" {
		t.Fatalf("a run on fresh nodes: %s (exit %d), want PASS-smoke", fresh, freshCode)
	}

	// SIGKILL, then heal --session: the db is torn down with the faults.
	session := crash("crash1")
	code, out, errOut := runCLI(t, append([]string{"heal", "--session", session}, sshArgs...)...)
	if code != exitOK || !strings.Contains(out, "db of rerun ("+script+"): torn down on n1, n2, n3") {
		t.Fatalf("heal --session: exit %d\n%s\n%s", code, out, errOut)
	}
	if n := demoNodes(); n != 0 {
		t.Errorf("after heal --session %d demo-node daemons still run", n)
	}
	for _, n := range []string{"n1", "n2", "n3"} {
		if _, err := os.Stat(filepath.Join(session, "artifacts", "rerun", "logs", n, "node.log")); err != nil {
			t.Errorf("heal --session did not save the killed run's log of %s: %v", n, err)
		}
	}
	if c, v := run(filepath.Join(dir, "after-heal-session")); c != freshCode || v != fresh {
		t.Errorf("re-run after crash + heal --session: %s (exit %d), want %s (exit %d) as on fresh nodes", v, c, fresh, freshCode)
	}

	// SIGKILL, then a plain heal: no process of the run is left (heal stops
	// what the run started), its data is, and the next run's teardown
	// before setup removes that.
	crash("crash2")
	code, out, errOut = runCLI(t, append([]string{"heal"}, sshArgs...)...)
	if code != exitOK || !strings.Contains(out, "db: data and files left as they are") || strings.Count(out, "stopped daemon ") < 3 {
		t.Fatalf("heal: exit %d, want the db's data left and its daemons stopped on 3 nodes\n%s\n%s", code, out, errOut)
	}
	if n := demoNodes(); n != 0 {
		t.Errorf("after a plain heal %d demo-node daemons still run", n)
	}
	rerun := filepath.Join(dir, "after-heal")
	if c, v := run(rerun); c != freshCode || v != fresh {
		t.Errorf("re-run after crash + heal: %s (exit %d), want %s (exit %d) as on fresh nodes", v, c, fresh, freshCode)
	}
	rec, err := os.ReadFile(filepath.Join(clitest.OnlySession(t, filepath.Join(rerun, "rerun")), "artifacts", "rerun", "db-cycle.log"))
	if err != nil || !strings.Contains(string(rec), "db cycle 1/3: teardown on every node: ok") {
		t.Errorf("the re-run's db-cycle.log: %q, %v", rec, err)
	}
	if n := demoNodes(); n != 0 {
		t.Errorf("after the re-run %d demo-node daemons still run", n)
	}
}

// okWrites counts completed writes in the history files matching glob.
func okWrites(glob string) int {
	paths, _ := filepath.Glob(glob)
	n := 0
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			line := sc.Text()
			if strings.Contains(line, `"type":"ok"`) && strings.Contains(line, `"f":"write"`) {
				n++
			}
		}
		f.Close()
	}
	return n
}
