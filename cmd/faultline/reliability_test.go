package main

import (
	"context"
	"fmt"
	"maps"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/faultline/faultline/cluster"
	"github.com/faultline/faultline/control"
	"github.com/faultline/faultline/history"
	"github.com/faultline/faultline/internal/integration"
	"github.com/faultline/faultline/internal/testcluster"
	"github.com/faultline/faultline/nemesis"
)

// The reliability test's own cluster: its prefix, subnet and state dir are
// used by no other test, so it never touches another test's nodes.
var reliabilityClusterConfig = cluster.Config{Nodes: 3, Prefix: "fly", Subnet: "10.94.0.0/24",
	StateDir: "/var/lib/faultline-test-reliability/cluster"}

// What the test installs as n1's own (and the db it starts through
// faultline). The pattern, pidfile and paths must match
// the scripts in testdata/reliability.
const (
	ownPort      = "7000"                // n1's own listener; n1's own firewall drops it from everyone
	ownChain     = "NODEFW"              // n1's own filter chain, jumped from INPUT
	ownFLChain   = "MYFAULTLINE-x"       // a user chain whose name contains FAULTLINE, jumped from INPUT
	ownFLChain2  = "FAULTLINE-USER"      // another, unreferenced (so a careless -X would delete it)
	dbPattern    = "sleep 4711"          // the daemon faultline started: what kill and pause target
	dbPidfile    = "/opt/reldb/db.pid"   // its pidfile
	dbDataFile   = "/opt/reldb/data"     // its data file: what truncate-file and bitflip-file damage
	fillPath     = "/tmp/faultline-fill" // the fill-disk file
	ownVeth      = "own0"                // n3's own interface outside the cluster (peer own1)
	probeTimeout = 2 * time.Second       // a dropped SYN is retried for this long before "cut"
	clusterIface = "eth0"                // every node's interface on the cluster bridge
	dbRestart    = "sleep"               // argv[0] of the db daemon
	dbArg        = "4711"                // argv[1]
	ownFilesList = "/tmp/own/data.bin /run/own/state.txt /opt/own/config"
)

// TestReliability proves faultline touches only what it made (issue 16):
// n1 has its own iptables chains with DROP rules, its own root qdisc, its
// own processes and files; every fault the nemesis offers on ssh nodes is
// injected, its DROP rules are probed while the fault is in effect, the
// fault is healed, and everything of n1's own (and the other nodes') must
// be as it was. Faults that must refuse because of n1's own qdisc are
// asserted as refusals. Finally a controller is SIGKILLed with faults
// active and `faultline heal` must restore the same state.
func TestReliability(t *testing.T) {
	integration.NeedRoot(t)
	for _, tool := range []string{"ip", "unshare", "sshd", "iptables", "tc", "bash", "perl", "ss", "sha256sum", "setsid"} {
		integration.NeedCommand(t, tool)
	}
	// The delay agent must be a real faultline binary: the test binary
	// would run the tests on the node. FAULTLINE_BINARY reaches the
	// in-process nemesis and the controller child alike.
	t.Setenv("FAULTLINE_BINARY", buildFaultline(t))
	st, pool := upReliabilityCluster(t)
	ctx := context.Background()

	own := installOwn(t, pool)
	base := snapshotAll(t, pool, own)
	legacyBefore := onNodes(t, pool, legacyScript)
	t.Logf("n1's own state before any fault:\n%s", sectionsString(base["n1"]))

	caps, err := nemesis.Capabilities(ctx, pool, []string{"n1"})
	if err != nil {
		t.Fatalf("capabilities: %v", err)
	}
	delayMech := "agent" // no netem: faultline's NFQUEUE agent delays
	switch {
	case caps["n1"].Netem == "yes":
		delayMech = "netem" // a qdisc: n1's own root qdisc makes it refuse
	case caps["n1"].NFQueue != "yes":
		delayMech = "none"
	}
	t.Logf("delay on n1: %s (netem %s, nfqueue %s)", delayMech, caps["n1"].Netem, caps["n1"].NFQueue)

	db := map[string]any{"nodes": []any{"n1"}, "pattern": dbPattern, "restart": []any{dbRestart, dbArg}, "pidfile": dbPidfile}
	for _, c := range reliabilityCases(delayMech, db) {
		t.Run(c.name, func(t *testing.T) { runFaultCase(t, pool, own, base, c) })
	}
	t.Run("heal-op-with-faults-active", func(t *testing.T) { testHealOp(t, pool, own, base, delayMech, db) })
	// Every fault that can be open at once on n1, the delay agent among
	// them, then a bandwidth limit (a qdisc) with a kill of the db.
	killedWant := []string{"n1:partition", "n1:loss", "n1:pause", "n1:fill"}
	if delayMech == "agent" {
		killedWant = append(killedWant, "n1:delay")
	}
	t.Run("heal-after-killed-controller", func(t *testing.T) {
		testKilledController(t, st, pool, own, base, "killed.star", killedWant)
	})
	t.Run("heal-after-killed-controller-bandwidth", func(t *testing.T) {
		testKilledController(t, st, pool, own, base, "killed-bandwidth.star", []string{"n3:qdisc-" + clusterIface, "n2:loss", "n1:db-killed"})
	})
	t.Run("own-state-unchanged-at-end", func(t *testing.T) {
		compareSnapshots(t, "after every fault and heal", base, snapshotAll(t, pool, own))
	})
	t.Run("no-legacy-tables-left", func(t *testing.T) {
		// Heal cleans up with every iptables front end; listing a legacy
		// table instantiates it in the node's namespace, which is a change
		// faultline made and did not undo.
		after := onNodes(t, pool, legacyScript)
		for _, n := range nodeNamesOf(pool) {
			if d := lineDiff(legacyBefore[n], after[n]); d != "" {
				t.Errorf("node %s: iptables-legacy tables (/proc/net/ip_tables_names) changed by faultline:\n%s", n, d)
			}
		}
	})
}

