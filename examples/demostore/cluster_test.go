package demostore

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/client"
	"github.com/faultline/faultline/history"
	"github.com/faultline/faultline/internal/testdaemon"
)

// waitDeadline bounds every "eventually" in these tests; conditions are
// polled, never timed.
const waitDeadline = 20 * time.Second

// testNode is one in-process node: Main in a goroutine.
type testNode struct {
	id       string
	args     []string
	httpAddr string
	cancel   context.CancelFunc
	done     chan error
	stderr   *testdaemon.SyncBuffer
}

// testCluster runs n nodes on 127.0.0.1 with peers dialling each other
// directly; n1 bootstraps.
type testCluster struct {
	t     testing.TB
	ids   []string
	nodes map[string]*testNode
	http  *http.Client
}

func newTestCluster(t testing.TB, n int, extra ...string) *testCluster {
	t.Helper()
	c := &testCluster{t: t, nodes: map[string]*testNode{}, http: &http.Client{Timeout: 5 * time.Second}}
	raftAddr := map[string]string{}
	addrs := testdaemon.FreeAddrs(t, 2*n) // raft then HTTP, all distinct
	for i := 1; i <= n; i++ {
		id := fmt.Sprintf("n%d", i)
		c.ids = append(c.ids, id)
		raftAddr[id] = addrs[i-1]
	}
	for i, id := range c.ids {
		nd := &testNode{id: id, httpAddr: addrs[n+i]}
		// A generous apply timeout: these tests expect definite answers even
		// on a loaded machine; 504 handling is the client's tests' business.
		nd.args = []string{"--id", id, "--dir", t.TempDir(), "--raft-listen", raftAddr[id], "--http-listen", nd.httpAddr,
			"--apply-timeout", "10s"}
		for _, peer := range c.ids {
			if peer != id {
				nd.args = append(nd.args, "--peer", peer+"="+raftAddr[peer])
			}
		}
		if id == "n1" {
			nd.args = append(nd.args, "--bootstrap")
		}
		nd.args = append(nd.args, extra...)
		c.nodes[id] = nd
	}
	for _, id := range c.ids {
		c.start(id)
	}
	t.Cleanup(func() {
		for _, id := range c.ids {
			if c.nodes[id].cancel != nil {
				c.stop(id)
			}
		}
		if t.Failed() {
			for _, id := range c.ids {
				t.Logf("stderr of %s:\n%s", id, c.nodes[id].stderr)
			}
		}
		c.http.CloseIdleConnections()
	})
	return c
}

// start runs node id's Main with a fresh stderr.
func (c *testCluster) start(id string) {
	nd := c.nodes[id]
	ctx, cancel := context.WithCancel(context.Background())
	nd.cancel, nd.done, nd.stderr = cancel, make(chan error, 1), &testdaemon.SyncBuffer{}
	go func() { nd.done <- Main(ctx, nd.args, nd.stderr) }()
}

// stop cancels node id, as a kill would, and waits for Main to return.
func (c *testCluster) stop(id string) {
	c.t.Helper()
	nd := c.nodes[id]
	nd.cancel()
	nd.cancel = nil
	if err := <-nd.done; err != nil {
		c.t.Errorf("node %s: %v\nstderr:\n%s", id, err, nd.stderr)
	}
}

func (c *testCluster) running() []string {
	var ids []string
	for _, id := range c.ids {
		if c.nodes[id].cancel != nil {
			ids = append(ids, id)
		}
	}
	return ids
}

// call sends one API request to node id; status 0 means no answer.
func (c *testCluster) call(id, method, path, body string) (int, map[string]any) {
	req, err := http.NewRequest(method, "http://"+c.nodes[id].httpAddr+path, strings.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, nil
	}
	defer resp.Body.Close()
	var m map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
		c.t.Fatalf("%s %s on %s: HTTP %d with undecodable body: %v", method, path, id, resp.StatusCode, err)
	}
	return resp.StatusCode, m
}

