package control

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// Environment of the test binary when it runs as a daemon under test.
const (
	envListen     = "FAULTLINE_CONTROL_TEST_LISTEN"      // port to listen on
	envIgnoreTerm = "FAULTLINE_CONTROL_TEST_IGNORE_TERM" // "1": survive SIGTERM
)

// TestMain lets the test binary double as the daemon that start_daemon,
// stop_daemon, signal and await_port are tested with, so the tests need no
// server program on the machine.
func TestMain(m *testing.M) {
	if port := os.Getenv(envListen); port != "" {
		os.Exit(testDaemon(port))
	}
	os.Exit(m.Run())
}

func testDaemon(port string) int {
	if os.Getenv(envIgnoreTerm) == "1" {
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

// freePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func freePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// daemonArgv is the command line of a test daemon; token makes it findable
// by SignalMatching.
func daemonArgv(t testing.TB, token string) []string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return []string{exe, "-test.run=^$", token}
}

// pidAlive reports whether pid runs and is not a zombie.
func pidAlive(pid int) bool {
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

// within fails the test when fn does not return within d: a liveness guard
// so a hang fails fast, not a performance assertion.
func within(t *testing.T, d time.Duration, what string, fn func()) {
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

// waitFor polls cond every 20ms until it holds or d passes.
func waitFor(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if cond() {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return cond()
}

// ctxWithCancelOnFile returns a context cancelled once path exists, which is
// how tests cancel a command only after it has really started.
func ctxWithCancelOnFile(t *testing.T, path string) context.Context {
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