// faultCase is one fault of the nemesis: its inject op, what it must do
// (land, or refuse with a message containing refuse), and the op that
// ends it ("" for faults with no heal of their own).
type faultCase struct {
	name   string
	inject string
	value  any
	refuse []string // non-empty: inject must fail and its error contain each of these
	stop   string
	// stopValue is the stop op's value (process faults need the spec).
	stopValue any
	// during checks what must hold while the fault is in effect, beyond
	// the DROP probes and n1's own state.
	during func(t *testing.T, pool *control.Pool, c history.Op)
}

func reliabilityCases(delayMech string, db map[string]any) []faultCase {
	delay := faultCase{name: "delay", inject: "start-delay", value: map[string]any{"nodes": []any{"n1"}, "delay": "50ms"}, stop: "stop-delay"}
	switch delayMech {
	case "netem":
		delay.name, delay.refuse, delay.stop = "delay-netem-refused-by-own-qdisc", []string{"n1", "qdisc"}, ""
	case "none":
		delay.name, delay.refuse, delay.stop = "delay-missing-capability", []string{"missing capability"}, ""
	}
	return []faultCase{
		{name: "partition-n1-drops-n2", inject: "start-partition", value: map[string]any{"n1": []any{"n2"}}, stop: "stop-partition"},
		{name: "partition-majority", inject: "start-partition", value: "majority", stop: "stop-partition"},
		{name: "loss", inject: "start-loss", value: map[string]any{"nodes": []any{"n1"}, "probability": 0.5}, stop: "stop-loss"},
		delay,
		// n1 has its own root qdisc: the limit must refuse, never replace it.
		{name: "bandwidth-refused-by-own-qdisc", inject: "start-bandwidth", value: map[string]any{"nodes": []any{"n1"}, "rate": "1mbit"}, refuse: []string{"n1", "qdisc"}},
		// n3 has no qdisc of its own on the cluster interface, but an
		// interface of its own outside the cluster that must stay unshaped.
		{name: "bandwidth-n3-cluster-interface-only", inject: "start-bandwidth", value: map[string]any{"nodes": []any{"n3"}, "rate": "10mbit"}, stop: "stop-bandwidth",
			during: func(t *testing.T, pool *control.Pool, _ history.Op) {
				out := onNode(t, pool, "n3", `tc qdisc show dev "$1" root`, clusterIface)
				if !strings.Contains(out, " "+nemesis.QdiscHandle+" ") {
					t.Errorf("n3 %s root qdisc %q: the bandwidth limit is not on the cluster interface", clusterIface, strings.TrimSpace(out))
				}
			}},
		{name: "kill-db", inject: "kill", value: db, stop: "start", stopValue: db,
			during: func(t *testing.T, pool *control.Pool, c history.Op) {
				if s := dbState(t, pool); s != "gone" {
					t.Errorf("the db daemon is %q after kill, want gone: %v", s, c.Extra)
				}
			}},
		{name: "pause-db", inject: "pause", value: db, stop: "resume", stopValue: db,
			during: func(t *testing.T, pool *control.Pool, c history.Op) {
				if s := dbState(t, pool); s != "T" {
					t.Errorf("the db daemon is %q after pause, want T: %v", s, c.Extra)
				}
			}},
		{name: "fill-disk", inject: "fill-disk", value: map[string]any{"nodes": []any{"n1"}, "path": fillPath, "size": "1M"}, stop: "free-disk"},
		{name: "truncate-db-file", inject: "truncate-file", value: map[string]any{"nodes": []any{"n1"}, "path": dbDataFile, "size": int64(100)}},
		{name: "bitflip-db-file", inject: "bitflip-file", value: map[string]any{"nodes": []any{"n1"}, "path": dbDataFile, "offset": int64(7), "bit": int64(3)}},
		{name: "clock-skew-refused", inject: "clock-skew", value: map[string]any{"nodes": []any{"n1"}, "delta": "10s"}, refuse: []string{"missing capability"}},
	}
}

