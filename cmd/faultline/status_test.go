package main

import (
	"bytes"
	"os"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
)

// On a terminal a plan run shows one live status line: the unit, its phase
// (setup, load, the fault in effect and on which victims), the load's clock
// against its budget, ops/s and ok/fail/info. The demo is the plan run a
// newcomer sees first; it runs here on a pseudo-terminal and is stopped with
// Ctrl-C once the line has shown a partition and a kill.
func TestPlanRunStatusLineOnTerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the demo's 3-node cluster")
	}
	d := newDemoRunner(t)
	cmd := d.cmd("demo", "--out", d.out("status"), "--seed", "7")
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 200})
	if err != nil {
		t.Fatal(err)
	}
	defer tty.Close()
	var mu sync.Mutex
	var screen bytes.Buffer
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := tty.Read(buf)
			mu.Lock()
			screen.Write(buf[:n])
			mu.Unlock()
			if err != nil {
				return // EIO once the child and its nodes closed the terminal
			}
		}
	}()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	const redraw = "\r\x1b\\[K"
	wants := []*regexp.Regexp{
		regexp.MustCompile(redraw + `S1  setup  \d+s`),
		regexp.MustCompile(redraw + `S1  load  \d+s/12s, \d+s left  \d+ ops/s  ok \d+  fail \d+  info \d+`),
		regexp.MustCompile(redraw + `S1  fault start-partition on n\d \| n\d,n\d  \d+s/12s, \d+s left  \d+ ops/s`),
		regexp.MustCompile(redraw + `S1  fault kill on n\d  \d+s/12s`),
	}
	shown := func() string {
		mu.Lock()
		defer mu.Unlock()
		return screen.String()
	}
	missing := func() []string {
		mu.Lock()
		defer mu.Unlock()
		var out []string
		for _, w := range wants {
			if !w.Match(screen.Bytes()) {
				out = append(out, w.String())
			}
		}
		return out
	}
	// Bounded only so a hung demo fails the test rather than the suite;
	// nothing here depends on how fast the machine is.
	deadline := time.After(3 * time.Minute)
	for len(missing()) > 0 {
		select {
		case err := <-exited:
			t.Fatalf("the demo exited (%v) before the status line showed %q; terminal:\n%q", err, missing(), shown())
		case <-deadline:
			_ = cmd.Process.Kill()
			t.Fatalf("the status line never showed %q; terminal:\n%q", missing(), shown())
		case <-time.After(100 * time.Millisecond):
		}
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	select {
	case <-exited:
	case <-time.After(2 * time.Minute):
		_ = cmd.Process.Kill()
		t.Fatal("the demo did not stop on Ctrl-C")
	}
	d.noNodesLeft(t)
}
