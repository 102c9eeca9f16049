package client

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/faultline/faultline/history"
)

// fakeEtcd is a tiny stand-in for etcd's JSON gateway: one map, the three
// endpoints the client uses, and a record of the last range request.
type fakeEtcd struct {
	mu           sync.Mutex
	kv           map[string][]byte
	serializable bool          // last range asked for a serializable read
	hang         chan struct{} // when set, requests block until it closes
}

func (f *fakeEtcd) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if f.hang != nil {
		select {
		case <-f.hang:
		case <-r.Context().Done():
		}
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	switch r.URL.Path {
	case "/v3/kv/range":
		var req etcdRange
		if json.NewDecoder(r.Body).Decode(&req) != nil {
			http.Error(w, `{"error":"bad json"}`, http.StatusBadRequest)
			return
		}
		f.serializable = req.Serializable
		resp := etcdRangeResp{}
		if v, ok := f.kv[string(req.Key)]; ok {
			resp.Kvs = []etcdKV{{Key: req.Key, Value: v}}
		}
		_ = json.NewEncoder(w).Encode(resp)
	case "/v3/kv/put":
		var req etcdKV
		if json.NewDecoder(r.Body).Decode(&req) != nil {
			http.Error(w, `{"error":"bad json"}`, http.StatusBadRequest)
			return
		}
		f.kv[string(req.Key)] = req.Value
		_, _ = w.Write([]byte(`{"header":{}}`))
	case "/v3/kv/txn":
		var req etcdTxn
		if json.NewDecoder(r.Body).Decode(&req) != nil || len(req.Compare) != 1 || len(req.Success) != 1 {
			http.Error(w, `{"error":"bad txn"}`, http.StatusBadRequest)
			return
		}
		c := req.Compare[0]
		if cur, ok := f.kv[string(c.Key)]; ok && string(cur) == string(c.Value) {
			put := req.Success[0]["request_put"]
			f.kv[string(put.Key)] = put.Value
			_, _ = w.Write([]byte(`{"header":{},"succeeded":true}`))
			return
		}
		_, _ = w.Write([]byte(`{"header":{}}`)) // proto3 JSON omits false
	default:
		http.NotFound(w, r)
	}
}

func etcdWorkerFor(t *testing.T, f *fakeEtcd, cfg Etcd) Worker {
	t.Helper()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	if cfg.Timeout == 0 {
		cfg.Timeout = time.Second
	}
	cfg.Endpoints = []string{srv.URL}
	sess, err := cfg.Start(1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sess.Close() })
	w, err := sess.Open(0, 0, "n1")
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func etcdOp(f string, v any) history.Op {
	return history.Op{Type: history.Invoke, F: f, Value: v}
}

func TestEtcdOps(t *testing.T) {
	f := &fakeEtcd{kv: map[string][]byte{}}
	w := etcdWorkerFor(t, f, Etcd{})
	steps := []struct {
		op       history.Op
		wantType history.Type
		wantVal  any
	}{
		{etcdOp("read", nil), history.OK, nil},
		{etcdOp("cas", []any{int64(1), int64(2)}), history.Fail, []any{int64(1), int64(2)}},
		{etcdOp("write", int64(1)), history.OK, int64(1)},
		{etcdOp("read", nil), history.OK, int64(1)},
		{etcdOp("cas", []any{int64(1), int64(3)}), history.OK, []any{int64(1), int64(3)}},
		{etcdOp("cas", []any{int64(1), int64(4)}), history.Fail, []any{int64(1), int64(4)}},
		{etcdOp("read", nil), history.OK, int64(3)},
		{etcdOp("write", "x"), history.Fail, "x"},
		{etcdOp("cas", int64(1)), history.Fail, int64(1)},
		{etcdOp("append", int64(1)), history.Fail, int64(1)},
	}
	for i, s := range steps {
		got := w.Invoke(context.Background(), s.op)
		if got.Type != s.wantType || !history.Equal(got.Value, s.wantVal) {
			t.Fatalf("step %d %s %v: got %s %v (error %q), want %s %v", i, s.op.F, s.op.Value, got.Type, got.Value, got.Error, s.wantType, s.wantVal)
		}
	}
}