// runFaultCase injects one fault, probes n1's DROP rules and own state
// while it is in effect, ends it, heals, and compares every node with the
// snapshot taken before any fault.
func runFaultCase(t *testing.T, pool *control.Pool, own ownState, base snapshot, c faultCase) {
	ctx := context.Background()
	t.Cleanup(func() { restoreDB(t, pool) })
	base = startingState(t, pool, own, base)
	w, err := nemesis.New(nemesis.Options{Pool: pool, Seed: 16})
	if err != nil {
		t.Fatal(err)
	}
	in := w.Invoke(ctx, nemOp(c.inject, c.value))
	if c.refuse != nil {
		msg := fmt.Sprint(in.Error)
		if in.Type != history.Fail || in.Extra["landed"] != false || slices.ContainsFunc(c.refuse, func(w string) bool { return !strings.Contains(msg, w) }) {
			t.Errorf("%s: want a refusal (fail, landed=false) whose error names %q; got type %s landed %v error %q evidence %v",
				c.inject, c.refuse, in.Type, in.Extra["landed"], in.Error, in.Extra["evidence"])
		} else {
			t.Logf("%s refused: %s", c.inject, msg)
		}
	} else if in.Type != history.OK || in.Extra["landed"] != true {
		t.Errorf("%s: want ok and landed; got type %s landed %v error %q evidence %v", c.inject, in.Type, in.Extra["landed"], in.Error, in.Extra["evidence"])
	}
	checkDropsHold(t, pool, "during "+c.name)
	compareSnapshots(t, "during "+c.name+" (the node's own state, faultline's additions left out)", ownViewOf(base, own), ownViewOf(snapshotAll(t, pool, own), own))
	if c.during != nil {
		c.during(t, pool, in)
	}
	if c.stop != "" {
		out := w.Invoke(ctx, nemOp(c.stop, c.stopValue))
		if out.Type != history.OK || out.Extra["healed"] != true {
			t.Errorf("%s: want ok and healed; got type %s healed %v error %q evidence %v", c.stop, out.Type, out.Extra["healed"], out.Error, out.Extra["evidence"])
		}
	}
	healAndCompare(t, pool, own, base, "after "+c.name+" and heal")
}

// testHealOp leaves several faults open at once and ends them with the
// nemesis's own final heal op, as a run does on its way out.
func testHealOp(t *testing.T, pool *control.Pool, own ownState, base snapshot, delayMech string, db map[string]any) {
	ctx := context.Background()
	t.Cleanup(func() { restoreDB(t, pool) })
	base = startingState(t, pool, own, base)
	w, err := nemesis.New(nemesis.Options{Pool: pool, Seed: 16})
	if err != nil {
		t.Fatal(err)
	}
	ops := []history.Op{
		nemOp("start-partition", map[string]any{"n1": []any{"n2"}}),
		nemOp("start-loss", map[string]any{"nodes": []any{"n1"}, "probability": 0.3}),
		nemOp("pause", db),
		nemOp("fill-disk", map[string]any{"nodes": []any{"n1"}, "path": fillPath, "size": "1M"}),
	}
	if delayMech == "agent" {
		ops = append(ops, nemOp("start-delay", map[string]any{"nodes": []any{"n1"}, "delay": "50ms"}))
	}
	for _, op := range ops {
		if c := w.Invoke(ctx, op); c.Type != history.OK || c.Extra["landed"] != true {
			t.Errorf("%s: want ok and landed; got type %s landed %v error %q", op.F, c.Type, c.Extra["landed"], c.Error)
		}
	}
	checkDropsHold(t, pool, "with partition, loss, pause, fill and delay active")
	compareSnapshots(t, "with every fault active (the node's own state)", ownViewOf(base, own), ownViewOf(snapshotAll(t, pool, own), own))
	h := w.Invoke(ctx, nemOp("heal", nil))
	if h.Type != history.OK || h.Extra["healed"] != true {
		t.Errorf("heal op: want ok and healed; got type %s error %q evidence %v", h.Type, h.Error, h.Extra["evidence"])
	}
	if s := dbState(t, pool); s != "S" && s != "R" {
		t.Errorf("the paused db daemon is %q after the heal op, want it resumed", s)
	}
	compareSnapshots(t, "after the heal op", base, snapshotAll(t, pool, own))
	healAndCompare(t, pool, own, base, "after the heal op and HealAll")
}

