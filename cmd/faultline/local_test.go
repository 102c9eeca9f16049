package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSweepLocalRoots: a --local nodes root whose run died (its owner
// file's lock is free) is removed after its node logs are copied into the
// last session it recorded; a live run's root, a directory without an owner
// file and another user's directory are left alone.
func TestSweepLocalRoots(t *testing.T) {
	tmp := t.TempDir()
	session := t.TempDir()
	outside := filepath.Join(t.TempDir(), "secret.log")
	write := func(p, data string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(outside, "not the node's")
	// A killed run: owner file unlocked, one session recorded (the first
	// named is gone, the last exists), logs and data in its nodes.
	stale := filepath.Join(tmp, localRootPattern+"stale")
	write(filepath.Join(stale, localOwnerFile), "pid 4242\nsession /nonexistent/faultline-gone\nsession "+session+"\n")
	write(filepath.Join(stale, "n1", "demo-store", "node.log"), "n1 log")
	write(filepath.Join(stale, "n2", "demo-store", "node.log.1"), "n2 rotated")
	write(filepath.Join(stale, "n2", "demo-store", "data", "kv"), "data")
	if err := os.Symlink(outside, filepath.Join(stale, "n2", "link.log")); err != nil {
		t.Fatal(err)
	}
	// A killed run that wrote no session yet.
	early := filepath.Join(tmp, localRootPattern+"early")
	write(filepath.Join(early, localOwnerFile), "pid 4343\n")
	write(filepath.Join(early, "n1", "x.log"), "x")
	// A live run: the lock is held.
	live := filepath.Join(tmp, localRootPattern+"live")
	if _, err := claimLocalRootAt(t, live); err != nil {
		t.Fatal(err)
	}
	write(filepath.Join(live, "n1", "node.log"), "live")
	// Not faultline's: no owner file, or another user's.
	noOwner := filepath.Join(tmp, localRootPattern+"noowner")
	write(filepath.Join(noOwner, "n1", "node.log"), "someone's")
	kept := []string{live, noOwner}
	if os.Geteuid() == 0 {
		// Another user's can only be made as root; CI runs this as root.
		foreign := filepath.Join(tmp, localRootPattern+"foreign")
		write(filepath.Join(foreign, localOwnerFile), "pid 1\n")
		if err := os.Chown(foreign, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		kept = append(kept, foreign)
	}

	msgs := sweepLocalRoots(tmp)

	for _, gone := range []string{stale, early} {
		if _, err := os.Stat(gone); !os.IsNotExist(err) {
			t.Errorf("%s not swept: %v", gone, err)
		}
	}
	for _, k := range kept {
		if _, err := os.Stat(k); err != nil {
			t.Errorf("%s was removed: %v", k, err)
		}
	}
	for rel, want := range map[string]string{"n1/demo-store/node.log": "n1 log", "n2/demo-store/node.log.1": "n2 rotated"} {
		got, err := os.ReadFile(filepath.Join(session, "logs", "local-nodes", rel))
		if err != nil || string(got) != want {
			t.Errorf("kept log %s = %q, %v; want %q", rel, got, err, want)
		}
	}
	for _, rel := range []string{"n2/demo-store/data/kv", "n2/link.log", localOwnerFile} {
		if _, err := os.Lstat(filepath.Join(session, "logs", "local-nodes", rel)); err == nil {
			t.Errorf("%s was copied; only the nodes' own log files are", rel)
		}
	}
	all := strings.Join(msgs, "\n")
	if len(msgs) != 2 || !strings.Contains(all, "pid 4242") || !strings.Contains(all, "2 node log(s)") || !strings.Contains(all, "pid 4343") {
		t.Errorf("messages:\n%s", all)
	}
}

// claimLocalRootAt makes dir and claims it as a live run would; the lock
// is held until the test ends.
func claimLocalRootAt(t *testing.T, dir string) (*os.File, error) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	f, err := claimLocalRoot(dir)
	if err == nil {
		t.Cleanup(func() { f.Close() })
	}
	return f, err
}

// TestLocalPoolOwnsItsRoot: a --local pool's root holds a locked owner file
// naming this process and, once noted, its session; the cleanup removes the
// root.
func TestLocalPoolOwnsItsRoot(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir()) // the pool's sweep looks at this directory only
	pool, cleanup, err := localPool([]string{"n1"}, 1, os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	n, _ := pool.Node("n1")
	root := filepath.Dir(n.Dir)
	noteLocalSession(pool, "/some/session")
	data, err := os.ReadFile(filepath.Join(root, localOwnerFile))
	if err != nil {
		t.Fatal(err)
	}
	if want := "session /some/session\n"; !strings.HasSuffix(string(data), want) || !strings.HasPrefix(string(data), "pid ") {
		t.Errorf("owner file %q", data)
	}
	f, err := os.Open(filepath.Join(root, localOwnerFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err == nil {
		t.Error("the owner file of a live pool is not locked")
	}
	f.Close()
	if msgs := sweepLocalRoots(filepath.Dir(root)); len(msgs) != 0 {
		t.Errorf("a sweep touched a live root: %q", msgs)
	}
	if err := cleanup(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(root); !os.IsNotExist(err) {
		t.Errorf("root %s left after cleanup: %v", root, err)
	}
}

// slowLocalScript starts a daemon writing a log on each --local node, then
// runs a workload for minutes (in real time, with --realtime): long enough
// to be killed mid-run.
const slowLocalScript = `load("@stdlib//workloads.star", "cas_register")

def setup(node):
    node.start_daemon(["sh", "-c", "echo started on " + node.name + "; exec sleep 300"],
                      pidfile = node.dir + "/d.pid", logfile = node.dir + "/d.log")

def teardown(node):
    pass

scenario(
    name = "slow",
    db = struct(name = "d", setup = setup, teardown = teardown, logs = []),
    client = client.register(),
    workload = gen.stagger("50ms", cas_register(values = 5)),
    checker = check.stats(),
    budgets = {"smoke": budget(duration = "5m", min_ops = 1)},
)
`

// TestKilledLocalRunKeepsNodeLogs: a --local run killed with SIGKILL
// leaves its node directories (nothing can run after SIGKILL); the next
// --local run's sweep removes them and puts the nodes' logs into the
// killed run's session.
func TestKilledLocalRunKeepsNodeLogs(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs faultline")
	}
	bin := buildFaultline(t)
	dir, out, tmp := t.TempDir(), t.TempDir(), t.TempDir()
	script := filepath.Join(dir, "slow.star")
	if err := os.WriteFile(script, []byte(slowLocalScript), 0o644); err != nil {
		t.Fatal(err)
	}
	// --realtime: an in-process client would otherwise run the 5 minutes in
	// simulated time, finishing (and cleaning up) before the test looks.
	cmd := exec.Command(bin, "run", script, "--local", "--yes", "--realtime", "--out", out)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait until every node's daemon logged and the run noted its session.
	var root string
	for deadline := time.Now().Add(2 * time.Minute); ; {
		roots, _ := filepath.Glob(filepath.Join(tmp, localRootPattern+"*"))
		var owner []byte
		var logs []string
		if len(roots) == 1 {
			owner, _ = os.ReadFile(filepath.Join(roots[0], localOwnerFile))
			logs, _ = filepath.Glob(filepath.Join(roots[0], "n*", "d.log"))
			if strings.Contains(string(owner), "session ") && len(logs) == 3 {
				root = roots[0]
				break
			}
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			var files []string
			filepath.Walk(tmp, func(p string, _ os.FileInfo, _ error) error { files = append(files, p); return nil })
			t.Fatalf("the run never got its nodes going: roots %q, owner file %q, logs %q, files %q\nstderr:\n%s",
				roots, owner, logs, files, stderr.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	if _, err := os.Stat(root); err != nil {
		t.Fatalf("the killed run's nodes are gone before any sweep (%v): the test proves nothing", err)
	}
	msgs := sweepLocalRoots(tmp)
	if _, err := os.Stat(root); !os.IsNotExist(err) {
		t.Errorf("the sweep left %s: %v (%q)", root, err, msgs)
	}
	sessions, _ := filepath.Glob(filepath.Join(out, "slow", "*"))
	if len(sessions) != 1 {
		t.Fatalf("sessions %q, want the killed run's", sessions)
	}
	for _, n := range []string{"n1", "n2", "n3"} {
		b, err := os.ReadFile(filepath.Join(sessions[0], "logs", "local-nodes", n, "d.log"))
		if err != nil || !strings.Contains(string(b), "started on "+n) {
			t.Errorf("%s's log in the session: %q, %v (sweep said %q)", n, b, err, msgs)
		}
	}
}
