package nemesis

import (
	"context"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/faultline/faultline/cluster"
	"github.com/faultline/faultline/control"
	"github.com/faultline/faultline/internal/integration"
)

// ownStateClusterConfig is the cluster of TestNodeOwnState alone.
var ownStateClusterConfig = cluster.Config{Nodes: 3, Prefix: "flq", Subnet: "10.93.0.0/24",
	StateDir: "/var/lib/faultline-test-qdisc/cluster"}

// A node's own qdiscs and firewall rules are its own: faults add to them
// and heal removes what faultline added, never more.
func TestNodeOwnState(t *testing.T) {
	_, pool := upClusterWith(t, ownStateClusterConfig)
	integration.NeedCommand(t, "perl")
	if _, err := HealAll(context.Background(), pool); err != nil {
		t.Fatalf("initial heal: %v", err)
	}
	t.Run("qdiscs", func(t *testing.T) { testOwnQdiscs(t, pool) })
	t.Run("firewall", func(t *testing.T) { testOwnFirewall(t, pool) })
	noFaultlineLeft(t, pool)
}

// onNode runs a shell script on node and returns its output.
func onNode(t *testing.T, pool *control.Pool, node, label, script string, args ...string) string {
	t.Helper()
	ctx := context.Background()
	r, err := pool.Remote(ctx, node)
	if err != nil {
		t.Fatal(err)
	}
	out, err := runScript(ctx, r, label, script, args...)
	if err != nil {
		t.Fatalf("%s on %s: %v\n%s", label, node, err, out)
	}
	return out
}

// qdiscSnapshotScript prints every interface's qdiscs and classes, without
// statistics, so two snapshots differ only if a qdisc or class changed.
const qdiscSnapshotScript = `for d in $(ls /sys/class/net); do echo "== $d"; tc qdisc show dev "$d"; tc class show dev "$d"; done`

// ifaceOf names the interface holding addr on node, found independently of
// the code under test.
func ifaceOf(t *testing.T, pool *control.Pool, node, addr string) string {
	t.Helper()
	out := onNode(t, pool, node, "find the interface", `ip -o -4 addr show | awk -v a="$1" '{split($4, p, "/"); if (p[1] == a) print $2}'`, addr)
	dev, _, _ := strings.Cut(strings.TrimSpace(out), "@")
	if dev == "" {
		t.Fatalf("no interface holds %s on %s", addr, node)
	}
	return dev
}

