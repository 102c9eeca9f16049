package mesh_test

import (
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/mesh"
)

// twoNodes is a mesh over echo servers n1 and n2.
func twoNodes(t *testing.T) (*mesh.Mesh, map[string]*echoServer) {
	t.Helper()
	m := mesh.New(mesh.Options{Seed: 3})
	t.Cleanup(func() { m.Close() })
	servers := map[string]*echoServer{}
	for _, n := range []string{"n1", "n2"} {
		servers[n] = startEcho(t, n)
		if err := m.Add(n, "echo", servers[n].addr()); err != nil {
			t.Fatal(err)
		}
	}
	return m, servers
}

// rtt greets a new connection and times one echo.
func rtt(t *testing.T, addr, from, to string) time.Duration {
	t.Helper()
	c, err := greet(addr, from, to)
	if err != nil {
		t.Fatalf("greet %s: %v", addr, err)
	}
	defer c.c.Close()
	start := time.Now()
	if err := c.send("ping"); err != nil {
		t.Fatal(err)
	}
	if err := c.expect("echo ping", passWait); err != nil {
		t.Fatal(err)
	}
	return time.Since(start)
}

// TestLatency checks that latency delays exactly the links into the shaped
// node, by at least the configured amount, keeps order under jitter, and
// goes away at heal.
func TestLatency(t *testing.T) {
	m, _ := twoNodes(t)
	const lat = 40 * time.Millisecond
	m.Shape([]string{"n1"}, mesh.Shaping{Latency: lat, Jitter: 20 * time.Millisecond})
	for _, l := range []mesh.Link{{"n2", "n1", "echo"}, {"n1", "n2", "echo"}, {mesh.Client, "n1", "echo"}} {
		d := rtt(t, mustAddr(t, m, l.From, l.To, "echo"), l.From, l.To)
		t.Logf("%s round trip %v with latency %v into n1", l, d, lat)
		if d < lat {
			t.Errorf("%s: round trip %v shorter than the latency %v", l, d, lat)
		}
	}
	rtt(t, mustAddr(t, m, mesh.Client, "n2", "echo"), mesh.Client, "n2")
	stats := m.Stats()
	if d := stats[mesh.Link{From: mesh.Client, To: "n2", Service: "echo"}].Delayed; d != 0 {
		t.Errorf("client->n2 delayed %d chunks; only links into n1 are shaped", d)
	}
	if d := stats[mesh.Link{From: "n2", To: "n1", Service: "echo"}].Delayed; d == 0 {
		t.Errorf("n2->n1 delayed nothing")
	}

	// Jitter must not reorder: send many lines at once, read them in order.
	c, err := greet(mustAddr(t, m, mesh.Client, "n1", "echo"), mesh.Client, "n1")
	if err != nil {
		t.Fatal(err)
	}
	defer c.c.Close()
	const lines = 200
	go func() {
		for i := range lines {
			if c.send(strconv.Itoa(i)) != nil {
				return
			}
		}
	}()
	for i := range lines {
		if err := c.expect("echo "+strconv.Itoa(i), passWait); err != nil {
			t.Fatalf("line %d: %v", i, err)
		}
	}

	m.Heal()
	before := m.Stats()[mesh.Link{From: "n2", To: "n1", Service: "echo"}].Delayed
	t.Logf("healed round trip %v", rtt(t, mustAddr(t, m, "n2", "n1", "echo"), "n2", "n1"))
	if after := m.Stats()[mesh.Link{From: "n2", To: "n1", Service: "echo"}].Delayed; after != before {
		t.Errorf("heal left latency on: delayed %d -> %d", before, after)
	}
}

// startSink accepts connections, reads each to EOF and replies with the
// byte count.
func startSink(t *testing.T) string {
	return serveTCP(t, func(c net.Conn) {
		n, _ := io.Copy(io.Discard, c)
		fmt.Fprintf(c, "%d", n)
	})
}

// send writes n bytes, half-closes, and returns the count the sink read.
func sendAll(t *testing.T, addr string, n int) int {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Write(make([]byte, n)); err != nil {
		t.Fatal(err)
	}
	if err := c.(*net.TCPConn).CloseWrite(); err != nil {
		t.Fatal(err)
	}
	reply, err := io.ReadAll(c)
	if err != nil {
		t.Fatal(err)
	}
	got, err := strconv.Atoi(strings.TrimSpace(string(reply)))
	if err != nil {
		t.Fatalf("sink reply %q: %v", reply, err)
	}
	return got
}

