package nemesis

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/faultline/faultline/cluster"
	"github.com/faultline/faultline/control"
	"github.com/faultline/faultline/history"
	"github.com/faultline/faultline/internal/testcluster"
)

// testCluster is the cluster the integration tests share: its own prefix,
// subnet and state dir, so neither a developer's cluster nor other packages'
// test clusters are touched.
var testClusterConfig = cluster.Config{Nodes: 5, Prefix: "fln", Subnet: "10.81.0.0/24",
	StateDir: "/var/lib/faultline-test-nemesis/cluster"}

// upCluster brings the test cluster up (Down on cleanup) and returns a pool
// reaching its nodes over ssh with the cluster's key and known_hosts.
func upCluster(t *testing.T) (*cluster.State, *control.Pool) {
	t.Helper()
	return upClusterWith(t, testClusterConfig)
}

// upClusterWith is upCluster for a cluster of the test's own.
func upClusterWith(t *testing.T, cfg cluster.Config) (*cluster.State, *control.Pool) {
	t.Helper()
	st := testcluster.Up(t, cfg, "iptables", "tc", "bash")
	return st, testcluster.Pool(t, st)
}

// reachScript tries a TCP connection to port 22 of every address given, in
// parallel, and prints "ADDR ok" or "ADDR cut".
const reachScript = `for ip; do (if timeout 2 bash -c "</dev/tcp/$ip/22" 2>/dev/null; then echo "$ip ok"; else echo "$ip cut"; fi) & done; wait`

// reachability returns, for every ordered pair of nodes, whether a TCP
// connection from the first to the second succeeds, tried from inside the
// nodes.
func reachability(t *testing.T, pool *control.Pool) map[[2]string]bool {
	t.Helper()
	ctx := context.Background()
	byAddr := map[string]string{}
	var addrs []string
	for _, n := range pool.Nodes() {
		byAddr[n.Host] = n.Name
		addrs = append(addrs, n.Host)
	}
	got := map[[2]string]bool{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, n := range pool.Nodes() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := pool.Remote(ctx, n.Name)
			if err != nil {
				t.Error(err)
				return
			}
			out, err := runScript(ctx, r, "reachability", reachScript, addrs...)
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
				f := strings.Fields(line)
				if len(f) == 2 && byAddr[f[0]] != n.Name {
					got[[2]string{n.Name, byAddr[f[0]]}] = f[1] == "ok"
				}
			}
		}()
	}
	wg.Wait()
	return got
}

// checkReach fails unless reachability matches want(a, b) for every pair.
// A connection that succeeds where it should be cut fails at once; one that
// times out where it should succeed is tried again (twice), since a loaded
// machine can be slow to start the probe, and a drop cannot make it pass.
func checkReach(t *testing.T, pool *control.Pool, what string, want func(a, b string) bool) {
	t.Helper()
	nodes := pool.Nodes()
	var slow []string
	for attempt := 0; attempt < 3; attempt++ {
		got := reachability(t, pool)
		if len(got) != len(nodes)*(len(nodes)-1) {
			t.Fatalf("%s: reachability has %d pairs, want %d: %v", what, len(got), len(nodes)*(len(nodes)-1), got)
		}
		slow = slow[:0]
		for pair, ok := range got {
			switch w := want(pair[0], pair[1]); {
			case ok && !w:
				t.Errorf("%s: %s -> %s connected, but the fault should cut it", what, pair[0], pair[1])
			case !ok && w:
				slow = append(slow, pair[0]+" -> "+pair[1])
			}
		}
		if t.Failed() || len(slow) == 0 {
			return
		}
	}
	t.Errorf("%s: %s unreachable, want reachable", what, strings.Join(slow, ", "))
}