// testKilledController runs a controller on script (in
// testdata/reliability) that opens the faults want ("node:fault", as
// activeFaults reads them) and holds them, probes the DROP rules while
// they are in effect, SIGKILLs it, runs `faultline heal` and compares.
func testKilledController(t *testing.T, st *cluster.State, pool *control.Pool, own ownState, base snapshot, script string, want []string) {
	t.Cleanup(func() { restoreDB(t, pool) })
	base = startingState(t, pool, own, base)
	script, err := filepath.Abs(filepath.Join("testdata", "reliability", script))
	if err != nil {
		t.Fatal(err)
	}
	sshArgs := []string{"--nodes-file", st.NodesFile, "--known-hosts", st.KnownHosts, "--ssh-key", st.ClientKey}
	dir := t.TempDir()
	logPath := filepath.Join(dir, "controller.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer logFile.Close()
	cmd := faultlineCmd(append([]string{"run", script, "--realtime", "--seed", "16", "--out", filepath.Join(dir, "out")}, sshArgs...)...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		t.Fatalf("start the controller: %v", err)
	}
	killed := false
	defer func() {
		if !killed {
			cmd.Process.Kill()
			cmd.Wait()
		}
	}()
	deadline := time.Now().Add(60 * time.Second)
	for {
		active := activeFaults(t, pool)
		if !slices.ContainsFunc(want, func(f string) bool { return !slices.Contains(active, f) }) {
			break
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(logPath)
			t.Fatalf("within 60s the controller opened only %v of %v; its output:\n%s", active, want, log)
		}
		time.Sleep(250 * time.Millisecond)
	}
	checkDropsHold(t, pool, "with the controller's faults active")
	compareSnapshots(t, "with the controller's faults active (the node's own state)", ownViewOf(base, own), ownViewOf(snapshotAll(t, pool, own), own))

	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	killed = true
	if left := activeFaults(t, pool); len(left) == 0 {
		t.Fatal("the faults vanished with the controller: nothing is left for heal, the test proves nothing")
	}
	checkDropsHold(t, pool, "after the controller was SIGKILLed, before heal")

	code, stdout, stderr := runCLI(t, append([]string{"heal"}, sshArgs...)...)
	if code != exitOK {
		t.Errorf("faultline heal: exit %d, want %d\n%s\n%s", code, exitOK, stdout, stderr)
	}
	t.Logf("faultline heal:\n%s", stdout)
	// A killed process stays dead: heal restarts nothing (the run's own
	// start op would have).
	if left := slices.DeleteFunc(activeFaults(t, pool), func(f string) bool { return f == "n1:db-killed" }); len(left) > 0 {
		t.Errorf("after faultline heal still active: %v", left)
	}
	if s := dbState(t, pool); s != "S" && s != "R" && s != "gone" {
		t.Errorf("the db daemon is %q after heal, want it running (resumed) or gone (killed)", s)
	}
	compareSnapshots(t, "after a SIGKILLed controller and faultline heal", base, snapshotAll(t, pool, own))
}

// activeScript prints which faultline faults are in effect on the node:
// faultline's chains' rules (in the filter or the mangle table, wherever
// the nemesis keeps them), the agent's NFQUEUE rule, a root qdisc marked
// as faultline's, the db paused or killed ($1 its pidfile), the fill file
// ($2).
const activeScript = `rules=$(for t in filter mangle; do iptables -w 5 -t "$t" -S 2>/dev/null; done)
echo "$rules" | grep -q -- '^-A ` + nemesis.PartitionChain + ` .*-j DROP' && echo partition
echo "$rules" | grep -q -- '^-A ` + nemesis.LossChain + ` .*statistic' && echo loss
echo "$rules" | grep -q -- '^-A ` + nemesis.DelayChain + ` .*NFQUEUE' && echo delay
for d in $(ls /sys/class/net); do tc qdisc show dev "$d" root | grep -q " ` + nemesis.QdiscHandle + ` " && echo "qdisc-$d"; done
if [ -s "$1" ]; then
  s=$(sed 's/.*) //' "/proc/$(cat "$1")/stat" 2>/dev/null | cut -d' ' -f1)
  case ${s:-gone} in T) echo pause;; gone|Z|X) echo db-killed;; esac
fi
[ -e "$2" ] && echo fill
true
`

// activeFaults lists the faults in effect on every node as "node:fault".
func activeFaults(t *testing.T, pool *control.Pool) []string {
	t.Helper()
	var out []string
	for _, n := range nodeNamesOf(pool) {
		for _, f := range strings.Fields(onNode(t, pool, n, activeScript, dbPidfile, fillPath)) {
			out = append(out, n+":"+f)
		}
	}
	return out
}

// startingState is the nodes' state as a subtest starts. Each subtest
// compares with it, so a change is reported by the fault that made it,
// not again by every later one; a change earlier subtests left is logged
// here and reported once more at the end (own-state-unchanged-at-end).
func startingState(t *testing.T, pool *control.Pool, own ownState, base snapshot) snapshot {
	t.Helper()
	now := snapshotAll(t, pool, own)
	var b strings.Builder
	for _, n := range slices.Sorted(maps.Keys(base)) {
		for _, sec := range slices.Sorted(maps.Keys(base[n])) {
			if d := lineDiff(base[n][sec], now[n][sec]); d != "" {
				fmt.Fprintf(&b, "node %s %s:\n%s", n, sec, d)
			}
		}
	}
	if b.Len() > 0 {
		t.Logf("earlier subtests left these changes; this subtest compares with the state at its start:\n%s", b.String())
	}
	return now
}

// healAndCompare runs HealAll, which must succeed (a user chain named
// *FAULTLINE* is no reason to fail), and compares every node with base.
func healAndCompare(t *testing.T, pool *control.Pool, own ownState, base snapshot, what string) {
	t.Helper()
	rep, err := nemesis.HealAll(context.Background(), pool)
	if err != nil {
		t.Errorf("%s: HealAll: %v (report %v)", what, err, rep)
	}
	// As a run ends: what file faults damaged is put back after the heal.
	if rep, err := nemesis.RestoreKept(context.Background(), pool); err != nil {
		t.Errorf("%s: RestoreKept: %v (report %v)", what, err, rep)
	}
	compareSnapshots(t, what, base, snapshotAll(t, pool, own))
}

func nemOp(f string, v any) history.Op {
	return history.Op{Process: history.NemesisProcess, Type: history.Invoke, F: f, Value: v}
}

// buildFaultline builds the faultline binary for the delay agent.
func buildFaultline(t *testing.T) string {
	t.Helper()
	goTool := integration.NeedCommand(t, "go")
	bin := filepath.Join(t.TempDir(), "faultline")
	out, err := exec.Command(goTool, "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("build faultline: %v\n%s", err, out)
	}
	return bin
}

// upReliabilityCluster brings the test's cluster up (down on cleanup) and
// returns a pool reaching its nodes over ssh.
func upReliabilityCluster(t *testing.T) (*cluster.State, *control.Pool) {
	t.Helper()
	st := testcluster.Up(t, reliabilityClusterConfig)
	return st, testcluster.Pool(t, st)
}

// ownState is what installOwn made: the node's own pids, by node, and the
// interface of each node a fault may legitimately shape (its cluster
// interface, unless the node has a root qdisc of its own there).
type ownState struct {
	pids      map[string][]string
	shapeable map[string]string
}

// ownSetupN1 gives n1 its own firewall (a chain jumped from INPUT that
// drops ownPort from everyone, loopback included, and ssh from n3; user
// chains named *FAULTLINE*; a mangle rule), its own root htb qdisc with a
// class on the cluster interface, its own files, and its own processes: a
// listener on ownPort and a sleep. $1 is n3's address. It prints the pids.
const ownSetupN1 = `set -e
ipt() { iptables -w 5 "$@"; }
ipt -N ` + ownChain + `
ipt -A ` + ownChain + ` -p tcp --dport ` + ownPort + ` -j DROP
ipt -A ` + ownChain + ` -s "$1" -p tcp --dport 22 -j DROP
ipt -A INPUT -j ` + ownChain + `
ipt -N ` + ownFLChain + `
ipt -A ` + ownFLChain + ` -s 192.0.2.1 -j DROP
ipt -A INPUT -j ` + ownFLChain + `
ipt -N ` + ownFLChain2 + `
ipt -A ` + ownFLChain2 + ` -s 192.0.2.2 -j DROP
ipt -t mangle -A PREROUTING -p tcp --dport ` + ownPort + ` -j MARK --set-mark 0x7
tc qdisc add dev ` + clusterIface + ` root handle 1: htb default 10
tc class add dev ` + clusterIface + ` parent 1: classid 1:10 htb rate 1gbit
mkdir -p /tmp/own /run/own /opt/own /opt/reldb
head -c 65536 /dev/urandom >/tmp/own/data.bin
echo "n1's own state" >/run/own/state.txt
echo "port=` + ownPort + `" >/opt/own/config
head -c 4096 /dev/urandom >` + dbDataFile + `
setsid perl -MIO::Socket::INET -e '
  my $s = IO::Socket::INET->new(LocalAddr => "0.0.0.0", LocalPort => ` + ownPort + `, Listen => 16, ReuseAddr => 1) or die "listen: $!";
  while (1) { my $c = $s->accept or next; print $c "own\n"; close $c }' </dev/null >/dev/null 2>&1 &
echo $!
setsid sleep 86401 </dev/null >/dev/null 2>&1 &
echo $!
`

// ownSetupN3 gives n3 an interface of its own outside the cluster (a veth
// pair with IPv4 addresses): faults must not shape it.
const ownSetupN3 = `set -e
ip link add ` + ownVeth + ` type veth peer name own1
ip addr add 192.168.250.1/30 dev ` + ownVeth + `
ip addr add 192.168.250.2/30 dev own1
ip link set ` + ownVeth + ` up
ip link set own1 up
`

// installOwn makes the nodes' own state, after checking the probes work:
// before n1's own firewall, every probed connection succeeds; after it,
// every one is dropped while ssh from n2 still connects.
func installOwn(t *testing.T, pool *control.Pool) ownState {
	t.Helper()
	n3, _ := pool.Node("n3")
	own := ownState{pids: map[string][]string{}, shapeable: map[string]string{"n2": clusterIface, "n3": clusterIface}}
	// The listener must answer first, or a "cut" probe would prove nothing.
	onNode(t, pool, "n1", `setsid perl -MIO::Socket::INET -e '
  my $s = IO::Socket::INET->new(LocalPort => `+ownPort+`, Listen => 4, ReuseAddr => 1) or die "listen: $!";
  for (1..40) { my $c = $s->accept or next; close $c }' </dev/null >/dev/null 2>&1 &
for i in $(seq 50); do ss -Hltn "sport = :`+ownPort+`" | grep -q . && exit 0; sleep 0.1; done; exit 1`)
	for _, p := range drops(pool) {
		if ok, err := p.try(pool); err != nil || !ok {
			t.Fatalf("before n1 has a firewall, %s does not connect (%v): the probes cannot tell a drop from a dead listener", p, err)
		}
	}
	onNode(t, pool, "n1", `pkill -f -- '^perl -MIO::Socket::INET -e' || true
for i in $(seq 50); do pgrep -f -- '^perl -MIO::Socket::INET -e' >/dev/null || exit 0; sleep 0.1; done; exit 1`)

	own.pids["n1"] = strings.Fields(onNode(t, pool, "n1", ownSetupN1, n3.Host))
	if len(own.pids["n1"]) != 2 {
		t.Fatalf("n1's own processes: pids %v, want 2", own.pids["n1"])
	}
	onNode(t, pool, "n3", ownSetupN3)
	// The db: a daemon started through faultline, what kill and pause target.
	restoreDB(t, pool)
	// n1's own listener, not a leftover, must hold the port.
	onNode(t, pool, "n1", `for i in $(seq 50); do ss -Hltnp "sport = :`+ownPort+`" | grep -q "pid=$1," && exit 0; sleep 0.1; done
echo "n1's own listener (pid $1) does not hold port `+ownPort+`: $(ss -Hltnp)" >&2; exit 1`, own.pids["n1"][0])
	checkDropsHold(t, pool, "with n1's own firewall and no fault")
	if ok, err := (dropProbe{from: "n2", to: "n1", port: "22", why: "not dropped"}).try(pool); err != nil || !ok {
		t.Fatalf("n2 cannot reach n1's ssh (%v): n1's own firewall drops more than it should, or n1 is down", err)
	}
	return own
}

// restoreDB starts the db daemon through faultline's control library
// unless it runs (a kill subtest that failed may leave it dead).
func restoreDB(t *testing.T, pool *control.Pool) {
	t.Helper()
	ctx := context.Background()
	r, err := pool.Remote(ctx, "n1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := control.StartDaemon(ctx, r, control.Daemon{Argv: []string{dbRestart, dbArg}, Pidfile: dbPidfile}); err != nil {
		t.Fatalf("start the db daemon: %v", err)
	}
	// A paused db left by a failed subtest is resumed here, not by heal.
	onNode(t, pool, "n1", `kill -s CONT "$(cat "$1")" 2>/dev/null; true`, dbPidfile)
}

// dbState is the db daemon's state letter from /proc, "gone" if it is not
// running.
func dbState(t *testing.T, pool *control.Pool) string {
	t.Helper()
	return strings.TrimSpace(onNode(t, pool, "n1", `s=$(sed 's/.*) //' "/proc/$(cat "$1" 2>/dev/null)/stat" 2>/dev/null | cut -d' ' -f1); echo "${s:-gone}"`, dbPidfile))
}

// dropProbe is a TCP connection n1's own firewall must drop, tried from a
// node ("controller" is this host, "n1" itself goes over loopback).
type dropProbe struct {
	from, to, port string
	why            string
}

func (p dropProbe) String() string {
	return fmt.Sprintf("%s -> %s:%s (%s)", p.from, p.to, p.port, p.why)
}

// drops are the connections n1's own firewall drops.
func drops(pool *control.Pool) []dropProbe {
	return []dropProbe{
		{from: "n2", to: "n1", port: ownPort, why: "n1 drops port " + ownPort + " from everyone"},
		{from: "n3", to: "n1", port: ownPort, why: "n1 drops port " + ownPort + " from everyone"},
		{from: "controller", to: "n1", port: ownPort, why: "n1 drops port " + ownPort + " from everyone, the controller too"},
		{from: "n1", to: "127.0.0.1", port: ownPort, why: "n1 drops port " + ownPort + " from everyone, loopback too"},
		{from: "n3", to: "n1", port: "22", why: "n1 drops ssh from n3"},
	}
}

// try reports whether the connection succeeds within probeTimeout; err
// says the probe itself could not run.
func (p dropProbe) try(pool *control.Pool) (bool, error) {
	host := p.to
	if n, ok := pool.Node(p.to); ok {
		host = n.Host
	}
	if p.from == "controller" {
		c, err := net.DialTimeout("tcp", net.JoinHostPort(host, p.port), probeTimeout)
		if err == nil {
			c.Close()
		}
		return err == nil, nil
	}
	out, err := runOn(pool, p.from, `if timeout "$3" bash -c "</dev/tcp/$1/$2" 2>/dev/null; then echo connected; else echo cut; fi`,
		host, p.port, fmt.Sprint(probeTimeout.Seconds()))
	if err != nil {
		return false, fmt.Errorf("probe %s: %w", p, err)
	}
	return strings.TrimSpace(out) == "connected", nil
}

// checkDropsHold tries every connection n1's own firewall drops, in
// parallel, and fails naming each one that connected.
func checkDropsHold(t *testing.T, pool *control.Pool, when string) {
	t.Helper()
	var wg sync.WaitGroup
	var mu sync.Mutex
	var through []string
	for _, p := range drops(pool) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ok, err := p.try(pool)
			if err != nil {
				t.Error(err)
			}
			if ok {
				mu.Lock()
				through = append(through, p.String())
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	slices.Sort(through)
	for _, p := range through {
		t.Errorf("%s: %s connected: the node's own DROP rule did not hold", when, p)
	}
}

// snapshot is, per node, its state by section ("iptables", "qdisc", ...).
type snapshot map[string]map[string]string

// snapshotScript prints the node's state in sections: its filter and
// mangle rules, its qdiscs and classes per interface (without
// counters), the state and command line of its own pids ($@), the
// checksums of its own files, and its listening sockets.
const snapshotScript = `files=$1; shift
echo "== iptables"; iptables -w 5 -S
echo "== mangle"; iptables -w 5 -t mangle -S
echo "== qdisc"; for d in $(ls /sys/class/net); do tc qdisc show dev "$d" | sed "s/ direct_packets_stat [0-9]*//; s/^/$d: /"; done
echo "== class"; for d in $(ls /sys/class/net); do tc class show dev "$d" | sed "s/^/$d: /"; done
echo "== procs"; for p; do
  s=$(sed 's/.*) //' "/proc/$p/stat" 2>/dev/null | cut -d' ' -f1)
  echo "$p ${s:-gone} $(tr '\0\n' '  ' <"/proc/$p/cmdline" 2>/dev/null | head -c 60)"
done
echo "== files"; for f in $files; do if [ -e "$f" ]; then sha256sum -- "$f"; else echo "missing $f"; fi; done
echo "== listen"; ss -Hltn | awk '{print $4}' | sort
`

// legacyScript lists the node's iptables-legacy tables without creating
// any (listing one with iptables-legacy would).
const legacyScript = `cat /proc/net/ip_tables_names 2>/dev/null | sort; true`

// snapshotAll reads every node's state; only n1 has own files.
func snapshotAll(t *testing.T, pool *control.Pool, own ownState) snapshot {
	t.Helper()
	var mu sync.Mutex
	var wg sync.WaitGroup
	snap := snapshot{}
	for _, n := range nodeNamesOf(pool) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			files := ""
			if n == "n1" {
				files = ownFilesList
			}
			out, err := runOn(pool, n, snapshotScript, append([]string{files}, own.pids[n]...)...)
			if err != nil {
				t.Errorf("snapshot: %v", err)
			}
			secs := map[string]string{}
			var cur string
			for _, line := range strings.Split(out, "\n") {
				if s, ok := strings.CutPrefix(line, "== "); ok {
					cur = s
					continue
				}
				if cur != "" && strings.TrimSpace(line) != "" {
					secs[cur] += line + "\n"
				}
			}
			mu.Lock()
			snap[n] = secs
			mu.Unlock()
		}()
	}
	wg.Wait()
	return snap
}

