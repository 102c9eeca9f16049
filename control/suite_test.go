package control

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/faultline/faultline/internal/integration"
	"github.com/faultline/faultline/internal/testdaemon"
)

// remoteSuite checks the Cmd semantics every Remote shares. The node must be
// this host (local, or ssh to 127.0.0.1), so results can be checked on disk.
func remoteSuite(t *testing.T, r Remote) {
	ctx := context.Background()
	run := func(t *testing.T, c Cmd) Result {
		t.Helper()
		res, err := r.Run(ctx, c)
		if err != nil {
			t.Fatalf("Run(%+v): %v", c, err)
		}
		return res
	}

	t.Run("argv escaping", func(t *testing.T) {
		args := []string{"two words", "it's", `"dq"`, "$HOME", "a;b", "$(id)", "`id`", "*", "", "back\\slash", "new\nline", "-n"}
		res := run(t, Cmd{Argv: append([]string{"printf", `%s\0`}, args...)})
		got := strings.Split(strings.TrimSuffix(string(res.Stdout), "\x00"), "\x00")
		if !equalStrings(got, args) {
			t.Errorf("arguments came back as %q, want %q", got, args)
		}
	})
	t.Run("raw", func(t *testing.T) {
		res := run(t, Cmd{Raw: "echo $((1+2)) | tr 3 x; echo done"})
		if string(res.Stdout) != "x\ndone\n" {
			t.Errorf("stdout = %q", res.Stdout)
		}
	})
	t.Run("dir", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "with space")
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		res := run(t, Cmd{Raw: "pwd; ls", Dir: dir})
		if got := strings.TrimSpace(string(res.Stdout)); got != dir {
			t.Errorf("pwd = %q, want %q", got, dir)
		}
		_, err := r.Run(ctx, Cmd{Raw: "echo ran", Dir: dir + "/missing"})
		var ee *ExitError
		if !errors.As(err, &ee) || bytes.Contains(ee.Stdout, []byte("ran")) {
			t.Errorf("cd into a missing dir: err = %v; the command must not run", err)
		}
	})
	t.Run("env", func(t *testing.T) {
		res := run(t, Cmd{Argv: []string{"sh", "-c", `printf '%s|%s' "$A" "$B_2"`},
			Env: map[string]string{"A": "x y 'q'", "B_2": "$HOME;"}})
		if string(res.Stdout) != "x y 'q'|$HOME;" {
			t.Errorf("stdout = %q", res.Stdout)
		}
	})
	t.Run("stdin", func(t *testing.T) {
		res := run(t, Cmd{Argv: []string{"cat"}, Stdin: []byte("line 1\nline 2")})
		if string(res.Stdout) != "line 1\nline 2" {
			t.Errorf("stdout = %q", res.Stdout)
		}
	})
	t.Run("non-zero exit", func(t *testing.T) {
		res, err := r.Run(ctx, Cmd{Raw: "echo out; echo err >&2; exit 3"})
		var ee *ExitError
		if !errors.As(err, &ee) {
			t.Fatalf("err = %v, want *ExitError", err)
		}
		if ee.Exit != 3 || string(ee.Stdout) != "out\n" || string(ee.Stderr) != "err\n" || ee.Node != r.Node() || ee.TimedOut {
			t.Errorf("ExitError = %+v", ee)
		}
		if res.Exit != 3 || string(res.Stdout) != "out\n" {
			t.Errorf("Result = %+v", res)
		}
		if errors.Is(err, ErrIndeterminate) {
			t.Errorf("a plain exit is not indeterminate")
		}
	})
	t.Run("killed by signal", func(t *testing.T) {
		_, err := r.Run(ctx, Cmd{Argv: []string{"sh", "-c", "kill -KILL $$"}})
		var ee *ExitError
		if !errors.As(err, &ee) || ee.Exit != 137 {
			t.Fatalf("err = %v, want exit 137", err)
		}
	})
	t.Run("remote timeout", func(t *testing.T) {
		res, err := r.Run(ctx, Cmd{Argv: []string{"sleep", "30"}, Timeout: 300 * time.Millisecond})
		var ee *ExitError
		if !errors.Is(err, ErrTimeout) || !errors.As(err, &ee) || !ee.TimedOut || res.Exit != 124 {
			t.Fatalf("err = %v, result %+v; want a timed-out ExitError", err, res)
		}
	})
	t.Run("cancel", func(t *testing.T) {
		dir := t.TempDir()
		started, pidfile := filepath.Join(dir, "started"), filepath.Join(dir, "pid")
		ctx := testdaemon.CancelOnFile(t, started)
		var err error
		testdaemon.Within(t, 30*time.Second, "Run after cancel", func() {
			_, err = r.Run(ctx, Cmd{Raw: "echo $$ > " + Quote(pidfile) + "; touch " + Quote(started) + "; exec sleep 60"})
		})
		if !errors.Is(err, ErrIndeterminate) || !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want indeterminate and canceled", err)
		}
		if _, ok := r.(*localRemote); ok { // over ssh as root only a deadline stops it (next test)
			if pid := readPID(pidfile); pid == 0 || !testdaemon.WaitFor(10*time.Second, func() bool { return !testdaemon.Alive(pid) }) {
				t.Errorf("the cancelled command (pid %d) is still running", pid)
			}
		} else {
			syscall.Kill(readPID(pidfile), syscall.SIGKILL)
		}
	})
	t.Run("ctx deadline", func(t *testing.T) {
		pidfile := filepath.Join(t.TempDir(), "pid")
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		var err error
		testdaemon.Within(t, 30*time.Second, "Run past its ctx deadline", func() {
			_, err = r.Run(ctx, Cmd{Raw: "echo $$ > " + Quote(pidfile) + "; exec sleep 60"})
		})
		if !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, ErrTimeout) {
			t.Fatalf("err = %v, want the deadline or the remote timeout", err)
		}
		if pid := readPID(pidfile); pid == 0 || !testdaemon.WaitFor(20*time.Second, func() bool { return !testdaemon.Alive(pid) }) {
			t.Errorf("the command (pid %d) outlived its ctx deadline on the node", pid)
		}
	})
	t.Run("sudo as root", func(t *testing.T) {
		integration.NeedRoot(t) // sudo is skipped only when already root
		res := run(t, Cmd{Argv: []string{"id", "-u"}, Sudo: true, Dir: "/"})
		if strings.TrimSpace(string(res.Stdout)) != "0" {
			t.Errorf("id -u = %q", res.Stdout)
		}
	})
	t.Run("upload download", func(t *testing.T) { transferSuite(t, r) })
	t.Run("daemon", func(t *testing.T) { daemonSuite(t, r) })
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// transferSuite uploads and downloads a large file over an existing one
// while a watcher reads the destination: it must always see the old content
// or the new content, never a mix or a prefix.
func transferSuite(t *testing.T, r Remote) {
	ctx := context.Background()
	dir := t.TempDir()
	oldData := []byte("old content\n")
	newData := make([]byte, 8<<20+123)
	rnd := rand.New(rand.NewPCG(7, 8))
	for i := range newData {
		newData[i] = byte(rnd.Uint32())
	}
	src := filepath.Join(dir, "src.bin")
	if err := os.WriteFile(src, newData, 0o640); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		copy func(dst string) error
	}{
		{"upload", func(dst string) error { return r.Upload(ctx, src, dst) }},
		{"download", func(dst string) error { return r.Download(ctx, src, dst) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sub := filepath.Join(dir, tc.name)
			if err := os.Mkdir(sub, 0o755); err != nil {
				t.Fatal(err)
			}
			dst := filepath.Join(sub, "dst.bin")
			if err := os.WriteFile(dst, oldData, 0o600); err != nil {
				t.Fatal(err)
			}
			seen, bad := watchFile(dst, sha256.Sum256(oldData), sha256.Sum256(newData), func() {
				if err := tc.copy(dst); err != nil {
					t.Errorf("%s: %v", tc.name, err)
				}
			})
			if bad != "" {
				t.Errorf("watcher saw a partial file: %s", bad)
			}
			got, err := os.ReadFile(dst)
			if err != nil || !bytes.Equal(got, newData) {
				t.Fatalf("destination holds %d bytes (err %v), want the %d new bytes", len(got), err, len(newData))
			}
			if st, _ := os.Stat(dst); st.Mode().Perm() != 0o640 {
				t.Errorf("mode = %v, want 0640 from the source", st.Mode().Perm())
			}
			if entries, _ := os.ReadDir(sub); len(entries) != 1 {
				t.Errorf("temporary files left behind: %v", entries)
			}
			t.Logf("watcher read the destination %d times", seen)
		})
	}
	t.Run("missing source", func(t *testing.T) {
		if err := r.Upload(ctx, filepath.Join(dir, "nope"), filepath.Join(dir, "x")); err == nil {
			t.Error("upload of a missing file succeeded")
		}
		if err := r.Download(ctx, filepath.Join(dir, "nope"), filepath.Join(dir, "x")); err == nil {
			t.Error("download of a missing file succeeded")
		}
		if err := r.Upload(ctx, dir, filepath.Join(dir, "x")); err == nil {
			t.Error("upload of a directory succeeded")
		}
	})
}

