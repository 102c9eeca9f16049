package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/faultline/faultline/history"
)

// fakeDemo stands in for one node of examples/demostore: a leader serves
// the API from a map; a follower answers 503 naming leader.
type fakeDemo struct {
	mu       sync.Mutex
	kv       map[string]int64
	follower bool
	leader   string        // hint a follower gives
	status   int           // when set, every request gets this status
	hang     chan struct{} // when set, requests block until it closes
	requests atomic.Int64
}

func (f *fakeDemo) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.requests.Add(1)
	if f.hang != nil {
		select {
		case <-f.hang:
		case <-r.Context().Done():
		}
		return
	}
	reply := func(status int, v any) {
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(v)
	}
	switch {
	case f.status != 0:
		reply(f.status, map[string]string{"error": "indeterminate: fake"})
		return
	case f.follower:
		reply(http.StatusServiceUnavailable, map[string]string{"error": "not leader", "leader": f.leader})
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	key, cas := strings.CutSuffix(strings.TrimPrefix(r.URL.Path, "/kv/"), "/cas")
	cur, present := f.kv[key]
	value := func(v int64, ok bool) map[string]any {
		if !ok {
			return map[string]any{"value": nil}
		}
		return map[string]any{"value": v}
	}
	var body struct{ Value, From, To int64 }
	if r.Method != http.MethodGet && json.NewDecoder(r.Body).Decode(&body) != nil {
		reply(http.StatusBadRequest, map[string]string{"error": "bad body"})
		return
	}
	switch {
	case r.Method == http.MethodGet:
		reply(http.StatusOK, value(cur, present))
	case r.Method == http.MethodPut:
		f.kv[key] = body.Value
		reply(http.StatusOK, value(body.Value, true))
	case cas && (!present || cur != body.From):
		reply(http.StatusConflict, value(cur, present))
	case cas:
		f.kv[key] = body.To
		reply(http.StatusOK, value(body.To, true))
	default:
		http.NotFound(w, r)
	}
}

// demoCluster serves each fake under its node name and returns a session
// resolving the names to them.
func demoCluster(t testing.TB, timeout time.Duration, nodes map[string]*fakeDemo) Session {
	t.Helper()
	addrs := map[string]string{}
	for name, f := range nodes {
		srv := httptest.NewServer(f)
		t.Cleanup(srv.Close)
		addrs[name] = strings.TrimPrefix(srv.URL, "http://")
	}
	resolve := func(node, service string, _ int) (string, bool) {
		a, ok := addrs[node]
		return a, ok && service == DemoKVService
	}
	sess, err := (&DemoKV{Timeout: timeout}).StartServices(1, resolve)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sess.Close() })
	return sess
}

