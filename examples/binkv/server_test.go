package binkv

import (
	"bufio"
	"context"
	"encoding/binary"
	"io"
	"net"
	"testing"
)

// startNode runs a node on a free loopback port until the test ends.
func startNode(t *testing.T, args ...string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Main(ctx, append([]string{"--listen", addr}, args...), io.Discard) }()
	t.Cleanup(func() { cancel(); <-done })
	for { // readiness: the listener is up
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return addr
		}
		select {
		case err := <-done:
			t.Fatalf("node exited: %v", err)
		default:
		}
	}
}

// call sends one request and returns the response's status and body.
func call(t *testing.T, addr string, op byte, key string, args ...int64) (byte, []byte) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	req := binary.BigEndian.AppendUint16([]byte{op}, uint16(len(key)))
	req = append(req, key...)
	for _, a := range args {
		req = binary.BigEndian.AppendUint64(req, uint64(a))
	}
	if err := writeFrame(c, req); err != nil {
		t.Fatal(err)
	}
	resp, err := readFrame(bufio.NewReader(c))
	if err != nil {
		t.Fatal(err)
	}
	return resp[0], resp[1:]
}

func TestStore(t *testing.T) {
	dir := t.TempDir()
	primary := startNode(t, "--dir", dir)
	follower := startNode(t, "--primary", primary)
	if s, _ := call(t, follower, OpGet, "k"); s != StatusNotFound {
		t.Fatalf("get of a new key: status %d, want not found", s)
	}
	if s, _ := call(t, follower, OpPut, "k", 3); s != StatusOK {
		t.Fatalf("put via the follower: status %d", s)
	}
	if s, _ := call(t, primary, OpCas, "k", 2, 5); s != StatusMismatch {
		t.Errorf("cas 2->5 on 3: status %d, want mismatch", s)
	}
	if s, _ := call(t, primary, OpCas, "k", 3, 4); s != StatusOK {
		t.Errorf("cas 3->4 on 3: status %d, want ok", s)
	}
	if s, b := call(t, follower, OpGet, "k"); s != StatusOK || int64(binary.BigEndian.Uint64(b)) != 4 {
		t.Errorf("get: status %d body %x, want ok 4", s, b)
	}
	if s, _ := call(t, primary, 9, "k"); s != StatusBad {
		t.Errorf("unknown opcode: status %d, want bad request", s)
	}
	// A restarted primary replays its log (a second one on the same
	// directory: it only reads it here).
	again := startNode(t, "--dir", dir)
	if s, b := call(t, again, OpGet, "k"); s != StatusOK || int64(binary.BigEndian.Uint64(b)) != 4 {
		t.Errorf("get after restart: status %d body %x, want ok 4", s, b)
	}
}

func TestFollowerOfAnUnreachablePrimary(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gone := l.Addr().String()
	l.Close()
	follower := startNode(t, "--primary", gone)
	if s, msg := call(t, follower, OpPut, "k", 1); s != StatusUnavailable {
		t.Errorf("put with the primary unreachable: status %d (%s), want unavailable", s, msg)
	}
}

func TestCasBlind(t *testing.T) {
	primary := startNode(t, "--dir", t.TempDir(), "--bug", "cas-blind")
	call(t, primary, OpPut, "k", 3)
	if s, _ := call(t, primary, OpCas, "k", 2, 5); s != StatusOK {
		t.Errorf("cas-blind: cas 2->5 on 3: status %d, want ok (the planted bug)", s)
	}
}
