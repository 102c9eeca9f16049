package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/faultline/faultline/internal/clitest"
	"github.com/faultline/faultline/internal/testfile"
	"github.com/faultline/faultline/session"
)

// The demo is faultline's first impression: it must work as a user without
// root, find nothing wrong with the correct store (every fault landed),
// find and reproduce the stale-reads bug, replay and reduce that failure,
// and leave no process behind however it ends. These tests run the real
// thing: a 3-node raft cluster of this binary on this host.
func TestDemo(t *testing.T) {
	d := newDemoRunner(t)

	t.Run("clean store passes with every fault landed", func(t *testing.T) {
		code, stdout, stderr := d.run(t, "demo", "--out", d.out("clean"), "--seed", "7")
		if code != exitOK || !clitest.HasRow(stdout, "S1", "PASS-smoke") || !strings.Contains(stdout, "session: DONE") {
			finding, _ := os.ReadFile(filepath.Join(clitest.OnlySession(t, filepath.Join(d.out("clean"), "demo-store")), "findings", "S1.md"))
			t.Fatalf("exit %d, want 0 with S1 PASS-smoke\n%s\n%s\n%s", code, stdout, stderr, finding)
		}
		for _, want := range []string{"report: ", "replay: faultline replay "} {
			if !strings.Contains(stdout, want) {
				t.Errorf("demo output lacks %q:\n%s", want, stdout)
			}
		}
		dir := clitest.OnlySession(t, filepath.Join(d.out("clean"), "demo-store"))
		testfile.MustContain(t, filepath.Join(dir, "findings", "report.md"), "**DONE**", "| S1 |", "PASS-smoke")
		testfile.MustContain(t, filepath.Join(dir, "findings", "S1.md"), "every fault landed",
			"[x] RF3 Fault injected", "[x] RF4 No silent no-op", "[x] RF8 Recovery completed", "[x] SA1 Checker rejects wrong histories")
		landed := clitest.NemesisOps(t, filepath.Join(dir, "artifacts", "S1", "history.jsonl"))
		for _, f := range []string{"start-partition", "stop-partition", "kill", "start", "pause", "resume"} {
			if landed[f] != "landed" {
				t.Errorf("%s: %q, want landed (read back from the mesh or the process table)", f, landed[f])
			}
		}
		d.noNodesLeft(t)
		d.noLocalDirsLeft(t)
	})

	var failed string
	t.Run("stale-reads bug is found and reproduced", func(t *testing.T) {
		code, stdout, stderr := d.run(t, "demo", "--bug", "stale-reads", "--out", d.out("bug"), "--seed", "7")
		if code != exitFail || !clitest.HasRow(stdout, "S1", "FAIL-reproducible") {
			t.Fatalf("exit %d, want 1 with S1 FAIL-reproducible\n%s\n%s", code, stdout, stderr)
		}
		failed = clitest.OnlySession(t, filepath.Join(d.out("bug"), "demo-store"))
		testfile.MustContain(t, filepath.Join(failed, "findings", "S1.md"), "not linearizable", "reproduced in 1 of 1 re-runs",
			"artifacts/S1: the original run: not linearizable", "artifacts/S1-rerun1: invalid again")
		testfile.MustContain(t, filepath.Join(failed, "artifacts", "S1", "checker.txt"), "cannot take effect after the longest linearizable prefix")
		d.noNodesLeft(t)
		d.noLocalDirsLeft(t)
	})
	if failed == "" {
		t.Fatal("no failed session to replay")
	}

	t.Run("replay reproduces the anomaly", func(t *testing.T) {
		code, stdout, stderr := d.run(t, "replay", failed, "--out", d.out("replay"))
		if code != exitFail || !strings.Contains(stdout, "S1: reproduced: yes, the same anomaly") {
			t.Fatalf("exit %d, want 1 and the anomaly reproduced\n%s\n%s", code, stdout, stderr)
		}
		var rep struct {
			ReplayOf  string `json:"replay_of"`
			Scenarios []struct {
				Original string `json:"original"`
				Now      []string
			} `json:"scenarios"`
		}
		testfile.ReadJSON(t, filepath.Join(clitest.OnlySession(t, filepath.Join(d.out("replay"), "replay-demo-store")), "replay.json"), &rep)
		if rep.ReplayOf != failed || len(rep.Scenarios) != 1 {
			t.Errorf("replay.json does not link the original session: %+v", rep)
		}
		d.noNodesLeft(t)
		d.noLocalDirsLeft(t)
	})

	t.Run("reduce finds a smaller failing schedule", func(t *testing.T) {
		code, stdout, stderr := d.run(t, "reduce", failed, "--max-runs", "4", "--out", d.out("reduce"))
		if code != exitOK || !strings.Contains(stdout, "replay: faultline replay ") {
			t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
		}
		var rec session.Reduction
		dir := clitest.OnlySession(t, filepath.Join(d.out("reduce"), "reduce-demo-store"))
		testfile.ReadJSON(t, filepath.Join(dir, "reduce.json"), &rec)
		if rec.EventsAfter >= rec.EventsBefore || rec.Reproduced < 1 {
			t.Errorf("reduce: %d events -> %d, reproduced %d of %d; want fewer events that still fail", rec.EventsBefore, rec.EventsAfter, rec.Reproduced, rec.Of)
		}
		if _, err := os.Stat(rec.Schedule); err != nil {
			t.Errorf("minimal schedule: %v", err)
		}
		if !strings.Contains(rec.HistoryShrink, "ops ->") {
			t.Errorf("history not shrunk: %s", rec.HistoryShrink)
		}
		d.noNodesLeft(t)
		d.noLocalDirsLeft(t)
	})

	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGKILL} {
		t.Run("interrupted by "+sig.String()+" leaves no process", func(t *testing.T) {
			cmd := d.cmd("demo", "--out", d.out("interrupted-"+strconv.Itoa(int(sig))), "--seed", "7")
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			deadline := time.Now().Add(60 * time.Second)
			for len(d.nodes()) < 3 {
				if time.Now().After(deadline) {
					t.Fatal("the demo's nodes never started")
				}
				time.Sleep(100 * time.Millisecond)
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			_ = cmd.Wait()
			d.noNodesLeft(t)
			if sig != syscall.SIGKILL {
				d.noLocalDirsLeft(t) // a SIGKILLed run cannot clean up: d.tmp goes with the test
			}
		})
	}
}

