package demostore

import (
	"bytes"
	"io"
	"math"
	"testing"

	"github.com/hashicorp/raft"
)

func TestStoreApply(t *testing.T) {
	s := newStore()
	steps := []struct {
		c    command
		want result
	}{
		{command{op: opRead, key: "a"}, result{}},
		{command{op: opCAS, key: "a", from: 0, to: 1}, result{}}, // absent is not 0
		{command{op: opWrite, key: "a", to: 5}, result{value: 5, present: true, ok: true}},
		{command{op: opRead, key: "a"}, result{value: 5, present: true}},
		{command{op: opCAS, key: "a", from: 4, to: 6}, result{value: 5, present: true}},
		{command{op: opCAS, key: "a", from: 5, to: 6}, result{value: 6, present: true, ok: true}},
		{command{op: opRead, key: "b"}, result{}}, // keys are independent
		{command{op: opWrite, key: "", to: math.MinInt64}, result{value: math.MinInt64, present: true, ok: true}},
		{command{op: opRead, key: ""}, result{value: math.MinInt64, present: true}},
	}
	for i, st := range steps {
		l := &raft.Log{Index: uint64(i + 1), Type: raft.LogCommand, Data: st.c.encode()}
		if got := s.Apply(l); got != st.want {
			t.Fatalf("step %d %+v: got %+v, want %+v", i, st.c, got, st.want)
		}
	}
	if got, ok := s.Apply(&raft.Log{Type: raft.LogCommand, Data: []byte{9}}).(result); !ok || got.err == nil {
		t.Errorf("garbage entry applied without error: %+v", got)
	}
	if got := s.Apply(&raft.Log{Type: raft.LogNoop}); got != (result{}) {
		t.Errorf("noop entry returned %+v", got)
	}
}

func TestDecodeCommandRejects(t *testing.T) {
	ok := command{op: opWrite, key: "k", to: 1}.encode()
	bad := map[string][]byte{
		"empty":      nil,
		"short":      ok[:commandHeader-1],
		"op zero":    append([]byte{0}, ok[1:]...),
		"op too big": append([]byte{byte(opCAS) + 1}, ok[1:]...),
	}
	for name, b := range bad {
		if c, err := decodeCommand(b); err == nil {
			t.Errorf("%s: decoded %+v without error", name, c)
		}
	}
}

func FuzzDecodeCommand(f *testing.F) {
	f.Add(command{op: opCAS, key: "key", from: -1, to: 7}.encode())
	f.Add(command{op: opRead}.encode())
	f.Add([]byte{3, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := decodeCommand(b)
		if err != nil {
			return
		}
		if again := c.encode(); !bytes.Equal(again, b) {
			t.Fatalf("round trip of %x gave %x", b, again)
		}
	})
}

// memSink is an in-memory raft.SnapshotSink.
type memSink struct {
	bytes.Buffer
	closed, cancelled bool
}

func (s *memSink) ID() string    { return "mem" }
func (s *memSink) Close() error  { s.closed = true; return nil }
func (s *memSink) Cancel() error { s.cancelled = true; return nil }

func TestSnapshotRestore(t *testing.T) {
	s := newStore()
	s.apply(command{op: opWrite, key: "a", to: 1})
	s.apply(command{op: opWrite, key: "b", to: -2})
	snap, err := s.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	s.apply(command{op: opWrite, key: "a", to: 99}) // after the snapshot: not in it
	var sink memSink
	if err := snap.Persist(&sink); err != nil || !sink.closed {
		t.Fatalf("persist: err %v, closed %t", err, sink.closed)
	}
	snap.Release()

	r := newStore()
	r.apply(command{op: opWrite, key: "stale", to: 5}) // restore replaces, not merges
	if err := r.Restore(io.NopCloser(&sink.Buffer)); err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{"a": 1, "b": -2}
	if len(r.kv) != len(want) {
		t.Fatalf("restored %v, want %v", r.kv, want)
	}
	for k, v := range want {
		if got, ok := r.local(k); !ok || got != v {
			t.Errorf("restored %s = %d (present %t), want %d", k, got, ok, v)
		}
	}
	if err := r.Restore(io.NopCloser(bytes.NewReader([]byte("{not json")))); err == nil {
		t.Error("corrupt snapshot restored without error")
	}
}
