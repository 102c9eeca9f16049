package nemesis

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/faultline/faultline/control"
	"github.com/faultline/faultline/history"
)

// fakeRemote answers each script with what reply returns for its label, so
// the Worker's judgement can be tested without nodes.
type fakeRemote struct {
	node  string
	reply func(node, label string, argv []string) (string, error)
	mu    sync.Mutex
	seen  []string
}

func (f *fakeRemote) Run(_ context.Context, c control.Cmd) (control.Result, error) {
	f.mu.Lock()
	f.seen = append(f.seen, c.Label)
	f.mu.Unlock()
	out, err := f.reply(f.node, c.Label, c.Argv)
	return control.Result{Stdout: []byte(out)}, err
}
func (f *fakeRemote) Upload(context.Context, string, string) error   { return nil }
func (f *fakeRemote) Download(context.Context, string, string) error { return nil }
func (f *fakeRemote) Close() error                                   { return nil }
func (f *fakeRemote) Node() string                                   { return f.node }

func fakePool(t *testing.T, reply func(node, label string, argv []string) (string, error)) *control.Pool {
	t.Helper()
	var nodes []control.Node
	for i := 1; i <= 3; i++ {
		nodes = append(nodes, control.Node{Name: fmt.Sprintf("n%d", i), Host: fmt.Sprintf("10.0.0.%d", i)})
	}
	p, err := control.NewPool(nodes, func(_ context.Context, n control.Node) (control.Remote, error) {
		return &fakeRemote{node: n.Name, reply: reply}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// chainOut renders what readScript prints for a chain dropping ips.
func chainOut(jumped bool, ips ...string) string {
	j := "0"
	if jumped {
		j = "1"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s\nChain %s (1 references)\n    pkts      bytes target     prot opt in     out     source               destination\n", j, PartitionChain)
	for _, ip := range ips {
		fmt.Fprintf(&b, "       5      300 DROP       all  --  *      *       %s             0.0.0.0/0\n", ip)
	}
	return b.String()
}

func TestWorkerJudgesReadBack(t *testing.T) {
	tests := []struct {
		name       string
		f          string
		value      any
		reply      func(node, label string, argv []string) (string, error)
		wantType   history.Type
		wantLanded bool
	}{
		{"partition read back", "start-partition", map[string]any{"n1": []any{"n2"}},
			func(_, label string, _ []string) (string, error) {
				if strings.HasPrefix(label, "partition") {
					return chainOut(true, "10.0.0.2"), nil
				}
				return "10.0.0.254\n", nil
			}, history.OK, true},
		{"rule missing on read back", "start-partition", map[string]any{"n1": []any{"n2"}},
			func(_, label string, _ []string) (string, error) {
				if strings.HasPrefix(label, "partition") {
					return chainOut(true), nil
				}
				return "10.0.0.254\n", nil
			}, history.OK, false},
		{"jump missing on read back", "start-partition", map[string]any{"n1": []any{"n2"}},
			func(_, label string, _ []string) (string, error) {
				if strings.HasPrefix(label, "partition") {
					return chainOut(false, "10.0.0.2"), nil
				}
				return "", nil
			}, history.OK, false},
		{"injector failed", "start-partition", "one",
			func(_, label string, _ []string) (string, error) {
				if strings.HasPrefix(label, "partition") {
					return "", fmt.Errorf("iptables: boom")
				}
				return "", nil
			}, history.Info, false},
		{"kill read back gone", "kill", map[string]any{"nodes": "all", "pattern": "db"},
			func(string, string, []string) (string, error) { return "12 gone\n13 Z\n", nil }, history.OK, true},
		{"kill survivor", "kill", map[string]any{"nodes": "all", "pattern": "db"},
			func(string, string, []string) (string, error) { return "12 gone\n13 S\n", nil }, history.OK, false},
		{"pause read back T", "pause", map[string]any{"nodes": "one", "pattern": "db"},
			func(string, string, []string) (string, error) { return "12 T\n", nil }, history.OK, true},
		{"pause matched nothing", "pause", map[string]any{"nodes": "one", "pattern": "db"},
			func(string, string, []string) (string, error) { return "", nil }, history.OK, false},
		{"bad pause spec", "pause", map[string]any{"nodes": "one"}, nil, history.Fail, false},
		{"bad node spec", "kill", map[string]any{"nodes": "n9", "pattern": "db"}, nil, history.Fail, false},
		{"stop without start", "stop-partition", nil, nil, history.Fail, false},
		{"unknown fault", "frobnicate", nil, nil, history.Fail, false},
		{"loss out of range", "start-loss", map[string]any{"nodes": "all", "probability": 2.0}, nil, history.Fail, false},
		{"fill relative path", "fill-disk", map[string]any{"nodes": "all", "path": "x", "size": "1M"}, nil, history.Fail, false},
		{"delay without netem", "start-delay", map[string]any{"nodes": "all", "delay": "5ms"},
			func(string, string, []string) (string, error) { return "netem no\nboot_id b\n", nil }, history.Fail, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reply := tt.reply
			if reply == nil {
				reply = func(string, string, []string) (string, error) { return "", fmt.Errorf("no node access expected") }
			}
			w, err := New(Options{Pool: fakePool(t, reply)})
			if err != nil {
				t.Fatal(err)
			}
			c := w.Invoke(context.Background(), history.Op{Type: history.Invoke, F: tt.f, Value: tt.value})
			if c.Type != tt.wantType || c.Extra["landed"] != tt.wantLanded {
				t.Errorf("got %s landed=%v (%v), want %s landed=%v", c.Type, c.Extra["landed"], c.Error, tt.wantType, tt.wantLanded)
			}
		})
	}
}

// A second start while a fault is active is refused: its rules would
// replace the first's on some nodes and strand them on others.
func TestWorkerRefusesOverlappingStart(t *testing.T) {
	reply := func(_, label string, _ []string) (string, error) {
		if strings.HasPrefix(label, "partition") {
			return chainOut(true, "10.0.0.1", "10.0.0.2", "10.0.0.3"), nil
		}
		return "", nil
	}
	w, err := New(Options{Pool: fakePool(t, reply)})
	if err != nil {
		t.Fatal(err)
	}
	if c := w.Invoke(context.Background(), history.Op{F: "start-partition", Value: "one"}); c.Type != history.OK {
		t.Fatalf("first start: %+v", c)
	}
	if c := w.Invoke(context.Background(), history.Op{F: "start-partition", Value: "one"}); c.Type != history.Fail {
		t.Fatalf("second start: %+v, want fail", c)
	}
}

func TestNewNeedsPool(t *testing.T) {
	if _, err := New(Options{}); err == nil || !strings.Contains(err.Error(), "--nodes") {
		t.Errorf("New without a pool: %v, want an error naming --nodes", err)
	}
}

func BenchmarkEvaluate(b *testing.B) {
	ops := make([]history.Op, 0, 100_000)
	for i := range 100_000 {
		switch i % 1000 {
		case 0:
			ops = append(ops, history.Op{Process: history.NemesisProcess, Type: history.OK, F: "start-partition", Extra: map[string]any{"landed": true}})
		case 500:
			ops = append(ops, history.Op{Process: history.NemesisProcess, Type: history.OK, F: "stop-partition",
				Extra: map[string]any{"evidence": map[string]any{"n1": map[string]any{"drops": int64(3)}}}})
		default:
			ops = append(ops, history.Op{Process: i % 10, Type: history.Type([]history.Type{history.OK, history.Fail}[i%2])})
		}
	}
	decls := []*Decl{{Kind: "landed"}, {Kind: "iptables_drops", Min: 1}, {Kind: "op_errors", Min: 1, DuringFault: true}}
	b.ReportAllocs()
	for b.Loop() {
		Evaluate(decls, ops)
	}
}

func BenchmarkParseChain(b *testing.B) {
	data, err := os.ReadFile("testdata/chain.txt")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseChain(string(data)); err != nil {
			b.Fatal(err)
		}
	}
}

// TestAwaitReady: a restarted process's ready command is run until it
// succeeds, and the evidence says whether and after how long.
func TestAwaitReady(t *testing.T) {
	for _, tt := range []struct {
		fails int           // ready fails this many times first
		limit time.Duration // how long it may take
		want  string
	}{
		{0, time.Minute, "ready after"},
		{2, time.Minute, "ready after"},
		{1, 0, "not ready after"},
	} {
		tries := 0
		r := &fakeRemote{node: "n1", reply: func(_, label string, _ []string) (string, error) {
			if tries++; tries <= tt.fails {
				return "", &control.ExitError{Node: "n1", Cmd: label, Exit: 1}
			}
			return "", nil
		}}
		got := awaitReady(context.Background(), r, []string{"true"}, tt.limit)
		if !strings.HasPrefix(got, tt.want) {
			t.Errorf("%d failures within %s: %q, want %s…", tt.fails, tt.limit, got, tt.want)
		}
	}
}

// TestRoundTrips: each victim's pings to the controller give the median
// round trip; a delay counts as landed only when it shows in them.
func TestRoundTrips(t *testing.T) {
	pings := map[string]string{"n1": "0.31\n0.29\n0.35\n", "n2": "10.4\n10.2\n10.9\n"}
	pool := fakePool(t, func(node, label string, _ []string) (string, error) {
		switch label {
		case "find controller address":
			return "10.0.0.254\n", nil
		case "ping the controller":
			return pings[node], nil
		}
		return "", nil
	})
	w, err := New(Options{Pool: pool})
	if err != nil {
		t.Fatal(err)
	}
	got := w.roundTrips(context.Background(), []string{"n1", "n2", "n3"})
	if got["n1"].String() != "310µs" || got["n2"].String() != "10.4ms" || got["n3"].err == "" {
		t.Errorf("round trips %v, want 310µs, 10.4ms and none for n3", got)
	}
	for _, tt := range []struct {
		before, during rtt
		by             time.Duration
		want           bool
	}{
		{got["n1"], got["n2"], 5 * time.Millisecond, true},
		{got["n1"], got["n2"], 20 * time.Millisecond, false},
		{got["n1"], got["n1"], time.Millisecond, false},
		{got["n3"], got["n2"], time.Millisecond, false},
	} {
		if r := tt.during.raised(tt.before, tt.by); r != tt.want {
			t.Errorf("%s -> %s raised by %s: %v, want %v", tt.before, tt.during, tt.by, r, tt.want)
		}
	}
}
