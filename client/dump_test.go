package client

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/history"
)

// dumpSession starts a fresh system for a dump test and returns a session on it.
type dumpSession func(t *testing.T) Session

var dumpSystems = map[string]dumpSession{
	"register": func(t *testing.T) Session {
		sess, err := (&Register{StaleReads: 1}).Start(1) // a dump never reads stale
		if err != nil {
			t.Fatal(err)
		}
		return sess
	},
	"etcd": func(t *testing.T) Session {
		srv := httptest.NewServer(&fakeEtcd{kv: map[string][]byte{}})
		t.Cleanup(srv.Close)
		sess, err := (&Etcd{Endpoints: []string{srv.URL}, Timeout: time.Second}).Start(1)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = sess.Close() })
		return sess
	},
	"demo_kv": func(t *testing.T) Session {
		return demoCluster(t, time.Second, map[string]*fakeDemo{"n1": {kv: map[string]int64{}}})
	},
}

// A dump reads the keys it names, or with no list every key any of the
// session's workers wrote, and completes with {key: value}.
func TestDump(t *testing.T) {
	for name, start := range dumpSystems {
		t.Run(name, func(t *testing.T) {
			sess := start(t)
			a, b := demoWorkerOn(t, sess, "n1"), demoWorkerOn(t, sess, "n1")
			for _, s := range []struct {
				w     Worker
				f     string
				key   any
				value any
			}{
				{a, "write", int64(1), int64(5)},
				{b, "write", "x", int64(2)},
				{b, "cas", "x", []any{int64(2), int64(7)}},
				{a, "read", int64(9), nil},
			} {
				if got := invoke(t, s.w, s.f, s.key, s.value); got.Type != history.OK {
					t.Fatalf("%s %v: %s %q", s.f, s.key, got.Type, got.Error)
				}
			}
			tests := []struct {
				name     string
				value    any
				wantType history.Type
				want     any // the completion's value, or a substring of its error
			}{
				{"every written key", nil, history.OK, map[string]any{"1": int64(5), "x": int64(7)}},
				{"named keys, absent is nil", []any{int64(1), int64(9)}, history.OK, map[string]any{"1": int64(5), "9": nil}},
				{"empty list", []any{}, history.OK, map[string]any{}},
				{"not a list", "x", history.Fail, "list of keys or None"},
				{"unhashable key", []any{[]any{int64(1)}}, history.Fail, "unsupported key type"},
			}
			for _, tt := range tests {
				got := invoke(t, a, DumpF, nil, tt.value)
				if got.Type != tt.wantType {
					t.Fatalf("%s: %s %v %q, want %s", tt.name, got.Type, got.Value, got.Error, tt.wantType)
				}
				if msg, ok := tt.want.(string); ok {
					if !strings.Contains(fmt.Sprint(got.Error), msg) {
						t.Errorf("%s: error %q, want it to mention %q", tt.name, got.Error, msg)
					}
				} else if !history.Equal(got.Value, tt.want) {
					t.Errorf("%s: value %v, want %v", tt.name, got.Value, tt.want)
				}
			}
		})
	}
}

// One failed read fails the dump: a partial state would report the
// unread keys' writes as lost.
func TestDumpFailsOnAFailedRead(t *testing.T) {
	f := &fakeEtcd{kv: map[string][]byte{"1": []byte("1"), "2": []byte("not a number")}}
	w := etcdWorkerFor(t, f, Etcd{})
	got := w.Invoke(context.Background(), history.Op{Type: history.Invoke, F: DumpF, Value: []any{int64(1), int64(2)}})
	if got.Type != history.Fail || !strings.Contains(fmt.Sprint(got.Error), "read of key 2") {
		t.Fatalf("got %s %v %q, want a fail naming key 2", got.Type, got.Value, got.Error)
	}

	sess := demoCluster(t, time.Second, map[string]*fakeDemo{"n1": {status: 500}})
	got = demoWorkerOn(t, sess, "n1").Invoke(context.Background(), history.Op{Type: history.Invoke, F: DumpF, Value: []any{int64(1)}})
	if got.Type != history.Fail || !strings.Contains(fmt.Sprint(got.Error), "HTTP 500") {
		t.Fatalf("demo_kv: got %s %v %q, want a fail with the read's error", got.Type, got.Value, got.Error)
	}
}

// A dump is the final linearizable read: it never asks etcd for a
// serializable one, whatever the client's reads do.
func TestEtcdDumpIsLinearizable(t *testing.T) {
	f := &fakeEtcd{kv: map[string][]byte{}}
	w := etcdWorkerFor(t, f, Etcd{Serializable: true})
	if got := w.Invoke(context.Background(), history.Op{Type: history.Invoke, F: DumpF, Value: []any{"k"}}); got.Type != history.OK {
		t.Fatalf("dump: %s %q", got.Type, got.Error)
	}
	if f.serializable {
		t.Error("the dump's read was serializable")
	}
}
