package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMain lets the test binary stand in for the faultline binary: with
// FAULTLINE_AS_MAIN=1 (or as a demo store node) it runs the CLI on its
// arguments instead of the tests.
func TestMain(m *testing.M) {
	// A demo store node started on a remote node by the demo recipe runs
	// this binary too (node.faultline() uploads it), without our env; so
	// does a node of examples/binkv.
	if os.Getenv("FAULTLINE_AS_MAIN") == "1" || len(os.Args) > 1 && (os.Args[1] == "demo-node" || os.Args[1] == "binkv-node") {
		os.Exit(execute(os.Args[1:]))
	}
	os.Exit(m.Run())
}

// faultlineCmd returns a command running the CLI in a child process.
func faultlineCmd(args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "FAULTLINE_AS_MAIN=1")
	return cmd
}

// A controller killed with SIGKILL mid-run leaves a history that check accepts.
func TestKilledRunLeavesCheckableHistory(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "long.star")
	src := `
load("@stdlib//workloads.star", "cas_register")
scenario(name = "long", client = client.register(), workload = gen.stagger("1ms", cas_register()),
         checker = check.linearizable(model = "cas-register"),
         budgets = {"smoke": budget(duration = "5m")})
`
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "sessions")
	cmd := faultlineCmd("run", script, "--realtime", "--seed", "3", "--out", out)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()

	// Wait until the journal has been flushed at least a few times.
	var hist string
	for i := 0; i < 600; i++ {
		matches, _ := filepath.Glob(filepath.Join(out, "long", "*", "artifacts", "long", "history.jsonl"))
		if len(matches) == 1 {
			if n := countLines(matches[0]); n > 200 {
				hist = matches[0]
				break
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	if hist == "" {
		t.Fatal("the run never journaled 200 ops")
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()

	check := faultlineCmd("check", "--model", "cas-register", hist)
	res, err := check.CombinedOutput()
	if err != nil {
		t.Fatalf("check of the killed run's history failed: %v\n%s", err, res)
	}
	if !strings.Contains(string(res), "VALID") {
		t.Fatalf("unexpected check output: %s", res)
	}
}

func countLines(path string) int {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	n := 0
	for s := bufio.NewScanner(f); s.Scan(); {
		n++
	}
	return n
}