// n2 has its own htb at the root of its cluster interface, n1 a second
// interface with an address outside the cluster, n3 only the defaults:
// bandwidth faults refuse n2 (its htb stays byte for byte), shape only n1's
// and n3's cluster interfaces, and their stop or HealAll gives back exactly
// what was there.
func testOwnQdiscs(t *testing.T, pool *control.Pool) {
	ctx := context.Background()
	n1, _ := pool.Node("n1")
	n2, _ := pool.Node("n2")
	dev1, dev2 := ifaceOf(t, pool, "n1", n1.Host), ifaceOf(t, pool, "n2", n2.Host)
	onNode(t, pool, "n2", "add an htb", `tc qdisc add dev "$1" root handle 1: htb default 10 && tc class add dev "$1" parent 1: classid 1:10 htb rate 100mbit`, dev2)
	onNode(t, pool, "n1", "add a second interface", `ip link add flq-x0 type veth peer name flq-x1 && ip addr add 10.250.1.1/24 dev flq-x0 && ip link set flq-x0 up && ip link set flq-x1 up`)
	t.Cleanup(func() {
		onNode(t, pool, "n2", "remove the htb", `tc qdisc del dev "$1" root handle 1:`, dev2)
		onNode(t, pool, "n1", "remove the second interface", `ip link del flq-x0`)
	})
	snapshot := func() map[string]string {
		s := map[string]string{}
		for _, n := range nodeNames(pool) {
			s[n] = onNode(t, pool, n, "qdisc snapshot", qdiscSnapshotScript)
		}
		return s
	}
	before := snapshot()
	if !strings.Contains(before["n2"], "qdisc htb 1: root") || !strings.Contains(before["n2"], "class htb 1:10") {
		t.Fatalf("n2's own htb is not in place:\n%s", before["n2"])
	}
	sameAsBefore := func(what string) {
		t.Helper()
		for n, s := range snapshot() {
			if s != before[n] {
				t.Errorf("%s: %s's qdiscs changed\nbefore:\n%s\nafter:\n%s", what, n, before[n], s)
			}
		}
	}
	rootOf := func(node, dev string) string {
		return strings.TrimSpace(onNode(t, pool, node, "root qdisc", `tc qdisc show dev "$1" root`, dev))
	}
	for _, heal := range []string{"stop-bandwidth", "HealAll"} {
		t.Run(heal, func(t *testing.T) {
			w, err := New(Options{Pool: pool})
			if err != nil {
				t.Fatal(err)
			}
			c := w.Invoke(ctx, opF("start-bandwidth", map[string]any{"nodes": "all", "rate": "1mbit"}))
			want := fmt.Sprintf("n2: %s has its own root qdisc htb 1:; faultline does not replace a qdisc it did not create", dev2)
			if c.Type != "info" || !strings.Contains(fmt.Sprint(c.Error), want) || c.Extra["landed"] != false {
				t.Fatalf("start-bandwidth on a node with its own htb: %+v, want an info completion, not landed, with %q", c, want)
			}
			if b := evidenceOf(t, c.Extra, "n2")["before"]; b != "htb 1:" {
				t.Errorf("n2's evidence names root qdisc %v, want htb 1:", b)
			}
			for _, n := range []string{"n1", "n3"} {
				if q := fmt.Sprint(evidenceOf(t, c.Extra, n)["qdiscs"]); !strings.Contains(q, "tbf "+QdiscHandle+" root") {
					t.Errorf("%s: qdiscs read back %s, want faultline's tbf", n, q)
				}
			}
			// During the fault: n2 untouched, n1's second interface untouched,
			// n1's cluster interface shaped.
			during := snapshot()
			if during["n2"] != before["n2"] {
				t.Errorf("n2's qdiscs changed while the fault was active\nbefore:\n%s\nduring:\n%s", before["n2"], during["n2"])
			}
			if r := rootOf("n1", "flq-x0"); !strings.HasPrefix(r, "qdisc noqueue 0: root") {
				t.Errorf("n1's interface outside the cluster has root %q, want its default noqueue", r)
			}
			if r := rootOf("n1", dev1); !strings.HasPrefix(r, "qdisc tbf "+QdiscHandle+" root") {
				t.Errorf("n1's cluster interface has root %q, want faultline's tbf", r)
			}
			if heal == "HealAll" {
				rep, err := HealAll(ctx, pool)
				if err != nil {
					t.Fatal(err)
				}
				for n, want := range map[string]string{"n1": "qdisc " + dev1, "n2": "", "n3": "qdisc "} {
					got := strings.Join(rep[n], ";")
					if want == "" && strings.Contains(got, "qdisc") || !strings.Contains(got, want) {
						t.Errorf("HealAll on %s removed %q, want %q", n, got, want)
					}
				}
			} else {
				s := w.Invoke(ctx, opF("stop-bandwidth", nil))
				if s.Extra["healed"] != true || s.Extra["landed"] != false {
					t.Errorf("stop-bandwidth: %+v, want healed and (n2 refused) not landed", s)
				}
				if q := evidenceOf(t, s.Extra, "n2")["qdiscs"]; q != int64(0) {
					t.Errorf("stop-bandwidth found %v faultline qdiscs on n2, want 0", q)
				}
			}
			sameAsBefore("after " + heal)
		})
	}
	// A node with only the defaults is shaped, landed, and healed back to
	// its default.
	w, err := New(Options{Pool: pool})
	if err != nil {
		t.Fatal(err)
	}
	if c := w.Invoke(ctx, opF("start-bandwidth", map[string]any{"nodes": []any{"n1", "n3"}, "rate": "1mbit"})); c.Type != "ok" || c.Extra["landed"] != true {
		t.Fatalf("start-bandwidth on nodes with default qdiscs: %+v", c)
	}
	if e := evidenceOf(t, w.Invoke(ctx, opF("stop-bandwidth", nil)).Extra, "n1"); e["qdiscs"] != int64(1) {
		t.Errorf("stop-bandwidth on n1: %v, want one faultline qdisc removed", e)
	}
	sameAsBefore("after shaping n1 and n3 alone")
	if r := rootOf("n1", dev1); !strings.HasPrefix(r, "qdisc noqueue 0: root") {
		t.Errorf("n1's cluster interface has root %q after heal, want the default back", r)
	}
}