// sectionsString renders one node's snapshot.
func sectionsString(secs map[string]string) string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(secs)) {
		fmt.Fprintf(&b, "[%s]\n%s", k, secs[k])
	}
	return b.String()
}

// ownViewOf is the part of a snapshot a fault in effect must leave alone:
// iptables rules but faultline's own chains and their jump, qdiscs and
// classes but faultline's marked ones and those of the interface a fault
// may shape (a node's cluster interface, where it has no qdisc of its
// own), and everything else as is.
func ownViewOf(s snapshot, own ownState) snapshot {
	ours := map[string]bool{nemesis.Chain: true, nemesis.PartitionChain: true, nemesis.LossChain: true, nemesis.DelayChain: true}
	out := snapshot{}
	for node, secs := range s {
		v := map[string]string{}
		for sec, text := range secs {
			var keep []string
			for _, line := range strings.SplitAfter(text, "\n") {
				if line == "" {
					continue
				}
				f := strings.Fields(line)
				switch sec {
				case "iptables", "mangle":
					if slices.ContainsFunc(f, func(x string) bool { return ours[x] }) {
						continue
					}
				case "qdisc", "class":
					if slices.Contains(f, nemesis.QdiscHandle) || len(f) > 0 && f[0] == own.shapeable[node]+":" {
						continue
					}
				}
				keep = append(keep, line)
			}
			v[sec] = strings.Join(keep, "")
		}
		out[node] = v
	}
	return out
}

