package nemesis

import (
	"context"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/control"
	"github.com/faultline/faultline/history"
	"github.com/faultline/faultline/mesh"
)

// sinkServer accepts connections on loopback and reads them to the end, so
// bytes sent through a mesh link toward it are consumed or dropped there.
func sinkServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { _, _ = io.Copy(io.Discard, c); c.Close() }()
		}
	}()
	return ln.Addr().String()
}

// meshWorker is a Worker over three nodes whose links run through a real
// proxy mesh on loopback (local mode), each node serving a sink.
func meshWorker(t *testing.T) (*Worker, *mesh.Mesh) {
	t.Helper()
	pool := fakePool(t, func(node, label string, argv []string) (string, error) { return "", nil })
	m := mesh.New(mesh.Options{Seed: 1})
	t.Cleanup(func() { m.Close() })
	for _, n := range []string{"n1", "n2", "n3"} {
		if err := m.Add(n, "db", sinkServer(t)); err != nil {
			t.Fatal(err)
		}
	}
	pool.SetNetwork(m)
	w, err := New(Options{Pool: pool, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	return w, m
}

// send writes through the proxy of the link from -> to and waits until the
// mesh has counted the bytes (forwarded or dropped): the proxy works in
// its own goroutines, and the stop must see what the traffic met.
func send(t *testing.T, m *mesh.Mesh, from, to string) {
	t.Helper()
	addr, err := m.Addr(from, to, "db")
	if err != nil {
		t.Fatal(err)
	}
	id := mesh.Link{From: from, To: to, Service: "db"}
	before := m.Stats()[id]
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Write([]byte(strings.Repeat("x", 512))); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		now := m.Stats()[id]
		if now.BytesDropped > before.BytesDropped || now.ConnsBlocked > before.ConnsBlocked || now.BytesForwarded > before.BytesForwarded {
			return
		}
	}
	t.Fatalf("the mesh never counted the bytes sent on %s", id)
}

// run invokes a fault and its stop on w, with traffic from traffic()
// between, and returns the window the history makes of them.
func runWindow(t *testing.T, w *Worker, start, stop string, v any, traffic func()) Window {
	t.Helper()
	ctx := context.Background()
	var ops []history.Op
	step := func(f string, v any) {
		inv := history.Op{Process: history.NemesisProcess, Type: history.Invoke, F: f, Value: v, Time: int64(len(ops)) * int64(time.Second)}
		c := w.Invoke(ctx, inv)
		c.Process, c.F, c.Time = history.NemesisProcess, f, inv.Time+1
		if c.Type != history.OK {
			t.Fatalf("%s: %s %v", f, c.Type, c.Error)
		}
		ops = append(ops, inv, c)
	}
	step(start, v)
	traffic()
	step(stop, nil)
	ws := FaultWindows(ops)
	if len(ws) != 1 {
		t.Fatalf("windows %+v", ws)
	}
	return ws[0]
}

// A mesh fault lands by its effect: with the system's traffic on the cut
// or shaped links, that traffic proves it; when the system sent nothing
// across them during the hold, faultline's own probe through those links
// does, and the reason says which traffic it was.
func TestMeshLandsByEffect(t *testing.T) {
	cut := map[string]any{"n1": []any{"n2"}} // n1 drops what n2 sends
	tests := []struct {
		name        string
		start, stop string
		value       any
		traffic     func(t *testing.T, m *mesh.Mesh)
		proven      bool
		reason      string
	}{
		{"partition, idle cut links", "start-partition", "stop-partition", cut,
			func(t *testing.T, m *mesh.Mesh) { send(t, m, "n3", "n1") }, // traffic, but not on the cut
			true, "(the system's own traffic: 0; faultline's probe through the faulted links: 2)"},
		{"partition, traffic on the cut", "start-partition", "stop-partition", cut,
			func(t *testing.T, m *mesh.Mesh) { send(t, m, "n2", "n1") },
			true, "dropped on the cut links, held 2s, by the system's own traffic; still in place at the heal"},
		{"delay, no traffic", "start-delay", "stop-delay", map[string]any{"nodes": []any{"n1"}, "delay": "5ms"},
			func(*testing.T, *mesh.Mesh) {}, true, "(the system's own traffic: 0; faultline's probe through the faulted links: 1)"},
		{"bandwidth, no traffic", "start-bandwidth", "stop-bandwidth", map[string]any{"nodes": []any{"n1"}, "rate": "1mbit"},
			func(*testing.T, *mesh.Mesh) {}, true, "packets or time throttled, held 2s (the system's own traffic: 0; faultline's probe through the faulted links: "},
		{"loss, no traffic", "start-loss", "stop-loss", map[string]any{"nodes": []any{"n1"}, "probability": 0.05},
			func(*testing.T, *mesh.Mesh) {}, true, "(the system's own traffic: 0; faultline's probe through the faulted links: 1)"},
		{"delay, traffic into the victim", "start-delay", "stop-delay", map[string]any{"nodes": []any{"n1"}, "delay": "5ms"},
			func(t *testing.T, m *mesh.Mesh) { send(t, m, "n2", "n1") }, true, "packets delayed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, m := meshWorker(t)
			win := runWindow(t, w, tt.start, tt.stop, tt.value, func() { tt.traffic(t, m) })
			if !win.Landed {
				t.Fatalf("the table did not read back after inject: %+v", win)
			}
			if win.Proven != tt.proven || !strings.Contains(win.Reason, tt.reason) {
				t.Errorf("proven %v (%s), want %v (%q)", win.Proven, win.Reason, tt.proven, tt.reason)
			}
			if win.Held == nil || !*win.Held {
				t.Errorf("held not read back: %+v", win)
			}
		})
	}
}