// noFaultlineLeft fails if any node still shows a faultline chain, qdisc
// or state file.
func noFaultlineLeft(t *testing.T, pool *control.Pool) {
	t.Helper()
	ctx := context.Background()
	for _, n := range pool.Nodes() {
		r, err := pool.Remote(ctx, n.Name)
		if err != nil {
			t.Fatal(err)
		}
		out, err := runScript(ctx, r, "look for leftovers",
			`iptables -w 5 -S | grep -i faultline; iptables -w 5 -t mangle -S | grep -i faultline; tc qdisc show | grep `+QdiscHandle+`; ls `+StateFile+` 2>/dev/null; true`)
		if err != nil {
			t.Fatal(err)
		}
		if strings.TrimSpace(out) != "" {
			t.Errorf("node %s: faultline leftovers:\n%s", n.Name, out)
		}
	}
}

func nodeNames(pool *control.Pool) []string {
	var out []string
	for _, n := range pool.Nodes() {
		out = append(out, n.Name)
	}
	return out
}

// evidenceOf returns the evidence map a completion recorded for node.
func evidenceOf(t *testing.T, extra map[string]any, node string) map[string]any {
	t.Helper()
	ev, _ := extra["evidence"].(map[string]any)
	m, ok := ev[node].(map[string]any)
	if !ok {
		t.Fatalf("no evidence for %s in %v", node, extra)
	}
	return m
}

func TestCluster(t *testing.T) {
	_, pool := upCluster(t)
	if _, err := HealAll(context.Background(), pool); err != nil {
		t.Fatalf("initial heal: %v", err)
	}
	t.Run("partitions", func(t *testing.T) { testPartitions(t, pool) })
	t.Run("removed-behind-our-back", func(t *testing.T) { testRemovedRule(t, pool) })
	t.Run("heal-all", func(t *testing.T) { testHealAll(t, pool) })
	t.Run("processes", func(t *testing.T) { testProcesses(t, pool) })
	t.Run("shape-and-disk", func(t *testing.T) { testShapeAndDisk(t, pool) })
	t.Run("idle-faults-probed", func(t *testing.T) { testIdleProbed(t, pool) })
	t.Run("missing-capabilities", func(t *testing.T) { testMissingCapabilities(t, pool) })
	noFaultlineLeft(t, pool)
}

func testPartitions(t *testing.T, pool *control.Pool) {
	ctx := context.Background()
	specs := append([]any{}, toAny(GrudgeSpecs)...)
	specs = append(specs, map[string]any{"n1": []any{"n2"}, "n3": []any{"n1", "n2"}})
	for i, spec := range specs {
		name := fmt.Sprint(spec)
		t.Run(name, func(t *testing.T) {
			w, err := New(Options{Pool: pool, Seed: uint64(i),
				Primaries: func(context.Context) ([]string, error) { return []string{"n2"}, nil }})
			if err != nil {
				t.Fatal(err)
			}
			start := w.Invoke(ctx, opF("start-partition", spec))
			if start.Type != "ok" || start.Extra["landed"] != true {
				t.Fatalf("start: %+v", start)
			}
			g := w.partition
			if g == nil {
				t.Fatal("no active grudge after start")
			}
			checkReach(t, pool, "partitioned", g.Reachable)
			stop := w.Invoke(ctx, opF("stop-partition", nil))
			if stop.Type != "ok" || stop.Extra["landed"] != true || stop.Extra["healed"] != true {
				t.Fatalf("stop: %+v", stop)
			}
			for node := range g {
				if d, _ := evidenceOf(t, stop.Extra, node)["drops"].(int64); d < 1 {
					t.Errorf("node %s: %d drops counted, want >= 1: %v", node, d, stop.Extra)
				}
			}
			checkReach(t, pool, "healed", func(string, string) bool { return true })
		})
	}
}

