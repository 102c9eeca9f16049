package interp

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faultline/faultline/builtins/check"
	"github.com/faultline/faultline/builtins/control"
	"github.com/faultline/faultline/cluster"
	"github.com/faultline/faultline/history"
	"github.com/faultline/faultline/internal/integration"
)

// etcdClusterConfig is distinct from every other test's cluster, so the
// tests of several packages can run at once.
var etcdClusterConfig = cluster.Config{Nodes: 3, StateDir: "/var/lib/faultline-test-etcd/cluster",
	Subnet: "10.83.0.0/24", Prefix: "fle"}

// etcdPool brings up the three-node netns cluster and returns a pool over
// it; the cluster goes down when the test ends.
func etcdPool(t *testing.T) *control.Pool {
	t.Helper()
	integration.NeedRoot(t)
	integration.NeedCommand(t, "etcd")
	integration.NeedCommand(t, "curl")
	integration.NeedCommand(t, "sshd")
	integration.NeedCommand(t, "iptables")
	st, err := cluster.Up(context.Background(), etcdClusterConfig)
	if err != nil {
		t.Fatalf("cluster up: %v", err)
	}
	t.Cleanup(func() {
		if err := cluster.Down(context.Background(), etcdClusterConfig); err != nil {
			t.Errorf("cluster down: %v", err)
		}
		os.RemoveAll(filepath.Dir(etcdClusterConfig.StateDir))
	})
	nodes, err := control.ReadNodesFile(st.NodesFile)
	if err != nil {
		t.Fatal(err)
	}
	pool, err := control.NewPool(nodes, control.SSHDialer(control.SSHConfig{KeyFiles: []string{st.ClientKey}, KnownHosts: st.KnownHosts}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pool.Close() })
	return pool
}

// runEtcd loads src with the pool and runs its one scenario.
func runEtcd(t *testing.T, pool *control.Pool, src string) (*Result, string) {
	t.Helper()
	dir := writeFiles(t, map[string]string{"main.star": src})
	script, err := Load(context.Background(), filepath.Join(dir, "main.star"), LoadOptions{Seed: 1, Pool: pool})
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	out := t.TempDir()
	var notes []string
	r, err := Run(context.Background(), script.Scenarios[0], RunOptions{Seed: 1, Dir: out, Pool: pool,
		Log: func(s string) { notes = append(notes, s) }})
	if err != nil {
		t.Fatalf("Run: %v (notes %q)", err, notes)
	}
	return r, out
}

// etcdGone asserts that teardown stopped etcd and removed its data on every node.
func etcdGone(t *testing.T, pool *control.Pool) {
	t.Helper()
	for _, n := range pool.Nodes() {
		rem, err := pool.Remote(context.Background(), n.Name)
		if err != nil {
			t.Fatal(err)
		}
		res, err := rem.Run(context.Background(), control.Cmd{Raw: "pgrep -f '^/usr/bin/etcd ' || true; test -e /opt/etcd && echo data-left || true"})
		if err != nil {
			t.Fatal(err)
		}
		if s := strings.TrimSpace(string(res.Stdout)); s != "" {
			t.Errorf("node %s after teardown: %s", n.Name, s)
		}
	}
}

const etcdScenario = `
load("@stdlib//db/etcd.star", "etcd")
load("@stdlib//workloads.star", "cas_register")
db = etcd()
scenario(
    name = "etcd",
    db = db,
    client = client.etcd(serializable = %s),
    workload = gen.stagger("10ms", cas_register(values = %d)),
    checker = check.linearizable(model = "cas-register"),
    concurrency = 6,
    op_timeout = "2s",
    budgets = {"smoke": budget(duration = "%s", min_ops = 50)},
    nemesis = %s,
    landing = [evidence.landed()],
)
`

// etcdSrc renders the scenario; values is the register's value space: a
// large one makes a stale read stand out instead of matching by chance.
func etcdSrc(serializable string, values int, duration, nem string) string {
	return fmt.Sprintf(etcdScenario, serializable, values, duration, nem)
}