// TestBandwidth checks the limit through the bucket's guarantee: n bytes
// cannot pass in less than (n - MaxBurst)/rate, a lower bound on time that
// a slow machine only makes easier to meet. The throttle counter proves the
// bucket made forwarding wait.
func TestBandwidth(t *testing.T) {
	m := mesh.New(mesh.Options{})
	t.Cleanup(func() { m.Close() })
	if err := m.Add("n1", "sink", startSink(t)); err != nil {
		t.Fatal(err)
	}
	const rate, n = 128 << 10, 192 << 10
	m.Shape([]string{"n1"}, mesh.Shaping{Bandwidth: rate})
	start := time.Now()
	got := sendAll(t, mustAddr(t, m, mesh.Client, "n1", "sink"), n)
	elapsed := time.Since(start)
	if got != n {
		t.Fatalf("sink read %d bytes, want %d", got, n)
	}
	floor := time.Duration(float64(n-mesh.MaxBurst) / rate * float64(time.Second))
	t.Logf("%d bytes at limit %d B/s: %v, %.0f B/s measured", n, rate, elapsed, float64(n)/elapsed.Seconds())
	if elapsed < floor {
		t.Errorf("%d bytes passed in %v, faster than the limit allows (%v)", n, elapsed, floor)
	}
	c := m.Stats()[mesh.Link{From: mesh.Client, To: "n1", Service: "sink"}]
	if c.ThrottledNanos == 0 || c.BytesForwarded != n {
		t.Errorf("counters %+v: want throttling and %d bytes forwarded", c, n)
	}
}

// TestLoss checks that Loss resets new connections at accept and old ones
// at their next chunk, each counted, and that a seeded partial loss resets
// exactly the connections it counts.
func TestLoss(t *testing.T) {
	m, _ := twoNodes(t)
	addr := mustAddr(t, m, mesh.Client, "n1", "echo")
	link := mesh.Link{From: mesh.Client, To: "n1", Service: "echo"}
	old, err := greet(addr, mesh.Client, "n1")
	if err != nil {
		t.Fatal(err)
	}
	defer old.c.Close()

	m.Shape([]string{"n1"}, mesh.Shaping{Loss: 1})
	if err := freshProbe(addr, "n1", "x", passWait); err == nil {
		t.Errorf("new connection survived loss 1")
	}
	if err := old.send("x"); err != nil {
		t.Fatal(err)
	}
	if err := old.expect("echo x", passWait); err == nil {
		t.Errorf("old connection survived loss 1")
	}
	eventually(t, "two connections lost", func() bool { return m.Stats()[link].ConnsLost == 2 })

	// Partial loss: with one probe at a time, the probes that fail are
	// exactly the connections the mesh says it reset.
	m.Shape([]string{"n1"}, mesh.Shaping{Loss: 0.3})
	before := m.Stats()[link].ConnsLost
	failed := 0
	for i := range 40 {
		if freshProbe(addr, "n1", "p"+strconv.Itoa(i), passWait) != nil {
			failed++
		}
	}
	lost := m.Stats()[link].ConnsLost - before
	t.Logf("loss 0.3: %d of 40 connections reset", failed)
	if int64(failed) != lost || failed == 0 || failed == 40 {
		t.Errorf("%d probes failed, %d connections counted lost; want equal and neither 0 nor 40", failed, lost)
	}

	m.Shape(nil, mesh.Shaping{})
	if err := freshProbe(addr, "n1", "y", passWait); err != nil {
		t.Errorf("zero shaping left loss on: %v", err)
	}
}

// TestRefused checks that a node that is down refuses through the mesh too.
func TestRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := ln.Addr().String()
	ln.Close()
	m := mesh.New(mesh.Options{})
	t.Cleanup(func() { m.Close() })
	if err := m.Add("n1", "echo", dead); err != nil {
		t.Fatal(err)
	}
	if err := freshProbe(mustAddr(t, m, mesh.Client, "n1", "echo"), "n1", "x", passWait); err == nil {
		t.Fatal("probe of a dead node passed")
	}
	eventually(t, "refusal counted", func() bool {
		return m.Stats()[mesh.Link{From: mesh.Client, To: "n1", Service: "echo"}].ConnsRefused == 1
	})
}