// listenScript is a TCP server on port $1 that accepts and closes every
// connection, so a probe that gets no answer met a DROP.
const listenScript = `use IO::Socket::INET; my $s = IO::Socket::INET->new(LocalPort => $ARGV[0], Listen => 16, ReuseAddr => 1) or die "listen: $!"; while (my $c = $s->accept) { close $c }`

// fwProbe is one TCP connect attempt to n2: from a node ("" for the
// controller, this process) to addr:port.
type fwProbe struct {
	name       string
	from, addr string
	port       int
	open       bool // what the node's own rules say
}

// probeOnce tries p once, with a 2 s timeout, from where it says.
func probeOnce(pool *control.Pool, p fwProbe) (bool, error) {
	if p.from == "" {
		c, err := net.DialTimeout("tcp", net.JoinHostPort(p.addr, fmt.Sprint(p.port)), 2*time.Second)
		if err != nil {
			return false, nil
		}
		return true, c.Close()
	}
	ctx := context.Background()
	r, err := pool.Remote(ctx, p.from)
	if err != nil {
		return false, err
	}
	out, err := runScript(ctx, r, "probe "+p.name,
		`if timeout 2 bash -c "</dev/tcp/$1/$2" 2>/dev/null; then echo open; else echo cut; fi`, p.addr, fmt.Sprint(p.port))
	return strings.TrimSpace(out) == "open", err
}

// checkProbes runs the probes in parallel. One that connects where
// want(p) says cut fails at once; one that does not connect where it
// should is tried again (twice): a loaded machine or a loss fault can make
// a connect slow, and nothing can make a dropped one succeed.
func checkProbes(t *testing.T, pool *control.Pool, what string, probes []fwProbe, want func(fwProbe) bool) {
	t.Helper()
	pending := probes
	for attempt := 0; attempt < 3 && len(pending) > 0; attempt++ {
		var (
			mu   sync.Mutex
			wg   sync.WaitGroup
			slow []fwProbe
		)
		for _, p := range pending {
			wg.Add(1)
			go func() {
				defer wg.Done()
				open, err := probeOnce(pool, p)
				mu.Lock()
				defer mu.Unlock()
				switch w := want(p); {
				case err != nil:
					t.Errorf("%s: probe %s: %v", what, p.name, err)
				case open && !w:
					t.Errorf("%s: %s connected, but the node's own rules (or the fault) drop it", what, p.name)
				case !open && w:
					slow = append(slow, p)
				}
			}()
		}
		wg.Wait()
		pending = slow
	}
	for _, p := range pending {
		t.Errorf("%s: %s did not connect, want it open", what, p.name)
	}
}