func TestEtcdSerializableFlag(t *testing.T) {
	for _, ser := range []bool{false, true} {
		f := &fakeEtcd{kv: map[string][]byte{}}
		w := etcdWorkerFor(t, f, Etcd{Serializable: ser})
		if got := w.Invoke(context.Background(), etcdOp("read", nil)); got.Type != history.OK {
			t.Fatalf("read: %s %q", got.Type, got.Error)
		}
		if f.serializable != ser {
			t.Errorf("serializable=%t: gateway saw %t", ser, f.serializable)
		}
	}
}

func TestEtcdNonIntegerStoredValue(t *testing.T) {
	f := &fakeEtcd{kv: map[string][]byte{"r": []byte("abc")}}
	w := etcdWorkerFor(t, f, Etcd{})
	if got := w.Invoke(context.Background(), etcdOp("read", nil)); got.Type != history.Fail || !strings.Contains(fmt.Sprint(got.Error), "not an integer") {
		t.Fatalf("got %s %q, want fail naming the bad value", got.Type, got.Error)
	}
}

// A timed-out write may have happened (info); a timed-out read did nothing (fail).
func TestEtcdTimeout(t *testing.T) {
	f := &fakeEtcd{kv: map[string][]byte{}, hang: make(chan struct{})}
	w := etcdWorkerFor(t, f, Etcd{Timeout: 50 * time.Millisecond})
	defer close(f.hang)
	want := map[string]history.Type{"read": history.Fail, "write": history.Info, "cas": history.Info}
	for f, typ := range want {
		v := any(int64(1))
		if f == "cas" {
			v = []any{int64(1), int64(2)}
		}
		got := w.Invoke(context.Background(), etcdOp(f, v))
		if got.Type != typ || !strings.Contains(fmt.Sprint(got.Error), "timeout") {
			t.Errorf("%s: got %s %q, want %s with a timeout error", f, got.Type, got.Error, typ)
		}
	}
}

// A refused connection never reached etcd, so even writes fail definitely.
func TestEtcdConnectionRefused(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	sess, err := (&Etcd{Timeout: time.Second, Endpoints: []string{"http://" + addr}}).Start(1)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	w, err := sess.Open(0, 0, "n1")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"read", "write"} {
		if got := w.Invoke(context.Background(), etcdOp(f, int64(1))); got.Type != history.Fail {
			t.Errorf("%s: got %s %q, want fail", f, got.Type, got.Error)
		}
	}
}

func TestEtcdResolvesBoundNode(t *testing.T) {
	resolve := func(n string) (string, bool) { return map[string]string{"n1": "10.0.0.1"}[n], n == "n1" }
	sess, err := (&Etcd{Timeout: time.Second}).StartNodes(1, resolve)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	w, err := sess.Open(0, 0, "n1")
	if err != nil {
		t.Fatal(err)
	}
	if got := w.(*etcdWorker).base; got != "http://10.0.0.1:2379" {
		t.Errorf("base = %q, want http://10.0.0.1:2379", got)
	}
	if _, err := sess.Open(1, 1, "n9"); err == nil {
		t.Error("unknown node opened without error")
	}
	if _, err := (&Etcd{}).Start(1); err == nil {
		t.Error("zero timeout accepted")
	}
}

func BenchmarkEtcdRead(b *testing.B) {
	f := &fakeEtcd{kv: map[string][]byte{"r": []byte("7")}}
	srv := httptest.NewServer(f)
	defer srv.Close()
	sess, err := (&Etcd{Timeout: time.Second, Endpoints: []string{srv.URL}}).Start(1)
	if err != nil {
		b.Fatal(err)
	}
	defer sess.Close()
	w, _ := sess.Open(0, 0, "n1")
	op := etcdOp("read", nil)
	b.ReportAllocs()
	for b.Loop() {
		if got := w.Invoke(context.Background(), op); got.Type != history.OK {
			b.Fatal(got.Error)
		}
	}
}
