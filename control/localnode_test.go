package control

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestLocalPoolDaemons(t *testing.T) {
	root := t.TempDir()
	pool, sup, err := NewLocalPool(root, []string{"n1", "n2"})
	if err != nil {
		t.Fatal(err)
	}
	defer sup.Close()
	ctx := context.Background()
	n1, err := pool.Remote(ctx, "n1")
	if err != nil {
		t.Fatal(err)
	}
	n2, _ := pool.Remote(ctx, "n2")

	// Commands run in the node's directory.
	res, err := n1.Run(ctx, Cmd{Argv: []string{"pwd"}})
	if err != nil || strings.TrimSpace(string(res.Stdout)) != filepath.Join(root, "n1") {
		t.Fatalf("pwd on n1 = %q, %v; want %s", res.Stdout, err, filepath.Join(root, "n1"))
	}

	// The same command line on two nodes: signals reach only the node's own.
	d := Daemon{Argv: []string{"sleep", "300"}, Pidfile: "run/sleep.pid", Logfile: "log/sleep.log"}
	pid1, err := StartDaemon(ctx, n1, d)
	if err != nil {
		t.Fatal(err)
	}
	again, err := StartDaemon(ctx, n1, d)
	if err != nil || again != pid1 {
		t.Fatalf("second start = %d, %v; want the running pid %d", again, err, pid1)
	}
	pid2, err := StartDaemon(ctx, n2, d)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "n1", "run", "sleep.pid")); err != nil {
		t.Fatalf("pid file not under the node dir: %v", err)
	}

	lp := n1.(Processes)
	st, err := lp.SignalMatching(ctx, "^sleep 300$", syscall.SIGSTOP)
	if err != nil || len(st) != 1 || st[pid1] != "T" {
		t.Fatalf("pause n1 = %v, %v; want {%d: T}", st, err, pid1)
	}
	if s := procState(pid2); s == "T" || s == "gone" {
		t.Fatalf("n2's daemon is %s after pausing n1's", s)
	}
	if got := pool.mustResume(t, "n1"); len(got) != 1 {
		t.Fatalf("resume n1 = %v, want one daemon", got)
	}
	if s := procState(pid1); s == "T" || s == "gone" {
		t.Fatalf("n1's daemon is %s after resume", s)
	}
	st, err = lp.SignalMatching(ctx, "sleep", syscall.SIGKILL)
	if err != nil || st[pid1] != "gone" {
		t.Fatalf("kill n1 = %v, %v; want gone", st, err)
	}
	stopped, err := StopDaemon(ctx, n2, Stop{Pidfile: "run/sleep.pid"})
	if err != nil || !stopped {
		t.Fatalf("stop n2 = %v, %v", stopped, err)
	}
	if s := procState(pid2); s != "gone" {
		t.Fatalf("n2's daemon is %s after stop", s)
	}
}

func TestSupervisorCloseKillsEverything(t *testing.T) {
	pool, sup, err := NewLocalPool(t.TempDir(), []string{"n1"})
	if err != nil {
		t.Fatal(err)
	}
	r, _ := pool.Remote(context.Background(), "n1")
	pid, err := StartDaemon(context.Background(), r, Daemon{Argv: []string{"sh", "-c", "sleep 300 & wait"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := sup.Close(); err != nil {
		t.Fatal(err)
	}
	if s := procState(pid); s != "gone" {
		t.Fatalf("daemon is %s after Close", s)
	}
	if _, err := StartDaemon(context.Background(), r, Daemon{Argv: []string{"true"}}); err == nil {
		t.Fatal("start after Close succeeded")
	}
}

func (p *Pool) mustResume(t *testing.T, node string) []string {
	t.Helper()
	r, err := p.Remote(context.Background(), node)
	if err != nil {
		t.Fatal(err)
	}
	got, err := r.(Processes).Resume(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestLocalPoolRejectsDotNames: a local node is a directory named after
// it, so "." and ".." (the root itself, or outside it) are refused.
func TestLocalPoolRejectsDotNames(t *testing.T) {
	for _, name := range []string{".", "..", "..."} {
		if _, _, err := NewLocalPool(t.TempDir(), []string{"n1", name}); err == nil || !strings.Contains(err.Error(), "names no directory") {
			t.Errorf("NewLocalPool(%q) = %v, want it refused", name, err)
		}
	}
}