// mustCall is call that fails the test unless the status is want.
func (c *testCluster) mustCall(id, method, path, body string, want int) map[string]any {
	c.t.Helper()
	status, m := c.call(id, method, path, body)
	if status != want {
		c.t.Fatalf("%s %s %s on %s: HTTP %d %v, want %d", method, path, body, id, status, m, want)
	}
	return m
}

// eventually polls cond until it holds, failing the test at the deadline.
func (c *testCluster) eventually(what string, cond func() bool) {
	c.t.Helper()
	deadline := time.Now().Add(waitDeadline)
	for !cond() {
		if time.Now().After(deadline) {
			c.t.Fatalf("%s: not within %s", what, waitDeadline)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// leader waits until one running node leads and every other running node
// names it, and returns it.
func (c *testCluster) leader() string {
	c.t.Helper()
	var leader string
	c.eventually("a leader every running node agrees on", func() bool {
		leader = ""
		views := map[string]string{}
		for _, id := range c.running() {
			status, m := c.call(id, http.MethodGet, "/status", "")
			if status != http.StatusOK {
				return false
			}
			if m["state"] == "leader" {
				leader = id
			}
			views[id], _ = m["leader"].(string)
		}
		for _, l := range views {
			if l != leader {
				return false
			}
		}
		return leader != ""
	})
	return leader
}

// followerOf returns a running node other than leader.
func (c *testCluster) followerOf(leader string) string {
	for _, id := range c.running() {
		if id != leader {
			return id
		}
	}
	c.t.Fatal("no follower running")
	return ""
}

// session is a demo_kv client session resolving nodes to their HTTP ports.
func (c *testCluster) session() client.Session {
	c.t.Helper()
	sess, err := (&client.DemoKV{Timeout: 15 * time.Second}).StartServices(1, func(node, service string, _ int) (string, bool) {
		nd, ok := c.nodes[node]
		if !ok || service != client.DemoKVService {
			return "", false
		}
		return nd.httpAddr, true
	})
	if err != nil {
		c.t.Fatal(err)
	}
	c.t.Cleanup(func() { _ = sess.Close() })
	return sess
}

// invoke runs one op through a worker bound to node.
func (c *testCluster) invoke(sess client.Session, node, f string, key, value any) history.Op {
	c.t.Helper()
	w, err := sess.Open(0, 0, node)
	if err != nil {
		c.t.Fatal(err)
	}
	defer w.Close()
	return w.Invoke(context.Background(), history.Op{Type: history.Invoke, F: f, Key: key, Value: value})
}

func TestClusterHTTPAPI(t *testing.T) {
	c := newTestCluster(t, 3)
	l := c.leader() // so n1 has bootstrapped
	if !strings.Contains(c.nodes["n1"].stderr.String(), "bootstrapping cluster n1,n2,n3") {
		t.Errorf("n1 did not report bootstrapping; stderr:\n%s", c.nodes["n1"].stderr)
	}
	steps := []struct {
		method, path, body string
		status             int
		want               map[string]any
	}{
		{"GET", "/kv/a", "", 200, map[string]any{"value": nil}},
		{"POST", "/kv/a/cas", `{"from":0,"to":1}`, 409, map[string]any{"value": nil}},
		{"PUT", "/kv/a", `{"value":1}`, 200, map[string]any{"value": 1.0}},
		{"GET", "/kv/a", "", 200, map[string]any{"value": 1.0}},
		{"POST", "/kv/a/cas", `{"from":1,"to":2}`, 200, map[string]any{"value": 2.0}},
		{"POST", "/kv/a/cas", `{"from":1,"to":3}`, 409, map[string]any{"value": 2.0}},
		{"GET", "/kv/a", "", 200, map[string]any{"value": 2.0}},
		{"GET", "/kv/b", "", 200, map[string]any{"value": nil}},
		{"PUT", "/kv/a", `{"value":"x"}`, 400, nil},
		{"PUT", "/kv/a", `{}`, 400, nil},
		{"POST", "/kv/a/cas", `{"from":1}`, 400, nil},
	}
	for _, s := range steps {
		got := c.mustCall(l, s.method, s.path, s.body, s.status)
		for k, v := range s.want {
			if got[k] != v {
				t.Errorf("%s %s %s: %s = %v, want %v", s.method, s.path, s.body, k, got[k], v)
			}
		}
	}

	f := c.followerOf(l)
	for _, req := range [][3]string{{"GET", "/kv/a", ""}, {"PUT", "/kv/a", `{"value":9}`}, {"POST", "/kv/a/cas", `{"from":2,"to":9}`}} {
		got := c.mustCall(f, req[0], req[1], req[2], http.StatusServiceUnavailable)
		if got["error"] != "not leader" || got["leader"] != l {
			t.Errorf("follower %s on %s %s: %v, want not leader with hint %s", f, req[0], req[1], got, l)
		}
	}
	c.mustCall(l, "GET", "/kv/a", "", 200) // the refused write did nothing
	st := c.mustCall(f, "GET", "/status", "", 200)
	if st["id"] != f || st["state"] != "follower" || st["leader"] != l || st["applied_index"].(float64) < 1 {
		t.Errorf("follower status %v", st)
	}
}

// The Go client works on any node: a follower's refusal sends it to the leader.
func TestClusterClient(t *testing.T) {
	c := newTestCluster(t, 3)
	l := c.leader()
	sess := c.session()
	for _, node := range []string{l, c.followerOf(l)} {
		steps := []struct {
			f        string
			value    any
			wantType history.Type
			wantVal  any
		}{
			{"write", int64(10), history.OK, int64(10)},
			{"read", nil, history.OK, int64(10)},
			{"cas", []any{int64(10), int64(11)}, history.OK, []any{int64(10), int64(11)}},
			{"cas", []any{int64(10), int64(12)}, history.Fail, []any{int64(10), int64(12)}},
			{"read", nil, history.OK, int64(11)},
		}
		for i, s := range steps {
			got := c.invoke(sess, node, s.f, "k-"+node, s.value)
			if got.Type != s.wantType || !history.Equal(got.Value, s.wantVal) {
				t.Fatalf("via %s step %d %s: got %s %v (error %q), want %s %v", node, i, s.f, got.Type, got.Value, got.Error, s.wantType, s.wantVal)
			}
		}
	}
}

// Killing the leader elects another, and what was acknowledged survives.
func TestClusterLeaderFailover(t *testing.T) {
	c := newTestCluster(t, 3)
	old := c.leader()
	sess := c.session()
	if got := c.invoke(sess, old, "write", nil, int64(5)); got.Type != history.OK {
		t.Fatalf("write: %s %q", got.Type, got.Error)
	}
	c.stop(old)
	l := c.leader()
	if l == old {
		t.Fatalf("stopped node %s still leads", old)
	}
	if got := c.invoke(sess, c.followerOf(l), "read", nil, nil); got.Type != history.OK || !history.Equal(got.Value, int64(5)) {
		t.Fatalf("read after failover: %s %v %q, want ok 5", got.Type, got.Value, got.Error)
	}
	if got := c.invoke(sess, l, "cas", nil, []any{int64(5), int64(6)}); got.Type != history.OK {
		t.Fatalf("cas on the new leader: %s %q", got.Type, got.Error)
	}
}

// A whole cluster restarted from its data directories keeps its data, and
// n1 does not bootstrap a second time.
func TestClusterRestartFromDisk(t *testing.T) {
	c := newTestCluster(t, 3)
	l := c.leader()
	sess := c.session()
	if got := c.invoke(sess, l, "write", "durable", int64(7)); got.Type != history.OK {
		t.Fatalf("write: %s %q", got.Type, got.Error)
	}
	for _, id := range c.ids {
		c.stop(id)
	}
	for _, id := range c.ids {
		c.start(id)
	}
	l = c.leader()
	if got := c.invoke(sess, l, "read", "durable", nil); got.Type != history.OK || !history.Equal(got.Value, int64(7)) {
		t.Fatalf("read after restart: %s %v %q, want ok 7", got.Type, got.Value, got.Error)
	}
	if s := c.nodes["n1"].stderr.String(); strings.Contains(s, "bootstrapping") {
		t.Errorf("n1 bootstrapped again on restart; stderr:\n%s", s)
	}
}

// With stale-reads a follower answers reads from its own state, even when
// no leader exists at all.
func TestBugStaleReads(t *testing.T) {
	c := newTestCluster(t, 3, "--bug", bugStaleReads)
	l := c.leader()
	c.mustCall(l, "PUT", "/kv/s", `{"value":3}`, 200)
	f := c.followerOf(l)
	c.eventually("follower "+f+" has applied the write", func() bool {
		_, m := c.call(f, "GET", "/kv/s", "")
		return m["value"] == 3.0
	})
	for _, id := range c.running() {
		if id != f {
			c.stop(id)
		}
	}
	got := c.mustCall(f, "GET", "/kv/s", "", http.StatusOK)
	if got["value"] != 3.0 {
		t.Errorf("lone follower read %v, want 3 from its local state", got)
	}
	st := c.mustCall(f, "GET", "/status", "", http.StatusOK)
	if st["state"] == "leader" {
		t.Fatalf("a lone node of three became leader: %v", st)
	}
}

// With unsafe-cas a cas still answers as a cas one request at a time; the
// bug shows only under concurrency, which the history checker catches.
func TestBugUnsafeCASSequential(t *testing.T) {
	c := newTestCluster(t, 3, "--bug", bugUnsafeCAS)
	l := c.leader()
	c.mustCall(l, "PUT", "/kv/u", `{"value":1}`, 200)
	c.mustCall(l, "POST", "/kv/u/cas", `{"from":1,"to":2}`, 200)
	c.mustCall(l, "POST", "/kv/u/cas", `{"from":1,"to":3}`, 409)
	c.mustCall(l, "POST", "/kv/nokey/cas", `{"from":0,"to":3}`, 409)
	if got := c.mustCall(l, "GET", "/kv/u", "", 200); got["value"] != 2.0 {
		t.Errorf("read %v, want 2", got)
	}
	c.mustCall(c.followerOf(l), "POST", "/kv/u/cas", `{"from":2,"to":3}`, http.StatusServiceUnavailable)
}

func TestMainRejectsBadFlags(t *testing.T) {
	var stderr bytes.Buffer
	err := Main(context.Background(), []string{"--id", "n1", "--dir", t.TempDir(), "--raft-listen", "127.0.0.1:0",
		"--http-listen", "127.0.0.1:0", "--bug", "nope"}, &stderr)
	if err == nil || !strings.Contains(err.Error(), "known: stale-reads, unsafe-cas") {
		t.Fatalf("err = %v, want one listing the known bugs", err)
	}
}

// A listen failure releases the storage already opened: a second start on
// the same directory succeeds at once.
func TestMainStartFailureReleasesStore(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	dir := t.TempDir()
	args := func(raftAddr, httpAddr string) []string {
		return []string{"--id", "n1", "--dir", dir, "--raft-listen", raftAddr, "--http-listen", httpAddr, "--bootstrap"}
	}
	if err := Main(context.Background(), args(testdaemon.FreeAddrs(t, 1)[0], busy.Addr().String()), &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "http listen") {
		t.Fatalf("err = %v, want an http listen error", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // start, then stop at once
	addrs := testdaemon.FreeAddrs(t, 2)
	if err := Main(ctx, args(addrs[0], addrs[1]), &bytes.Buffer{}); err != nil {
		t.Fatalf("restart on the same dir: %v", err)
	}
}

// BenchmarkClusterOps measures one client op through raft on a 3-node
// loopback cluster: a write and a linearizable read each commit a log entry.
func BenchmarkClusterOps(b *testing.B) {
	c := newTestCluster(b, 3)
	l := c.leader()
	sess := c.session()
	w, err := sess.Open(0, 0, l)
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	for _, f := range []string{"write", "read"} {
		b.Run(f, func(b *testing.B) {
			op := history.Op{Type: history.Invoke, F: f, Key: "bench"}
			if f == "write" {
				op.Value = int64(1)
			}
			b.ReportAllocs()
			for b.Loop() {
				if got := w.Invoke(context.Background(), op); got.Type != history.OK {
					b.Fatalf("%s: %s %q", f, got.Type, got.Error)
				}
			}
		})
	}
}
