package client_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"

	"github.com/faultline/faultline/client"
	"github.com/faultline/faultline/control"
	"github.com/faultline/faultline/examples/demostore"
	"github.com/faultline/faultline/history"
	"github.com/faultline/faultline/internal/testdaemon"
	"github.com/faultline/faultline/interp"
	starclient "github.com/faultline/faultline/star/client"
)

// demoCluster is a 3-node demo store run in this process on loopback.
type demoCluster struct {
	http map[string]string // node -> HTTP API address
}

// fixedNet is the Network of the cluster: every endpoint dials a node's
// HTTP API at its one address.
type fixedNet struct{ c *demoCluster }

func (f fixedNet) ListenAddr(node, service string, port int) (string, error) {
	return f.DialAddr(control.ClientEndpoint, node, service, port)
}

func (f fixedNet) DialAddr(_, to, service string, _ int) (string, error) {
	a, ok := f.c.http[to]
	if !ok || service != client.DemoKVService {
		return "", fmt.Errorf("no %s service on %q", service, to)
	}
	return a, nil
}

func startDemoCluster(tb testing.TB) (*demoCluster, *control.Pool) {
	tb.Helper()
	ids := []string{"n1", "n2", "n3"}
	raft := map[string]string{}
	c := &demoCluster{http: map[string]string{}}
	addrs := testdaemon.FreeAddrs(tb, 2*len(ids))
	for i, id := range ids {
		raft[id], c.http[id] = addrs[2*i], addrs[2*i+1]
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	tb.Cleanup(func() { cancel(); wg.Wait() })
	for _, id := range ids {
		args := []string{"--id", id, "--dir", tb.TempDir(), "--raft-listen", raft[id], "--http-listen", c.http[id], "--apply-timeout", "10s"}
		for _, p := range ids {
			if p != id {
				args = append(args, "--peer", p+"="+raft[p])
			}
		}
		if id == "n1" {
			args = append(args, "--bootstrap")
		}
		wg.Go(func() {
			if err := demostore.Main(ctx, args, io.Discard); err != nil && ctx.Err() == nil {
				tb.Errorf("node %s: %v", id, err)
			}
		})
	}
	var nodes []control.Node
	for _, id := range ids {
		nodes = append(nodes, control.Node{Name: id, Host: "127.0.0.1"})
	}
	pool, err := control.NewPool(nodes, control.LocalDialer())
	if err != nil {
		tb.Fatal(err)
	}
	pool.SetNetwork(fixedNet{c})
	// Ready when every node names the same leader.
	for {
		leaders := map[string]bool{}
		for _, id := range ids {
			leaders[demoLeader(c.http[id])] = true
		}
		if len(leaders) == 1 && !leaders[""] {
			return c, pool
		}
		if ctx.Err() != nil || tb.Failed() {
			tb.FailNow()
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func demoLeader(addr string) string {
	resp, err := http.Get("http://" + addr + "/status")
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	var st struct{ Leader string }
	_ = json.NewDecoder(resp.Body).Decode(&st)
	return st.Leader
}

// exampleClient loads examples/byo-http/kv.star, the cas-register client
// written in Starlark, with the names every script sees.
func exampleClient(tb testing.TB) *starclient.Starlark {
	tb.Helper()
	path := filepath.Join("..", "..", "examples", "byo-http", "kv.star")
	src, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	opts := &syntax.FileOptions{Set: true, While: true, TopLevelControl: true, Recursion: true}
	th := &starlark.Thread{Name: "load"}
	g, err := starlark.ExecFileOptions(opts, th, path, src, interp.Predeclared())
	if err != nil {
		tb.Fatal(err)
	}
	v, err := starlark.Call(th, g["kv_client"], nil, []starlark.Tuple{{starlark.String("timeout"), starlark.String("10s")}})
	if err != nil {
		tb.Fatal(err)
	}
	g.Freeze()
	c, _ := starclient.FromStarlark(v)
	s, ok := c.(*starclient.Starlark)
	if !ok {
		tb.Fatalf("kv_client() = %s, want a client.starlark value", v)
	}
	return s
}

// drive runs ops ops of a read/write/cas mix over 6 keys on workers
// workers (bound to the nodes in turn) and returns the wall time and how
// many completed each way.
func drive(tb testing.TB, sess client.Session, workers, ops int) (time.Duration, map[history.Type]int) {
	tb.Helper()
	nodes := []string{"n1", "n2", "n3"}
	counts := make([]map[history.Type]int, workers)
	var wg sync.WaitGroup
	start := time.Now()
	for w := range workers {
		wk, err := sess.Open(w, w, nodes[w%len(nodes)])
		if err != nil {
			tb.Fatal(err)
		}
		counts[w] = map[history.Type]int{}
		wg.Go(func() {
			defer wk.Close()
			for i := w; i < ops; i += workers {
				op := history.Op{Type: history.Invoke, Key: int64(i % 6), Process: w, Node: nodes[w%len(nodes)]}
				switch i % 3 {
				case 0:
					op.F = "read"
				case 1:
					op.F, op.Value = "write", int64(i%5)
				default:
					op.F, op.Value = "cas", []any{int64(i % 5), int64((i + 1) % 5)}
				}
				ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
				counts[w][wk.Invoke(ctx, op).Type]++
				cancel()
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	total := map[history.Type]int{}
	for _, c := range counts {
		for k, v := range c {
			total[k] += v
		}
	}
	return elapsed, total
}

// BenchmarkStarlarkVsDemoKV measures the Starlark client of
// examples/byo-http against client.demo_kv on one demo store cluster in
// the same run, alternating them so both see the same machine load, and
// reports both throughputs and their ratio (the goal is starlark/demo_kv
// ≥ 0.7). Each iteration is one round of both; -benchtime=10x gives ten.
func BenchmarkStarlarkVsDemoKV(b *testing.B) {
	const workers, ops = 16, 1000
	_, pool := startDemoCluster(b)
	net := pool.Network()
	demo, err := (&client.DemoKV{Timeout: 10 * time.Second}).StartServices(1, func(node, service string, port int) (string, bool) {
		a, err := net.DialAddr(control.ClientEndpoint, node, service, port)
		return a, err == nil
	})
	if err != nil {
		b.Fatal(err)
	}
	defer demo.Close()
	star, err := exampleClient(b).StartPool(context.Background(), 1, pool, io.Discard)
	if err != nil {
		b.Fatal(err)
	}
	defer star.Close()
	drive(b, demo, workers, 300) // warm both up: connections, leader known
	drive(b, star, workers, 300)

	var demoTime, starTime time.Duration
	type contender struct {
		name string
		sess client.Session
		sum  *time.Duration
	}
	round := []contender{{"demo_kv", demo, &demoTime}, {"starlark", star, &starTime}}
	b.ResetTimer()
	for b.Loop() {
		// Swap who goes first each round, so drift in the machine's load
		// and in the store (its log grows) falls on both alike.
		round[0], round[1] = round[1], round[0]
		for _, c := range round {
			d, counts := drive(b, c.sess, workers, ops)
			if counts[history.Info] > 0 || counts[history.OK] < ops/2 {
				b.Fatalf("%s: %v of %d ops; a healthy cluster should answer them", c.name, counts, ops)
			}
			*c.sum += d
		}
	}
	n := float64(b.N * ops)
	demoRate, starRate := n/demoTime.Seconds(), n/starTime.Seconds()
	b.ReportMetric(demoRate, "demo_kv-ops/s")
	b.ReportMetric(starRate, "starlark-ops/s")
	b.ReportMetric(starRate/demoRate, "ratio")
}

// TestExampleClientAgainstDemoStore runs examples/byo-http's client on a
// real demo store: a write through a follower (redirected to the leader)
// is read back, a cas from the wrong value fails, one from the right value
// succeeds, and an unknown operation fails without reaching the store.
func TestExampleClientAgainstDemoStore(t *testing.T) {
	c, pool := startDemoCluster(t)
	sess, err := exampleClient(t).StartPool(context.Background(), 1, pool, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	leader := demoLeader(c.http["n1"])
	follower := "n1"
	if leader == "n1" {
		follower = "n2"
	}
	w, err := sess.Open(0, 0, follower)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for _, step := range []struct {
		f         string
		value     any
		wantType  history.Type
		wantValue any
	}{
		{"read", nil, history.OK, nil},
		{"write", int64(3), history.OK, int64(3)},
		{"read", nil, history.OK, int64(3)},
		{"cas", []any{int64(1), int64(4)}, history.Fail, []any{int64(1), int64(4)}},
		{"cas", []any{int64(3), int64(4)}, history.OK, []any{int64(3), int64(4)}},
		{"read", nil, history.OK, int64(4)},
		{"append", int64(1), history.Fail, int64(1)},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		got := w.Invoke(ctx, history.Op{Type: history.Invoke, F: step.f, Key: int64(7), Value: step.value, Node: follower})
		cancel()
		if got.Type != step.wantType || !history.Equal(got.Value, step.wantValue) {
			t.Fatalf("%s %v via follower %s: %s %v (error %v), want %s %v", step.f, step.value, follower, got.Type, got.Value, got.Error, step.wantType, step.wantValue)
		}
	}
}