// A rule deleted by hand between inject and heal is reported: the fault
// did not stay landed.
func testRemovedRule(t *testing.T, pool *control.Pool) {
	ctx := context.Background()
	w, err := New(Options{Pool: pool})
	if err != nil {
		t.Fatal(err)
	}
	start := w.Invoke(ctx, opF("start-partition", map[string]any{"n1": []any{"n2"}}))
	if start.Extra["landed"] != true {
		t.Fatalf("start: %+v", start)
	}
	r, _ := pool.Remote(ctx, "n1")
	n2, _ := pool.Node("n2")
	if _, err := runScript(ctx, r, "delete rule", `iptables -w 5 -D `+PartitionChain+` -s "$1" -j DROP`, n2.Host); err != nil {
		t.Fatal(err)
	}
	stop := w.Invoke(ctx, opF("stop-partition", nil))
	if stop.Extra["landed"] != false {
		t.Fatalf("a rule removed behind faultline's back must be reported not landed: %+v", stop)
	}
	if m := evidenceOf(t, stop.Extra, "n1")["missing"]; fmt.Sprint(m) != "[n2]" {
		t.Errorf("missing = %v, want [n2]", m)
	}
	if stop.Extra["healed"] != true {
		t.Errorf("healed = %v", stop.Extra["healed"])
	}
}

