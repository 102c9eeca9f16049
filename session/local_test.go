package session

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
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
	stale := filepath.Join(tmp, LocalRootPattern+"stale")
	write(filepath.Join(stale, LocalOwnerFile), "pid 4242\nsession /nonexistent/faultline-gone\nsession "+session+"\n")
	write(filepath.Join(stale, "n1", "demo-store", "node.log"), "n1 log")
	write(filepath.Join(stale, "n2", "demo-store", "node.log.1"), "n2 rotated")
	write(filepath.Join(stale, "n2", "demo-store", "data", "kv"), "data")
	if err := os.Symlink(outside, filepath.Join(stale, "n2", "link.log")); err != nil {
		t.Fatal(err)
	}
	// A killed run that wrote no session yet.
	early := filepath.Join(tmp, LocalRootPattern+"early")
	write(filepath.Join(early, LocalOwnerFile), "pid 4343\n")
	write(filepath.Join(early, "n1", "x.log"), "x")
	// A live run: the lock is held.
	live := filepath.Join(tmp, LocalRootPattern+"live")
	if _, err := claimLocalRootAt(t, live); err != nil {
		t.Fatal(err)
	}
	write(filepath.Join(live, "n1", "node.log"), "live")
	// Not faultline's: no owner file, or another user's.
	noOwner := filepath.Join(tmp, LocalRootPattern+"noowner")
	write(filepath.Join(noOwner, "n1", "node.log"), "someone's")
	kept := []string{live, noOwner}
	if os.Geteuid() == 0 {
		// Another user's can only be made as root; CI runs this as root.
		foreign := filepath.Join(tmp, LocalRootPattern+"foreign")
		write(filepath.Join(foreign, LocalOwnerFile), "pid 1\n")
		if err := os.Chown(foreign, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		kept = append(kept, foreign)
	}

	msgs := SweepLocalRoots(tmp)

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
	for _, rel := range []string{"n2/demo-store/data/kv", "n2/link.log", LocalOwnerFile} {
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
	data, err := os.ReadFile(filepath.Join(root, LocalOwnerFile))
	if err != nil {
		t.Fatal(err)
	}
	if want := "session /some/session\n"; !strings.HasSuffix(string(data), want) || !strings.HasPrefix(string(data), "pid ") {
		t.Errorf("owner file %q", data)
	}
	f, err := os.Open(filepath.Join(root, LocalOwnerFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err == nil {
		t.Error("the owner file of a live pool is not locked")
	}
	f.Close()
	if msgs := SweepLocalRoots(filepath.Dir(root)); len(msgs) != 0 {
		t.Errorf("a sweep touched a live root: %q", msgs)
	}
	if err := cleanup(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(root); !os.IsNotExist(err) {
		t.Errorf("root %s left after cleanup: %v", root, err)
	}
}