// The final heal reads back a fault it stops like the fault's own stop
// does, so a partition closed by the heal is judged by its effect too.
func TestHealReadsBackEffect(t *testing.T) {
	w, m := meshWorker(t)
	ctx := context.Background()
	inv := history.Op{Process: history.NemesisProcess, Type: history.Invoke, F: "start-partition", Value: map[string]any{"n1": []any{"n2"}}}
	c := w.Invoke(ctx, inv)
	c.Process, c.F, c.Time = history.NemesisProcess, inv.F, 1
	send(t, m, "n2", "n1")
	hinv := history.Op{Process: history.NemesisProcess, Type: history.Invoke, F: "heal", Time: 2}
	h := w.Invoke(ctx, hinv)
	h.Process, h.F, h.Time = history.NemesisProcess, "heal", 3
	ws := FaultWindows([]history.Op{inv, c, hinv, h})
	if len(ws) != 1 || !ws[0].Proven || ws[0].Effect == nil || *ws[0].Effect == 0 {
		t.Fatalf("a partition the heal stopped, with traffic on its cut: %+v (heal %+v)", ws, h.Extra)
	}
}

// Refused separates business outcomes from signs of a fault.
func TestRefused(t *testing.T) {
	tests := []struct {
		op   history.Op
		want bool
	}{
		{history.Op{Type: history.Fail}, true},                                         // register/etcd cas mismatch
		{history.Op{Type: history.Fail, Error: "cas: value did not match"}, true},      // demo_kv
		{history.Op{Type: history.Fail, Error: "insufficient-funds"}, true},            // postgres transfer
		{history.Op{Type: history.Fail, Error: "HTTP 503: not leader"}, false},         // refusal by the system
		{history.Op{Type: history.Fail, Error: "dial tcp: connection refused"}, false}, // the fault
		{history.Op{Type: history.Info, Error: "timeout"}, false},
		{history.Op{Type: history.OK}, false},
	}
	for _, tt := range tests {
		if got := Refused(tt.op); got != tt.want {
			t.Errorf("Refused(%s %v) = %v, want %v", tt.op.Type, tt.op.Error, got, tt.want)
		}
	}
}

// Window judgement from what the closing op read back, for real-node and
// mesh faults alike.
func TestWindowJudge(t *testing.T) {
	yes, no := true, false
	n := func(v int64) *int64 { return &v }
	tests := []struct {
		name   string
		w      Window
		proven bool
		reason string
	}{
		{"not in effect after inject", Window{Fault: "start-partition", End: 5, Held: &yes, Effect: n(3)}, false, "did not show the fault in effect"},
		{"reverted before the heal", Window{Fault: "start-partition", Landed: true, End: 5, Held: &no, Effect: n(3)}, false, "gone before the hold ended"},
		{"never stopped", Window{Fault: "start-loss", Landed: true, End: -1}, false, "never read back"},
		{"stop read no counters", Window{Fault: "start-loss", Landed: true, End: 5, Held: &yes}, false, "no effect counters"},
		{"held 1ms, nothing hit it", Window{Fault: "start-partition", Landed: true, Start: 0, End: int64(time.Millisecond), Held: &yes, Effect: n(0)}, false, "held 1ms: no traffic crossed the fault"},
		{"traffic hit the cut", Window{Fault: "start-partition", Landed: true, End: 5, Held: &yes, Effect: n(9)}, true, "9 packets"},
		{"bandwidth never throttled", Window{Fault: "start-bandwidth", Landed: true, End: 5, Held: &yes, Effect: n(0)}, false, "0 packets or time throttled"},
		{"kill read back in /proc", Window{Fault: "kill", Landed: true, End: -1}, true, "read back on the victims"},
		{"pause resumed behind our back", Window{Fault: "pause", Landed: true, End: 5, Held: &no}, false, "gone before the hold ended"},
	}
	for _, tt := range tests {
		w := tt.w
		w.judge()
		if w.Proven != tt.proven || !strings.Contains(w.Reason, tt.reason) {
			t.Errorf("%s: proven %v (%s), want %v (%q)", tt.name, w.Proven, w.Reason, tt.proven, tt.reason)
		}
	}
}

var _ control.Network = (*mesh.Mesh)(nil)