// demoRunner runs this test binary as faultline, as an unprivileged user
// when the tests run as root (CI), from a copy every user can execute.
type demoRunner struct {
	bin  string
	bins []string // bin and its resolved path: argv[0] of the demo nodes this test starts
	root string   // world-writable session roots
	tmp  string   // the commands' TMPDIR, so their faultline-local-* node directories are this test's
	uid  int      // -1: run as ourselves
}

func newDemoRunner(t *testing.T) *demoRunner {
	dir, err := os.MkdirTemp("", "faultline-demo-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	d := &demoRunner{bin: filepath.Join(dir, "faultline"), root: filepath.Join(dir, "out"), tmp: filepath.Join(dir, "tmp"), uid: -1}
	self, err := os.Open(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	defer self.Close()
	bin, err := os.OpenFile(d.bin, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(bin, self); err != nil {
		t.Fatal(err)
	}
	if err := bin.Close(); err != nil {
		t.Fatal(err)
	}
	// node.faultline() is os.Executable(), which resolves symlinks (say, in $TMPDIR).
	resolved, err := filepath.EvalSymlinks(d.bin)
	if err != nil {
		t.Fatal(err)
	}
	d.bins = []string{d.bin, resolved}
	for _, p := range []string{d.root, d.tmp} {
		if err := os.MkdirAll(p, 0o777); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{dir, d.root, d.tmp} {
		if err := os.Chmod(p, 0o777); err != nil {
			t.Fatal(err)
		}
	}
	if os.Geteuid() == 0 {
		d.uid = 65534 // nobody: the demo must need no root
	}
	return d
}

func (d *demoRunner) out(name string) string { return filepath.Join(d.root, name) }

func (d *demoRunner) cmd(args ...string) *exec.Cmd {
	cmd := exec.Command(d.bin, args...)
	// FAULTLINE_BINARY is dropped (the last value wins) so the nodes run d.bin,
	// which is how d.nodes tells this test's nodes from anyone else's.
	cmd.Env = append(os.Environ(), "FAULTLINE_AS_MAIN=1", "HOME="+d.root, "TMPDIR="+d.tmp, "FAULTLINE_BINARY=")
	cmd.Dir = d.root
	if d.uid >= 0 {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(d.uid), Gid: uint32(d.uid)}}
	}
	return cmd
}

func (d *demoRunner) run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	cmd := d.cmd(args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, stdout.String(), stderr.String()
}

// noNodesLeft fails if a demo node this test started outlived the command
// that started it (waiting a moment for the kernel to deliver parent-death
// signals).
func (d *demoRunner) noNodesLeft(t *testing.T) {
	t.Helper()
	for i := 0; i < 50 && len(d.nodes()) > 0; i++ {
		time.Sleep(100 * time.Millisecond)
	}
	if left := d.nodes(); len(left) > 0 {
		t.Errorf("demo node processes left behind: %v", left)
	}
}

// nodes lists live demo store nodes that this test started: processes
// running "<d.bin> demo-node". The binary is this test's own copy, so a demo
// another user or test runs on the host is not counted. The parent chain
// would not do: a node that outlives a SIGKILLed demo is reparented to init,
// and that is exactly the leftover to catch.
func (d *demoRunner) nodes() []string {
	var out []string
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		argv := strings.Split(strings.TrimSuffix(string(data), "\x00"), "\x00")
		if len(argv) < 2 || argv[1] != "demo-node" || !slices.Contains(d.bins, argv[0]) {
			continue
		}
		stat, err := os.ReadFile(filepath.Join(filepath.Dir(p), "stat"))
		if err != nil || bytes.Contains(stat, []byte(") Z ")) {
			continue // gone, or a zombie waiting for its parent
		}
		out = append(out, filepath.Base(filepath.Dir(p))+": "+strings.Join(argv, " "))
	}
	return out
}

// noLocalDirsLeft fails if a command that ended on its own (or on SIGINT)
// left a faultline-local-* node directory behind: the session keeps the
// node logs, the temporary directory must go.
func (d *demoRunner) noLocalDirsLeft(t *testing.T) {
	t.Helper()
	left, err := filepath.Glob(filepath.Join(d.tmp, "faultline-local-*"))
	if err != nil {
		t.Fatal(err)
	}
	if len(left) > 0 {
		t.Errorf("temporary node directories left behind: %v", left)
	}
}