// requireEtcdOptIn runs the real-etcd tests only when FAULTLINE_ETCD=1.
// They are not yet reliable enough for CI: in 6 runs here the fault-schedule
// test once saw no restart land within its 20 s window, and the stale-read
// test found the anomaly 1 time in 3. Until that is fixed they are opt-in,
// and the etcd issue stays open.
func requireEtcdOptIn(t *testing.T) {
	t.Helper()
	if os.Getenv("FAULTLINE_ETCD") != "1" {
		t.Skip("real-etcd tests are opt-in until they are reliable: set FAULTLINE_ETCD=1")
	}
}

// A healthy etcd under partitions and a killed leader stays linearizable;
// the faults land, the heal is clean and teardown leaves nothing behind.
func TestEtcdLinearizableUnderFaults(t *testing.T) {
	requireEtcdOptIn(t)
	pool := etcdPool(t)
	nem := `nemesis.compose([
        nemesis.partition(spec = "majority", interval = "2s", hold = "4s"),
        nemesis.kill(nodes = "primaries", pattern = db.kill_pattern, restart = db.start,
                     pidfile = db.pidfile, logfile = db.logfile, interval = "4s", hold = "3s"),
    ])`
	r, out := runEtcd(t, pool, etcdSrc("False", 5, "20s", nem))
	if r.Check.Valid != check.Valid {
		t.Errorf("etcd history %s, want valid: %s\n%s", r.Check.Valid, r.Check.Summary, r.Check.Explanation)
	}
	if len(r.Problems) > 0 {
		t.Errorf("problems: %q", r.Problems)
	}
	t.Logf("summary %+v; faults %d; landing %+v", r.Summary, len(r.Faults), r.Landing)
	for _, f := range []string{"start-partition", "kill", "start"} {
		if landedOps(r, f) == 0 {
			t.Errorf("no %s op landed", f)
		}
	}
	for _, n := range pool.Nodes() {
		if _, err := os.Stat(filepath.Join(out, "logs", n.Name, "etcd.log")); err != nil {
			t.Errorf("log of %s not saved: %v", n.Name, err)
		}
	}
	etcdGone(t, pool)
}

// landedOps counts the nemesis completions of f whose evidence showed the
// fault in effect.
func landedOps(r *Result, f string) int {
	n := 0
	for _, op := range r.Ops {
		if op.Process == history.NemesisProcess && op.F == f && op.Type == history.OK && op.Extra["landed"] == true {
			n++
		}
	}
	return n
}

// Serializable reads on a leader cut off from the majority return the
// value it last knew while the majority moves on: the checker must reject
// the history and explain why.
//
// With values = 5 a stale read often equals a value some concurrent write
// could explain; with values = 1000 the single-register search times out. It
// needs a per-key workload that keeps each key's search small.
func TestEtcdSerializableReadsStaleWhenLeaderIsolated(t *testing.T) {
	requireEtcdOptIn(t)
	pool := etcdPool(t)
	nem := `nemesis.partition(spec = "primaries", interval = "2s", hold = "6s")`
	r, _ := runEtcd(t, pool, etcdSrc("True", 5, "16s", nem))
	t.Logf("summary %+v; landing %+v; %s", r.Summary, r.Landing, r.Check.Summary)
	if landedOps(r, "start-partition") == 0 {
		t.Fatal("the leader was never isolated")
	}
	if r.Check.Valid != check.Invalid {
		t.Errorf("serializable reads under an isolated leader: %s, want invalid: %s", r.Check.Valid, r.Check.Summary)
	}
	if r.Check.Explanation == "" {
		t.Error("invalid verdict without an explanation")
	}
	if len(r.Problems) > 0 {
		t.Errorf("problems: %q", r.Problems)
	}
	etcdGone(t, pool)
}