// compareSnapshots fails with a per node, per section diff of every
// change from want to got.
func compareSnapshots(t *testing.T, when string, want, got snapshot) {
	t.Helper()
	var b strings.Builder
	for _, node := range slices.Sorted(maps.Keys(want)) {
		secs := map[string]bool{}
		for s := range want[node] {
			secs[s] = true
		}
		for s := range got[node] {
			secs[s] = true
		}
		for _, sec := range slices.Sorted(maps.Keys(secs)) {
			if d := lineDiff(want[node][sec], got[node][sec]); d != "" {
				fmt.Fprintf(&b, "node %s %s:\n%s", node, sec, d)
			}
		}
	}
	if b.Len() > 0 {
		t.Errorf("%s: the nodes' state changed (- was there before, + is new):\n%s", when, b.String())
	}
}

// lineDiff lists the lines of a missing from b ("- ") and those of b not
// in a ("+ "), counting repeated lines.
func lineDiff(a, b string) string {
	count := map[string]int{}
	for _, l := range lines(a) {
		count[l]++
	}
	var added []string
	for _, l := range lines(b) {
		if count[l] > 0 {
			count[l]--
		} else {
			added = append(added, l)
		}
	}
	var d strings.Builder
	for _, l := range lines(a) {
		if count[l] > 0 {
			count[l]--
			fmt.Fprintf(&d, "  - %s\n", l)
		}
	}
	for _, l := range added {
		fmt.Fprintf(&d, "  + %s\n", l)
	}
	return d.String()
}