// HealAll removes faults injected and abandoned (a crashed controller),
// and a second HealAll finds nothing to do.
func testHealAll(t *testing.T, pool *control.Pool) {
	ctx := context.Background()
	w, err := New(Options{Pool: pool, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range []struct {
		f string
		v any
	}{
		{"start-partition", "majority"},
		{"start-loss", map[string]any{"nodes": "all", "probability": 0.5}},
	} {
		if c := w.Invoke(ctx, opF(op.f, op.v)); c.Extra["landed"] != true {
			t.Fatalf("%s: %+v", op.f, c)
		}
	}
	rep, err := HealAll(ctx, pool)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep["n1"]) == 0 {
		t.Errorf("heal reported nothing removed on n1: %v", rep)
	}
	noFaultlineLeft(t, pool)
	checkReach(t, pool, "after heal", func(string, string) bool { return true })
	rep, err = HealAll(ctx, pool)
	if err != nil {
		t.Fatal(err)
	}
	for node, removed := range rep {
		if len(removed) > 0 {
			t.Errorf("second heal removed %v on %s; want nothing", removed, node)
		}
	}
}

func opF(f string, v any) history.Op {
	return history.Op{Process: history.NemesisProcess, Type: history.Invoke, F: f, Value: v}
}

func toAny(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

// Kill, start, pause and resume a sleep daemon, judged from /proc.
func testProcesses(t *testing.T, pool *control.Pool) {
	ctx := context.Background()
	w, err := New(Options{Pool: pool})
	if err != nil {
		t.Fatal(err)
	}
	const pattern = "sleep 7777"
	proc := func(nodes any) map[string]any {
		return map[string]any{"nodes": nodes, "pattern": pattern, "restart": []any{"sleep", "7777"},
			"pidfile": "/opt/sleep.pid"}
	}
	for _, n := range nodeNames(pool) {
		r, _ := pool.Remote(ctx, n)
		if _, err := control.StartDaemon(ctx, r, control.Daemon{Argv: []string{"sleep", "7777"}, Pidfile: "/opt/sleep.pid"}); err != nil {
			t.Fatal(err)
		}
	}
	steps := []struct {
		f     string
		nodes any
		state func(string) bool
	}{
		{"pause", []any{"n1", "n2"}, func(s string) bool { return s == "T" }},
		{"resume", []any{"n1", "n2"}, func(s string) bool { return s == "S" || s == "R" }},
		{"kill", "all", func(s string) bool { return s == "gone" }},
		{"start", "all", func(s string) bool { return s == "S" || s == "R" }},
		{"pause", "one", func(s string) bool { return s == "T" }},
	}
	for _, s := range steps {
		c := w.Invoke(ctx, opF(s.f, proc(s.nodes)))
		if c.Type != "ok" || c.Extra["landed"] != true {
			t.Fatalf("%s: %+v", s.f, c)
		}
		ev := c.Extra["evidence"].(map[string]any)
		for node := range ev {
			pids := evidenceOf(t, c.Extra, node)["pids"].(map[string]any)
			if len(pids) != 1 {
				t.Errorf("%s on %s: pids %v, want the one sleep", s.f, node, pids)
			}
			for pid, st := range pids {
				if !s.state(st.(string)) {
					t.Errorf("%s on %s: pid %s state %v", s.f, node, pid, st)
				}
			}
		}
	}
	// A kill that matches nothing did not land.
	if c := w.Invoke(ctx, opF("kill", map[string]any{"nodes": "all", "pattern": "no-such-process-4242"})); c.Extra["landed"] != false {
		t.Errorf("kill of nothing: %+v", c)
	}
	// The paused sleep is in the state file; HealAll resumes it.
	rep, err := HealAll(ctx, pool)
	if err != nil {
		t.Fatal(err)
	}
	resumed := 0
	for _, removed := range rep {
		for _, line := range removed {
			if strings.HasPrefix(line, "resumed ") {
				resumed++
			}
		}
	}
	if resumed != 1 {
		t.Errorf("heal resumed %d processes, want 1: %v", resumed, rep)
	}
	c := w.Invoke(ctx, opF("kill", proc("all")))
	if c.Extra["landed"] != true {
		t.Errorf("final kill: %+v", c)
	}
}

// Bandwidth limits and fill files land, are read back, and are healed by
// their stop ops or, when abandoned, by HealAll.
// A network fault held while no traffic of the system crosses it is proven
// by faultline's probe, sent from the victims to the cluster's nodes and
// counted by faultline's own rules and qdisc: the evidence never rests on
// what the workload happened to send during the hold.
func testIdleProbed(t *testing.T, pool *control.Pool) {
	ctx := context.Background()
	for _, f := range []struct {
		start, stop string
		v           any
	}{
		{"start-partition", "stop-partition", map[string]any{"n1": []any{"n2"}}}, // one-way: only n1 drops
		{"start-partition", "stop-partition", "majority"},
		{"start-loss", "stop-loss", map[string]any{"nodes": []any{"n3"}, "probability": 0.05}},
		{"start-bandwidth", "stop-bandwidth", map[string]any{"nodes": []any{"n2"}, "rate": "1mbit"}},
	} {
		t.Run(f.start+" "+fmt.Sprint(f.v), func(t *testing.T) {
			w, err := New(Options{Pool: pool, Seed: 3})
			if err != nil {
				t.Fatal(err)
			}
			start := w.Invoke(ctx, opF(f.start, f.v))
			if start.Type != "ok" || start.Extra["landed"] != true {
				t.Fatalf("start: %+v", start)
			}
			stop := w.Invoke(ctx, opF(f.stop, nil))
			if stop.Type != "ok" || stop.Extra["healed"] != true {
				t.Fatalf("stop: %+v", stop)
			}
			effect, _ := stop.Extra["effect"].(int64)
			probe, ok := stop.Extra["effect_probe"].(int64)
			if !ok || probe < 1 || effect < probe {
				t.Fatalf("an idle %s: effect %d, of it by faultline's probe %v; want the probe to prove it: %+v", f.start, effect, stop.Extra["effect_probe"], stop.Extra)
			}
		})
	}
	if _, err := HealAll(ctx, pool); err != nil {
		t.Fatal(err)
	}
	noFaultlineLeft(t, pool)
}

func testShapeAndDisk(t *testing.T, pool *control.Pool) {
	ctx := context.Background()
	w, err := New(Options{Pool: pool})
	if err != nil {
		t.Fatal(err)
	}
	invoke := func(f string, v any, wantLanded bool) map[string]any {
		t.Helper()
		c := w.Invoke(ctx, opF(f, v))
		if c.Type != "ok" || c.Extra["landed"] != wantLanded {
			t.Fatalf("%s: %+v", f, c)
		}
		if h, ok := c.Extra["healed"]; ok && h != true {
			t.Fatalf("%s: not healed: %+v", f, c)
		}
		return c.Extra
	}
	invoke("start-bandwidth", map[string]any{"nodes": []any{"n1"}, "rate": "1mbit"}, true)
	// Traffic through the limit shows in the qdisc's counters.
	checkReach(t, pool, "shaped", func(string, string) bool { return true })
	ex := invoke("stop-bandwidth", nil, true)
	if b, _ := evidenceOf(t, ex, "n1")["sent_bytes"].(int64); b <= 0 {
		t.Errorf("no bytes counted through the tbf qdisc: %v", ex)
	}
	ex = invoke("fill-disk", map[string]any{"nodes": "all", "path": "/opt/faultline-fill", "size": "10M"}, true)
	if s, _ := evidenceOf(t, ex, "n2")["size"].(int64); s != 10<<20 {
		t.Errorf("fill size read back %d, want %d", s, 10<<20)
	}
	invoke("free-disk", nil, true)

	// Abandoned: HealAll finds the qdisc by its handle and the file by the state file.
	invoke("start-bandwidth", map[string]any{"nodes": []any{"n2"}, "rate": "1mbit"}, true)
	invoke("fill-disk", map[string]any{"nodes": []any{"n3"}, "path": "/opt/faultline-fill", "size": "1M"}, true)
	rep, err := HealAll(ctx, pool)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(rep["n2"], ";") + "|" + strings.Join(rep["n3"], ";"); !strings.Contains(got, "qdisc eth0") || !strings.Contains(got, "removed /opt/faultline-fill") {
		t.Errorf("HealAll report %v lacks the qdisc or the fill file", rep)
	}
	noFaultlineLeft(t, pool)
}

// Faults this kernel cannot inject fail as missing capabilities, never faked.
func testMissingCapabilities(t *testing.T, pool *control.Pool) {
	ctx := context.Background()
	caps, err := Capabilities(ctx, pool, []string{"n1"})
	if err != nil {
		t.Fatal(err)
	}
	w, err := New(Options{Pool: pool})
	if err != nil {
		t.Fatal(err)
	}
	c := w.Invoke(ctx, opF("start-delay", map[string]any{"nodes": "all", "delay": "50ms"}))
	switch {
	case caps["n1"].Netem != "yes" && caps["n1"].NFQueue == "yes":
		// Delay by faultline's agent: TestDelayAgent, with an agent binary.
		if c.Type != "fail" || !strings.Contains(fmt.Sprint(c.Error), "no delay agent in tests") {
			t.Fatalf("delay by agent without an agent binary: %+v", c)
		}
	case caps["n1"].Netem == "yes":
		if c.Extra["landed"] != true {
			t.Fatalf("netem present but delay did not land: %+v", c)
		}
		if s := w.Invoke(ctx, opF("stop-delay", nil)); s.Extra["healed"] != true {
			t.Fatalf("stop-delay: %+v", s)
		}
	case c.Type != "fail" || !strings.Contains(fmt.Sprint(c.Error), "missing capability: tc netem") || c.Extra["landed"] != false:
		t.Fatalf("delay without netem: %+v, want a missing-capability failure", c)
	}
	c = w.Invoke(ctx, opF("clock-skew", map[string]any{"nodes": "one", "delta": "10s"}))
	if c.Type != "fail" || !strings.Contains(fmt.Sprint(c.Error), "share one kernel") {
		t.Fatalf("clock fault on one kernel: %+v, want a missing-capability failure", c)
	}
	// nemesis.clock on netns nodes: they run on the controller's kernel.
	c = w.Invoke(ctx, opF("start-clock", map[string]any{"nodes": "one", "mode": "bump", "delta": "10s"}))
	if c.Type != "fail" || !strings.Contains(fmt.Sprint(c.Error), "missing capability: nodes") || !strings.Contains(fmt.Sprint(c.Error), "controller's own kernel") {
		t.Fatalf("start-clock on netns nodes: %+v, want a missing-capability failure naming the shared kernel", c)
	}
	noFaultlineLeft(t, pool)
}