// TestErrors is a table of calls the mesh must refuse.
func TestErrors(t *testing.T) {
	m := mesh.New(mesh.Options{})
	if err := m.Add("n1", "echo", "127.0.0.1:1"); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		call func() error
	}{
		{"add unnamed node", func() error { return m.Add("", "echo", "127.0.0.1:1") }},
		{"add unnamed service", func() error { return m.Add("n2", "", "127.0.0.1:1") }},
		{"add client name", func() error { return m.Add(mesh.Client, "echo", "127.0.0.1:1") }},
		{"add bad address", func() error { return m.Add("n2", "echo", "nowhere") }},
		{"add twice", func() error { return m.Add("n1", "echo", "127.0.0.1:2") }},
		{"addr to itself", func() error { _, err := m.Addr("n1", "n1", "echo"); return err }},
		{"addr unnamed from", func() error { _, err := m.Addr("", "n1", "echo"); return err }},
		{"addr unknown service", func() error { _, err := m.Addr("n2", "n1", "raft"); return err }},
		{"addr unknown node", func() error { _, err := m.Addr("n1", "n9", "echo"); return err }},
		{"add after close", func() error { m.Close(); return m.Add("n3", "echo", "127.0.0.1:1") }},
		{"addr after close", func() error { _, err := m.Addr(mesh.Client, "n1", "echo"); return err }},
	}
	for _, tt := range tests {
		if err := tt.call(); err == nil {
			t.Errorf("%s: no error", tt.name)
		}
	}
	if err := m.Close(); err != nil {
		t.Errorf("second close: %v", err)
	}
}

// TestLazyLinks checks links from a name that is not a node, and nodes
// added after a partition, which must pick it up.
func TestLazyLinks(t *testing.T) {
	m, _ := twoNodes(t)
	if err := freshProbe(mustAddr(t, m, "tool", "n1", "echo"), "n1", "x", passWait); err != nil {
		t.Errorf("link from a non-node: %v", err)
	}
	m.Partition(map[string][]string{"n3": {"n1"}})
	s3 := startEcho(t, "n3")
	if err := m.Add("n3", "echo", s3.addr()); err != nil {
		t.Fatal(err)
	}
	if err := freshProbe(mustAddr(t, m, "n1", "n3", "echo"), "n3", "x", blockWait); err == nil {
		t.Errorf("n1->n3 passed; the partition was set before n3 joined")
	}
	if err := freshProbe(mustAddr(t, m, "n2", "n3", "echo"), "n3", "x", passWait); err != nil {
		t.Errorf("n2->n3: %v", err)
	}
	eventually(t, "held connection counted", func() bool {
		return m.Stats()[mesh.Link{From: "n1", To: "n3", Service: "echo"}].ConnsBlocked == 1
	})
}

// TestCloseLeavesNothing closes a mesh with connections in every state,
// held, delayed, throttled and idle, and checks that no mesh goroutine is
// left and the clients see their connections end.
func TestCloseLeavesNothing(t *testing.T) {
	m, _ := twoNodes(t)
	sinkAddr := startSink(t)
	if err := m.Add("n3", "sink", sinkAddr); err != nil {
		t.Fatal(err)
	}
	idle, err := greet(mustAddr(t, m, "n1", "n2", "echo"), "n1", "n2")
	if err != nil {
		t.Fatal(err)
	}
	m.Partition(map[string][]string{"n2": {"n1"}})
	held, err := dial(mustAddr(t, m, "n2", "n1", "echo"))
	if err != nil {
		t.Fatal(err)
	}
	m.Shape([]string{"n1"}, mesh.Shaping{Latency: time.Hour})
	delayed, err := dial(mustAddr(t, m, mesh.Client, "n1", "echo"))
	if err != nil {
		t.Fatal(err)
	}
	if err := delayed.send("slow"); err != nil {
		t.Fatal(err)
	}
	m.Shape([]string{"n3"}, mesh.Shaping{Bandwidth: 1})
	throttled, err := net.Dial("tcp", mustAddr(t, m, mesh.Client, "n3", "sink"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := throttled.Write(make([]byte, 4096)); err != nil {
		t.Fatal(err)
	}
	eventually(t, "every connection in its state", func() bool {
		s := m.Stats()
		return s[mesh.Link{From: "n2", To: "n1", Service: "echo"}].ConnsBlocked == 1 &&
			s[mesh.Link{From: mesh.Client, To: "n1", Service: "echo"}].Delayed == 1 &&
			s[mesh.Link{From: mesh.Client, To: "n3", Service: "sink"}].ThrottledNanos > 0
	})
	if err := m.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	// Close waits for its goroutines; one may still be returning from its
	// last deferred call when Wait wakes, so poll briefly.
	eventually(t, "no mesh goroutine left", func() bool { return len(meshGoroutines()) == 0 })
	for name, c := range map[string]*client{"idle": idle, "held": held, "delayed": delayed} {
		if !c.ended() {
			t.Errorf("%s connection still open after Close", name)
		}
		c.c.Close()
	}
	throttled.Close()
}