// n2 drops port 7000 from everyone (loopback and the controller included)
// and port 22 from n3. Through a partition, a loss and a delay by the
// agent, both drops hold, probed during each fault, and after heal n2's
// rules are what they were.
func testOwnFirewall(t *testing.T, pool *control.Pool) {
	buildAgent(t)
	ctx := context.Background()
	n2, _ := pool.Node("n2")
	n3, _ := pool.Node("n3")
	r2, err := pool.Remote(ctx, "n2")
	if err != nil {
		t.Fatal(err)
	}
	const pidfile = "/run/flq-listen.pid"
	if _, err := control.StartDaemon(ctx, r2, control.Daemon{Argv: []string{"perl", "-e", listenScript, "7000"}, Pidfile: pidfile}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, err := control.StopDaemon(ctx, r2, control.Stop{Pidfile: pidfile, Grace: time.Second}); err != nil {
			t.Error(err)
		}
	})
	if err := control.AwaitPort(ctx, r2, 7000, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	probes := []fwProbe{
		{"n1 -> n2:7000", "n1", n2.Host, 7000, false},
		{"n3 -> n2:7000", "n3", n2.Host, 7000, false},
		{"n2 -> 127.0.0.1:7000 (loopback)", "n2", "127.0.0.1", 7000, false},
		{"controller -> n2:7000", "", n2.Host, 7000, false},
		{"n3 -> n2:22", "n3", n2.Host, 22, false},
		{"n1 -> n2:22", "n1", n2.Host, 22, true},
	}
	checkProbes(t, pool, "before n2's own rules", probes, func(fwProbe) bool { return true })
	if t.Failed() {
		t.FailNow()
	}
	const rulesScript = `iptables -w 5 -S; echo "== mangle"; iptables -w 5 -t mangle -S`
	onNode(t, pool, "n2", "add n2's own rules",
		`iptables -w 5 -A INPUT -p tcp --dport 7000 -j DROP && iptables -w 5 -A INPUT -s "$1" -p tcp --dport 22 -j DROP`, n3.Host)
	t.Cleanup(func() {
		onNode(t, pool, "n2", "remove n2's own rules",
			`iptables -w 5 -D INPUT -p tcp --dport 7000 -j DROP && iptables -w 5 -D INPUT -s "$1" -p tcp --dport 22 -j DROP`, n3.Host)
	})
	rules := onNode(t, pool, "n2", "n2's rules", rulesScript)
	byOwnRules := func(p fwProbe) bool { return p.open }
	checkProbes(t, pool, "n2's own rules, no fault", probes, byOwnRules)

	w, err := New(Options{Pool: pool})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []struct {
		start, stop string
		v           any
	}{
		// n2 drops n3, whose probes n2's own rules drop anyway: every probe
		// is judged by n2's rules alone.
		{"start-partition", "stop-partition", map[string]any{"n2": []any{"n3"}}},
		{"start-loss", "stop-loss", map[string]any{"nodes": []any{"n2"}, "probability": 0.2}},
		{"start-delay", "stop-delay", map[string]any{"nodes": []any{"n2"}, "delay": "50ms"}},
	} {
		t.Run(fmt.Sprint(f.start, " ", f.v), func(t *testing.T) {
			c := w.Invoke(ctx, opF(f.start, f.v))
			if c.Type != "ok" || c.Extra["landed"] != true {
				t.Fatalf("%s: %+v", f.start, c)
			}
			checkProbes(t, pool, "during "+f.start, probes, byOwnRules)
			s := w.Invoke(ctx, opF(f.stop, nil))
			if s.Type != "ok" || s.Extra["landed"] != true || s.Extra["healed"] != true {
				t.Fatalf("%s: %+v", f.stop, s)
			}
			if v, _ := s.Value.(map[string]any); v["mechanism"] == "nfqueue" {
				if d, _ := evidenceOf(t, s.Extra, "n2")["delayed"].(int64); d < 1 {
					t.Errorf("the agent delayed %d packets on n2, want the probes' packets: %v", d, s.Extra)
				}
			}
		})
	}
	if _, err := HealAll(ctx, pool); err != nil {
		t.Fatal(err)
	}
	if after := onNode(t, pool, "n2", "n2's rules", rulesScript); after != rules {
		t.Errorf("n2's rules changed through the faults and heal\nbefore:\n%s\nafter:\n%s", rules, after)
	}
	checkProbes(t, pool, "after heal", probes, byOwnRules)
}