// lines splits text into its lines, none for empty text.
func lines(text string) []string {
	if text = strings.TrimRight(text, "\n"); text == "" {
		return nil
	}
	return strings.Split(text, "\n")
}

// onNode runs a bash script with args on node over ssh and returns its
// stdout; a failure stops the test (call it from the test's goroutine).
func onNode(t *testing.T, pool *control.Pool, node, script string, args ...string) string {
	t.Helper()
	out, err := runOn(pool, node, script, args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// runOn runs a bash script with args on node over ssh and returns its
// stdout.
func runOn(pool *control.Pool, node, script string, args ...string) (string, error) {
	ctx := context.Background()
	r, err := pool.Remote(ctx, node)
	if err != nil {
		return "", fmt.Errorf("node %s: %w", node, err)
	}
	res, err := r.Run(ctx, control.Cmd{Argv: append([]string{"bash", "-c", script, "reliability"}, args...), Timeout: time.Minute,
		Label: "reliability test script"})
	if err != nil {
		return "", fmt.Errorf("node %s: %w\nscript:\n%s\nstderr:\n%s", node, err, script, res.Stderr)
	}
	return string(res.Stdout), nil
}

// onNodes runs script on every node and returns stdout by node.
func onNodes(t *testing.T, pool *control.Pool, script string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, n := range nodeNamesOf(pool) {
		out[n] = onNode(t, pool, n, script)
	}
	return out
}

func nodeNamesOf(pool *control.Pool) []string {
	var out []string
	for _, n := range pool.Nodes() {
		out = append(out, n.Name)
	}
	return out
}

// What a fault in effect may change and what it may not: ownViewOf leaves
// out exactly faultline's chains, jumps and marked qdiscs, and the shapeable
// interface's qdisc, so any other change shows in the diff.
func TestReliabilityOwnView(t *testing.T) {
	own := ownState{shapeable: map[string]string{"n3": "eth0"}}
	base := snapshot{
		"n1": {"iptables": "-N NODEFW\n-N MYFAULTLINE-x\n-A INPUT -j NODEFW\n-A NODEFW -p tcp -m tcp --dport 7000 -j DROP\n",
			"qdisc": "eth0: qdisc htb 1: root refcnt 3\n"},
		"n3": {"iptables": "-P INPUT ACCEPT\n", "qdisc": "eth0: qdisc noqueue 0: root refcnt 2\nown0: qdisc noqueue 0: root refcnt 2\n"},
	}
	cases := []struct {
		name string
		node string
		sec  string
		text string // the section during the fault
		diff string // want; "" means the fault left the node's own alone
	}{
		{"faultline chains and jump added", "n1", "iptables",
			"-N FAULTLINE\n-N FAULTLINE-PART\n-N NODEFW\n-N MYFAULTLINE-x\n-A INPUT -j FAULTLINE\n-A INPUT -j NODEFW\n-A FAULTLINE -i lo -j RETURN\n-A FAULTLINE -j FAULTLINE-PART\n-A FAULTLINE-PART -s 10.94.0.12/32 -j DROP\n-A NODEFW -p tcp -m tcp --dport 7000 -j DROP\n", ""},
		{"own DROP removed", "n1", "iptables",
			"-N FAULTLINE\n-N NODEFW\n-N MYFAULTLINE-x\n-A INPUT -j FAULTLINE\n-A INPUT -j NODEFW\n", "  - -A NODEFW -p tcp -m tcp --dport 7000 -j DROP\n"},
		{"user chain named *FAULTLINE* removed", "n1", "iptables",
			"-N NODEFW\n-A INPUT -j NODEFW\n-A NODEFW -p tcp -m tcp --dport 7000 -j DROP\n", "  - -N MYFAULTLINE-x\n"},
		{"own qdisc replaced by faultline's", "n1", "qdisc",
			"eth0: qdisc tbf fa17: root refcnt 3 rate 1Mbit\n", "  - eth0: qdisc htb 1: root refcnt 3\n"},
		{"cluster interface shaped where the node has no qdisc", "n3", "qdisc",
			"eth0: qdisc tbf fa17: root refcnt 2 rate 1Mbit\nown0: qdisc noqueue 0: root refcnt 2\n", ""},
		{"own interface outside the cluster shaped", "n3", "qdisc",
			"eth0: qdisc tbf fa17: root refcnt 2 rate 1Mbit\nown0: qdisc tbf fa17: root refcnt 2 rate 1Mbit\n", "  - own0: qdisc noqueue 0: root refcnt 2\n"},
		{"unmarked qdisc added on the shapeable interface is left out", "n3", "qdisc",
			"eth0: qdisc htb 2: root\nown0: qdisc noqueue 0: root refcnt 2\n", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			during := snapshot{}
			for n, secs := range base {
				during[n] = maps.Clone(secs)
			}
			during[c.node][c.sec] = c.text
			got := lineDiff(ownViewOf(base, own)[c.node][c.sec], ownViewOf(during, own)[c.node][c.sec])
			if got != c.diff {
				t.Errorf("diff:\n%q\nwant:\n%q", got, c.diff)
			}
		})
	}
	if d := lineDiff("a\nb\nb\n", "b\nc\n"); d != "  - a\n  - b\n  + c\n" {
		t.Errorf("lineDiff counts repeated lines wrong: %q", d)
	}
	if d := lineDiff("", "filter\n"); d != "  + filter\n" {
		t.Errorf("lineDiff from nothing: %q", d)
	}
}
