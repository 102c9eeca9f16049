package mesh_test

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/faultline/faultline/mesh"
)

// Probe deadlines: a probe expected to pass gets long enough never to flake;
// one expected to be blocked times out quickly, and the counters then prove
// the bytes were really dropped.
const (
	passWait  = 10 * time.Second
	blockWait = 150 * time.Millisecond
)

func wait(ok bool) time.Duration {
	if ok {
		return passWait
	}
	return blockWait
}

// echoServer greets each connection with "hello <name>", echoes every line
// as "echo <line>", and remembers a connection by its "hi <from>" line so
// the test can push lines to that peer.
type echoServer struct {
	name string
	ln   net.Listener
	wg   sync.WaitGroup

	mu    sync.Mutex
	peers map[string]*peer
	conns []net.Conn
}

// peer is the server's side of one greeted connection.
type peer struct {
	wmu sync.Mutex
	c   net.Conn
	got chan string // lines received
}

func startEcho(t *testing.T, name string) *echoServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	s := &echoServer{name: name, ln: ln, peers: map[string]*peer{}}
	s.wg.Add(1)
	go s.serve()
	t.Cleanup(s.close)
	return s
}

func (s *echoServer) addr() string { return s.ln.Addr().String() }

func (s *echoServer) serve() {
	defer s.wg.Done()
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.mu.Lock()
		s.conns = append(s.conns, c)
		s.mu.Unlock()
		s.wg.Add(1)
		go s.handle(c)
	}
}

func (s *echoServer) handle(c net.Conn) {
	defer s.wg.Done()
	defer c.Close()
	p := &peer{c: c, got: make(chan string, 64)}
	if p.send("hello "+s.name) != nil {
		return
	}
	r := bufio.NewReader(c)
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		line = strings.TrimSuffix(line, "\n")
		if from, ok := strings.CutPrefix(line, "hi "); ok {
			s.mu.Lock()
			s.peers[from] = p
			s.mu.Unlock()
		}
		select {
		case p.got <- line:
		default: // nobody is waiting for it
		}
		if p.send("echo "+line) != nil {
			return
		}
	}
}

func (p *peer) send(line string) error {
	p.wmu.Lock()
	defer p.wmu.Unlock()
	_, err := p.c.Write([]byte(line + "\n"))
	return err
}

// push writes a line to the connection greeted by from.
func (s *echoServer) push(from, line string) error {
	s.mu.Lock()
	p := s.peers[from]
	s.mu.Unlock()
	if p == nil {
		return fmt.Errorf("%s has no connection from %s", s.name, from)
	}
	return p.send(line)
}

// received waits up to d for from's connection to deliver line.
func (s *echoServer) received(from, line string, d time.Duration) bool {
	s.mu.Lock()
	p := s.peers[from]
	s.mu.Unlock()
	if p == nil {
		return false
	}
	t := time.NewTimer(d)
	defer t.Stop()
	for {
		select {
		case l := <-p.got:
			if l == line {
				return true
			}
		case <-t.C:
			return false
		}
	}
}

func (s *echoServer) close() {
	s.ln.Close()
	s.mu.Lock()
	for _, c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
}

// client is the dialing side of a probe connection.
type client struct {
	c net.Conn
	r *bufio.Reader
}

func dial(addr string) (*client, error) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	return &client{c: c, r: bufio.NewReader(c)}, nil
}

func (c *client) send(line string) error {
	_, err := c.c.Write([]byte(line + "\n"))
	return err
}

// expect reads one line within d and checks it.
func (c *client) expect(want string, d time.Duration) error {
	if err := c.c.SetReadDeadline(time.Now().Add(d)); err != nil {
		return err
	}
	line, err := c.r.ReadString('\n')
	if err != nil {
		return err
	}
	if line = strings.TrimSuffix(line, "\n"); line != want {
		return fmt.Errorf("read %q, want %q", line, want)
	}
	return nil
}

// ended reports whether the connection ends (EOF or reset) within
// passWait, discarding what is still buffered; a timeout means still open.
func (c *client) ended() bool {
	if err := c.c.SetReadDeadline(time.Now().Add(passWait)); err != nil {
		return false
	}
	_, err := io.Copy(io.Discard, c.r)
	var ne net.Error
	return !errors.As(err, &ne) || !ne.Timeout()
}

// freshProbe opens a new connection and checks the greeting and one echo.
func freshProbe(addr, to, token string, d time.Duration) error {
	c, err := dial(addr)
	if err != nil {
		return err
	}
	defer c.c.Close()
	if err := c.expect("hello "+to, d); err != nil {
		return err
	}
	if err := c.send(token); err != nil {
		return err
	}
	return c.expect("echo "+token, d)
}

// greet opens a connection from a to b's server and introduces a, so the
// server can push to it later.
func greet(addr, from, to string) (*client, error) {
	c, err := dial(addr)
	if err != nil {
		return nil, err
	}
	for _, step := range []func() error{
		func() error { return c.expect("hello "+to, passWait) },
		func() error { return c.send("hi " + from) },
		func() error { return c.expect("echo hi "+from, passWait) },
	} {
		if err := step(); err != nil {
			c.c.Close()
			return nil, err
		}
	}
	return c, nil
}

func mustAddr(t *testing.T, m *mesh.Mesh, from, to, svc string) string {
	t.Helper()
	a, err := m.Addr(from, to, svc)
	if err != nil {
		t.Fatalf("addr: %v", err)
	}
	return a
}

// eventually polls cond until it holds, failing after passWait. The mesh
// counts asynchronously to the test's own reads, so a counter the test
// expects may trail the observation by a scheduling delay.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(passWait)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("never happened: %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// meshGoroutines lists goroutines running mesh package code.
func meshGoroutines() []string {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	var out []string
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "faultline/mesh.") {
			out = append(out, g)
		}
	}
	return out
}

// delta subtracts counters taken before from after.
func delta(after, before mesh.Counters) mesh.Counters {
	return mesh.Counters{
		BytesForwarded: after.BytesForwarded - before.BytesForwarded, BytesReturned: after.BytesReturned - before.BytesReturned,
		BytesDropped: after.BytesDropped - before.BytesDropped, BytesReturnDropped: after.BytesReturnDropped - before.BytesReturnDropped,
		ConnsAccepted: after.ConnsAccepted - before.ConnsAccepted, ConnsBlocked: after.ConnsBlocked - before.ConnsBlocked,
		ConnsRefused: after.ConnsRefused - before.ConnsRefused, ConnsReset: after.ConnsReset - before.ConnsReset,
		ConnsLost: after.ConnsLost - before.ConnsLost, Delayed: after.Delayed - before.Delayed,
		ThrottledNanos: after.ThrottledNanos - before.ThrottledNanos,
	}
}

// serveTCP accepts connections on a fresh loopback port and runs handle on
// each (closing it afterwards) until the test ends.
func serveTCP(tb testing.TB, handle func(net.Conn)) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	var wg sync.WaitGroup
	tb.Cleanup(func() { ln.Close(); wg.Wait() })
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Go(func() {
				defer c.Close()
				handle(c)
			})
		}
	})
	return ln.Addr().String()
}