// watchFile reads path repeatedly while fn runs and reports how many reads it
// made and the first one that matched neither digest.
func watchFile(path string, oldSum, newSum [32]byte, fn func()) (int, string) {
	var stop atomic.Bool
	type report struct {
		n   int
		bad string
	}
	done := make(chan report)
	go func() {
		var rep report
		for !stop.Load() {
			b, err := os.ReadFile(path)
			rep.n++
			if err != nil {
				rep.bad = err.Error()
				break
			}
			if s := sha256.Sum256(b); s != oldSum && s != newSum {
				rep.bad = strconv.Itoa(len(b)) + " bytes matching neither version"
				break
			}
		}
		done <- rep
	}()
	fn()
	stop.Store(true)
	rep := <-done
	return rep.n, rep.bad
}

// daemonSuite runs the test binary as a daemon through the helpers.
func daemonSuite(t *testing.T, r Remote) {
	ctx := context.Background()
	dir := t.TempDir()
	port := testdaemon.FreePort(t)
	token := "faultline-test-daemon-" + strconv.Itoa(port)
	d := Daemon{
		Argv:    testdaemon.Argv(t, token),
		Pidfile: "run/d.pid",
		Logfile: "log/d.log",
		Chdir:   dir,
		Env:     map[string]string{testdaemon.EnvListen: strconv.Itoa(port)},
	}
	pid, err := StartDaemon(ctx, r, d)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		StopDaemon(context.Background(), r, Stop{Pidfile: filepath.Join(dir, "run/d.pid"), Signal: "KILL"})
	})
	if err := AwaitPort(ctx, r, port, 20*time.Second); err != nil {
		t.Fatalf("await_port: %v (log: %s)", err, readFile(filepath.Join(dir, "log/d.log")))
	}
	if got := strings.TrimSpace(readFile(filepath.Join(dir, "run/d.pid"))); got != strconv.Itoa(pid) {
		t.Errorf("pid file holds %q, StartDaemon returned %d", got, pid)
	}
	if log := readFile(filepath.Join(dir, "log/d.log")); !strings.Contains(log, "listening") {
		t.Errorf("log file = %q", log)
	}
	if again, err := StartDaemon(ctx, r, d); err != nil || again != pid {
		t.Errorf("second start = %d, %v; want the running pid %d", again, err, pid)
	}
	if n, err := SignalPID(ctx, r, pid, "CONT", false); n != 1 || err != nil {
		t.Errorf("SignalPID = %d, %v", n, err)
	}
	// The signalling shell's own command line holds the token too: it must
	// not count (or kill) itself or its parents.
	if n, err := SignalMatching(ctx, r, token, "SIGCONT", false); n != 1 || err != nil {
		t.Errorf("SignalMatching = %d, %v; want 1", n, err)
	}
	if ok, err := Exists(ctx, r, filepath.Join(dir, "run/d.pid")); !ok || err != nil {
		t.Errorf("Exists(pid file) = %v, %v", ok, err)
	}
	stopped, err := StopDaemon(ctx, r, Stop{Pidfile: filepath.Join(dir, "run/d.pid")})
	if !stopped || err != nil {
		t.Fatalf("StopDaemon = %v, %v", stopped, err)
	}
	if testdaemon.Alive(pid) {
		t.Errorf("daemon %d still alive after stop", pid)
	}
	if ok, err := Exists(ctx, r, filepath.Join(dir, "run/d.pid")); ok || err != nil {
		t.Errorf("pid file left behind: %v, %v", ok, err)
	}
	if stopped, err := StopDaemon(ctx, r, Stop{Pidfile: filepath.Join(dir, "run/d.pid")}); stopped || err != nil {
		t.Errorf("second stop = %v, %v; want false, nil", stopped, err)
	}
	if n, err := SignalPID(ctx, r, pid, "TERM", false); n != 0 || err != nil {
		t.Errorf("SignalPID on a dead pid = %d, %v; want 0, nil", n, err)
	}
	err = AwaitPort(ctx, r, port, 300*time.Millisecond)
	if !errors.Is(err, ErrTimeout) {
		t.Errorf("await_port on a closed port: %v, want ErrTimeout", err)
	}

	t.Run("stubborn daemon gets KILL", func(t *testing.T) {
		port := testdaemon.FreePort(t)
		d := Daemon{Argv: testdaemon.Argv(t, "stubborn"), Pidfile: filepath.Join(dir, "s.pid"),
			Env: map[string]string{testdaemon.EnvListen: strconv.Itoa(port), testdaemon.EnvIgnoreTerm: "1"}}
		pid, err := StartDaemon(ctx, r, d)
		if err != nil {
			t.Fatal(err)
		}
		if err := AwaitPort(ctx, r, port, 20*time.Second); err != nil {
			t.Fatal(err)
		}
		stopped, err := StopDaemon(ctx, r, Stop{Pidfile: d.Pidfile, Grace: 300 * time.Millisecond})
		if !stopped || err != nil || testdaemon.Alive(pid) {
			t.Errorf("StopDaemon = %v, %v; alive %v", stopped, err, testdaemon.Alive(pid))
		}
	})
}

func readPID(p string) int {
	pid, _ := strconv.Atoi(strings.TrimSpace(readFile(p)))
	return pid
}

func readFile(p string) string {
	b, _ := os.ReadFile(p)
	return string(b)
}
