// Package testdaemon lets a test binary double as the daemon that node
// control is tested with (start, stop, signal, await a port), so those tests
// need no server program on the machine, and holds the small waits they share.
package testdaemon

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/signal"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Environment of the test binary when it runs as a daemon under test.
const (
	EnvListen     = "FAULTLINE_CONTROL_TEST_LISTEN"      // port to listen on
	EnvIgnoreTerm = "FAULTLINE_CONTROL_TEST_IGNORE_TERM" // "1": survive SIGTERM
)

// Main is a package's TestMain: it runs the daemon when the binary was
// started as one, and the tests otherwise.
func Main(m *testing.M) {
	if port := os.Getenv(EnvListen); port != "" {
		os.Exit(serve(port))
	}
	os.Exit(m.Run())
}

func serve(port string) int {
	if os.Getenv(EnvIgnoreTerm) == "1" {
		signal.Ignore(syscall.SIGTERM)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", port))
	if err != nil {
		fmt.Fprintln(os.Stderr, "test daemon:", err)
		return 1
	}
	fmt.Println("test daemon listening on", ln.Addr())
	for {
		c, err := ln.Accept()
		if err != nil {
			return 1
		}
		c.Close()
	}
}

// SyncBuffer is a buffer a test reads while another goroutine (a
// process's stderr copier) writes it.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p.
func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns what was written so far.
func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// FreePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func FreePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// FreeAddrs returns n distinct "127.0.0.1:port" addresses, all held open
// until the last is taken: ports reserved one at a time can come back
// twice, and two listeners of one cluster then collide.
func FreeAddrs(t testing.TB, n int) []string {
	t.Helper()
	addrs := make([]string, n)
	for i := range addrs {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		addrs[i] = l.Addr().String()
	}
	return addrs
}

// Argv is the command line of a test daemon; token makes it findable by a
// command-line pattern.
func Argv(t testing.TB, token string) []string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return []string{exe, "-test.run=^$", token}
}

// Alive reports whether pid runs and is not a zombie.
func Alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// The state follows the ")" that ends the command name.
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] == ')' {
			return i+2 < len(b) && b[i+2] != 'Z' && b[i+2] != 'X'
		}
	}
	return false
}

// Within fails the test when fn does not return within d: a liveness guard
// so a hang fails fast, not a performance assertion.
func Within(t *testing.T, d time.Duration, what string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("%s did not return within %s", what, d)
	}
}

// WaitFor polls cond every 20ms until it holds or d passes.
func WaitFor(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if cond() {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return cond()
}

// CancelOnFile returns a context cancelled once path exists, which is how
// tests cancel a command only after it has really started.
func CancelOnFile(t *testing.T, path string) context.Context {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go func() {
		for ctx.Err() == nil {
			if _, err := os.Stat(path); err == nil {
				cancel()
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	return ctx
}