func demoWorkerOn(t *testing.T, sess Session, node string) Worker {
	t.Helper()
	w, err := sess.Open(0, 0, node)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func demoOp(f string, key, v any) history.Op {
	return history.Op{Type: history.Invoke, F: f, Key: key, Value: v}
}

func TestDemoKVOps(t *testing.T) {
	sess := demoCluster(t, time.Second, map[string]*fakeDemo{"n1": {kv: map[string]int64{}}})
	w := demoWorkerOn(t, sess, "n1")
	steps := []struct {
		op       history.Op
		wantType history.Type
		wantVal  any
	}{
		{demoOp("read", nil, nil), history.OK, nil},
		{demoOp("cas", nil, []any{int64(1), int64(2)}), history.Fail, []any{int64(1), int64(2)}},
		{demoOp("write", nil, int64(1)), history.OK, int64(1)},
		{demoOp("read", nil, nil), history.OK, int64(1)},
		{demoOp("cas", nil, []any{int64(1), int64(3)}), history.OK, []any{int64(1), int64(3)}},
		{demoOp("cas", nil, []any{int64(1), int64(4)}), history.Fail, []any{int64(1), int64(4)}},
		{demoOp("read", nil, nil), history.OK, int64(3)},
		{demoOp("read", "k 2/x", nil), history.OK, nil}, // keys are independent and path-escaped
		{demoOp("write", int64(7), int64(-5)), history.OK, int64(-5)},
		{demoOp("read", int64(7), nil), history.OK, int64(-5)},
		{demoOp("write", nil, "x"), history.Fail, "x"},
		{demoOp("cas", nil, int64(1)), history.Fail, int64(1)},
		{demoOp("cas", nil, []any{int64(1), 2.5}), history.Fail, []any{int64(1), 2.5}},
		{demoOp("append", nil, int64(1)), history.Fail, int64(1)},
	}
	for i, s := range steps {
		got := w.Invoke(context.Background(), s.op)
		if got.Type != s.wantType || !history.Equal(got.Value, s.wantVal) {
			t.Fatalf("step %d %s %v: got %s %v (error %q), want %s %v", i, s.op.F, s.op.Value, got.Type, got.Value, got.Error, s.wantType, s.wantVal)
		}
	}
}

// A follower's 503 with a leader hint is retried once at the leader.
func TestDemoKVFollowsLeaderHint(t *testing.T) {
	leader := &fakeDemo{kv: map[string]int64{}}
	follower := &fakeDemo{follower: true, leader: "n2"}
	sess := demoCluster(t, time.Second, map[string]*fakeDemo{"n1": follower, "n2": leader})
	w := demoWorkerOn(t, sess, "n1")
	if got := w.Invoke(context.Background(), demoOp("write", nil, int64(4))); got.Type != history.OK {
		t.Fatalf("write via follower: %s %q", got.Type, got.Error)
	}
	if got := w.Invoke(context.Background(), demoOp("read", nil, nil)); got.Type != history.OK || !history.Equal(got.Value, int64(4)) {
		t.Fatalf("read via follower: %s %v %q", got.Type, got.Value, got.Error)
	}
	if f, l := follower.requests.Load(), leader.requests.Load(); f != 2 || l != 2 {
		t.Errorf("follower saw %d requests, leader %d; want 2 and 2", f, l)
	}
}

// Two nodes each naming the other: one retry, then a definite failure.
func TestDemoKVRetriesOnlyOnce(t *testing.T) {
	a := &fakeDemo{follower: true, leader: "n2"}
	b := &fakeDemo{follower: true, leader: "n1"}
	sess := demoCluster(t, time.Second, map[string]*fakeDemo{"n1": a, "n2": b})
	w := demoWorkerOn(t, sess, "n1")
	got := w.Invoke(context.Background(), demoOp("write", nil, int64(1)))
	if got.Type != history.Fail || !strings.Contains(got.Error.(string), "not leader") {
		t.Fatalf("got %s %q, want fail naming not leader", got.Type, got.Error)
	}
	if n := a.requests.Load() + b.requests.Load(); n != 2 {
		t.Errorf("%d requests, want 2", n)
	}
}

func TestDemoOutcome(t *testing.T) {
	v := int64(9)
	timeout := fmt.Errorf("timeout: %w", context.DeadlineExceeded)
	refused := fmt.Errorf("dial: %w", syscall.ECONNREFUSED)
	cases := []struct {
		f      string
		status int
		reply  demoReply
		err    error
		want   history.Type
		value  any
	}{
		{"read", 200, demoReply{Value: &v}, nil, history.OK, int64(9)},
		{"read", 200, demoReply{}, nil, history.OK, nil},
		{"read", 0, demoReply{}, timeout, history.Fail, nil},
		{"read", 504, demoReply{Error: "indeterminate: x"}, nil, history.Fail, nil},
		{"read", 503, demoReply{Error: "not leader"}, nil, history.Fail, nil},
		{"write", 200, demoReply{Value: &v}, nil, history.OK, int64(1)},
		{"write", 0, demoReply{}, timeout, history.Info, int64(1)},
		{"write", 0, demoReply{}, refused, history.Fail, int64(1)},
		{"write", 504, demoReply{Error: "indeterminate: x"}, nil, history.Info, int64(1)},
		{"write", 500, demoReply{Error: "apply"}, nil, history.Info, int64(1)},
		{"write", 503, demoReply{Error: "not leader", Leader: "n2"}, nil, history.Fail, int64(1)},
		{"write", 400, demoReply{Error: "bad body"}, nil, history.Fail, int64(1)},
		{"cas", 409, demoReply{Value: &v}, nil, history.Fail, int64(1)},
		{"cas", 200, demoReply{Value: &v}, nil, history.OK, int64(1)},
		{"cas", 504, demoReply{}, nil, history.Info, int64(1)},
		{"cas", 0, demoReply{}, errors.New("connection reset"), history.Info, int64(1)},
	}
	for _, c := range cases {
		in := any(int64(1))
		if c.f == "read" {
			in = nil
		}
		got := demoOutcome(demoOp(c.f, nil, in), c.status, c.reply, c.err)
		if got.Type != c.want || !history.Equal(got.Value, c.value) {
			t.Errorf("%s HTTP %d err %v: got %s %v, want %s %v", c.f, c.status, c.err, got.Type, got.Value, c.want, c.value)
		}
		if got.Type != history.OK && got.Error == nil {
			t.Errorf("%s HTTP %d err %v: %s without an error", c.f, c.status, c.err, got.Type)
		}
	}
}

// A timed-out write may have happened (info); a timed-out read did nothing (fail).
func TestDemoKVTimeout(t *testing.T) {
	f := &fakeDemo{hang: make(chan struct{})}
	sess := demoCluster(t, 50*time.Millisecond, map[string]*fakeDemo{"n1": f})
	defer close(f.hang)
	w := demoWorkerOn(t, sess, "n1")
	want := map[string]history.Type{"read": history.Fail, "write": history.Info, "cas": history.Info}
	for fn, typ := range want {
		v := any(int64(1))
		if fn == "cas" {
			v = []any{int64(1), int64(2)}
		}
		got := w.Invoke(context.Background(), demoOp(fn, nil, v))
		if got.Type != typ || !strings.Contains(fmt.Sprint(got.Error), "timeout") {
			t.Errorf("%s: got %s %q, want %s with a timeout error", fn, got.Type, got.Error, typ)
		}
	}
}

func TestDemoKVOpenAndStart(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := l.Addr().String()
	l.Close()
	resolve := func(node, service string, _ int) (string, bool) {
		return dead, node == "n1" && service == DemoKVService
	}
	sess, err := (&DemoKV{Timeout: time.Second}).StartServices(1, resolve)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	w, err := sess.Open(0, 0, "n1")
	if err != nil {
		t.Fatal(err)
	}
	if got := w.Invoke(context.Background(), demoOp("write", nil, int64(1))); got.Type != history.Fail {
		t.Errorf("write to a refused port: %s %q, want fail", got.Type, got.Error)
	}
	if _, err := sess.Open(1, 1, "n9"); err == nil {
		t.Error("unknown node opened without error")
	}
	noResolver, err := (&DemoKV{Timeout: time.Second}).Start(1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := noResolver.Open(0, 0, "n1"); err == nil || !strings.Contains(err.Error(), "no http address") {
		t.Errorf("open without resolver: err = %v, want one naming the missing address", err)
	}
	if _, err := (&DemoKV{}).Start(1); err == nil {
		t.Error("zero timeout accepted")
	}
}

func BenchmarkDemoKVRead(b *testing.B) {
	sess := demoCluster(b, time.Second, map[string]*fakeDemo{"n1": {kv: map[string]int64{"r": 7}}})
	w, err := sess.Open(0, 0, "n1")
	if err != nil {
		b.Fatal(err)
	}
	op := demoOp("read", nil, nil)
	b.ReportAllocs()
	for b.Loop() {
		if got := w.Invoke(context.Background(), op); got.Type != history.OK {
			b.Fatal(got.Error)
		}
	}
}

func BenchmarkDemoKVCas(b *testing.B) {
	sess := demoCluster(b, time.Second, map[string]*fakeDemo{"n1": {kv: map[string]int64{"r": 7}}})
	w, err := sess.Open(0, 0, "n1")
	if err != nil {
		b.Fatal(err)
	}
	op := demoOp("cas", nil, []any{int64(7), int64(7)})
	b.ReportAllocs()
	for b.Loop() {
		if got := w.Invoke(context.Background(), op); got.Type != history.OK {
			b.Fatal(got.Error)
		}
	}
}
