package control

import (
	"context"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/faultline/faultline/internal/testdaemon"
	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"
)

func dialTest(t testing.TB, s *testSSHD, cfg SSHConfig) Remote {
	t.Helper()
	r, err := DialSSH(context.Background(), s.node, cfg)
	if err != nil {
		t.Fatalf("DialSSH: %v\nsshd log: %s", err, s.log.String())
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func TestSSHRemote(t *testing.T) {
	s := startSSHD(t, sshdOptions{})
	r := dialTest(t, s, s.config())
	if r.Node() != "sshd" {
		t.Errorf("Node() = %q", r.Node())
	}
	remoteSuite(t, r)
}

func TestSSHHostKeys(t *testing.T) {
	s := startSSHD(t, sshdOptions{})
	ctx := context.Background()
	dial := func(cfg SSHConfig) error {
		r, err := DialSSH(ctx, s.node, cfg)
		if err == nil {
			r.Close()
		}
		return err
	}
	otherKey := func() ssh.PublicKey {
		k, err := ssh.NewPublicKey(newEd25519(t).Public())
		if err != nil {
			t.Fatal(err)
		}
		return k
	}()

	t.Run("strict rejects an unknown host", func(t *testing.T) {
		cfg := s.config()
		cfg.KnownHosts = filepath.Join(t.TempDir(), "known_hosts")
		if err := os.WriteFile(cfg.KnownHosts, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		err := dial(cfg)
		if !errors.Is(err, ErrHostKeyUnknown) || !strings.Contains(err.Error(), "--ssh-accept-new") {
			t.Fatalf("err = %v, want ErrHostKeyUnknown naming --ssh-accept-new", err)
		}
		if b, _ := os.ReadFile(cfg.KnownHosts); len(b) != 0 {
			t.Errorf("strict mode wrote known_hosts: %q", b)
		}
	})
	t.Run("strict needs the file", func(t *testing.T) {
		cfg := s.config()
		cfg.KnownHosts = filepath.Join(t.TempDir(), "missing")
		if err := dial(cfg); err == nil || !strings.Contains(err.Error(), "does not exist") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("accept-new records the key", func(t *testing.T) {
		cfg := s.config()
		cfg.KnownHosts = filepath.Join(t.TempDir(), "sub", "known_hosts") // created on first accept
		cfg.AcceptNew = true
		if err := dial(cfg); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(cfg.KnownHosts)
		want := "[127.0.0.1]:" + strconv.Itoa(s.node.Port) + " " + strings.TrimSpace(string(ssh.MarshalAuthorizedKey(s.hostKey)))
		if err != nil || strings.TrimSpace(string(b)) != want {
			t.Fatalf("known_hosts = %q, %v; want %q", b, err, want)
		}
		cfg.AcceptNew = false
		if err := dial(cfg); err != nil {
			t.Fatalf("strict dial after accept-new: %v", err)
		}
		cfg.AcceptNew = true
		if err := dial(cfg); err != nil {
			t.Fatal(err)
		}
		if again, _ := os.ReadFile(cfg.KnownHosts); string(again) != string(b) {
			t.Errorf("a known host was recorded twice: %q", again)
		}
	})
	t.Run("accept-new never accepts a changed key", func(t *testing.T) {
		cfg := s.config()
		cfg.KnownHosts = filepath.Join(t.TempDir(), "known_hosts")
		line := "[127.0.0.1]:" + strconv.Itoa(s.node.Port) + " " + string(ssh.MarshalAuthorizedKey(otherKey))
		if err := os.WriteFile(cfg.KnownHosts, []byte(line), 0o600); err != nil {
			t.Fatal(err)
		}
		cfg.AcceptNew = true
		if err := dial(cfg); !errors.Is(err, ErrHostKeyMismatch) {
			t.Fatalf("err = %v, want ErrHostKeyMismatch", err)
		}
	})
	t.Run("pinned key", func(t *testing.T) {
		cfg := s.config()
		cfg.KnownHosts = filepath.Join(t.TempDir(), "missing") // the pin replaces known_hosts
		cfg.PinnedKeys = map[string]string{"sshd": string(ssh.MarshalAuthorizedKey(s.hostKey))}
		if err := dial(cfg); err != nil {
			t.Fatalf("matching pin: %v", err)
		}
		cfg.PinnedKeys = map[string]string{"127.0.0.1": string(ssh.MarshalAuthorizedKey(otherKey))}
		if err := dial(cfg); !errors.Is(err, ErrHostKeyMismatch) {
			t.Fatalf("mismatched pin (by host): err = %v, want ErrHostKeyMismatch", err)
		}
		cfg.PinnedKeys = map[string]string{"sshd": "ssh-ed25519 not-base64"}
		if err := dial(cfg); err == nil || !strings.Contains(err.Error(), "pinned host key for sshd") {
			t.Fatalf("malformed pin: err = %v", err)
		}
	})
	t.Run("wrong client key", func(t *testing.T) {
		cfg := s.config()
		cfg.KeyFiles = []string{filepath.Join(t.TempDir(), "id")}
		writeKey(t, cfg.KeyFiles[0], newEd25519(t))
		if err := dial(cfg); err == nil || !strings.Contains(err.Error(), "unable to authenticate") {
			t.Fatalf("err = %v", err)
		}
	})
}

// TestSSHHostKeyAlgorithms: the server has ECDSA and ed25519 keys, the file
// only ed25519. x/crypto's default preference picks ECDSA and fails (shown
// first, so the test proves something); the per-host algorithms succeed.
func TestSSHHostKeyAlgorithms(t *testing.T) {
	s := startSSHD(t, sshdOptions{ecdsaToo: true})
	hk, err := newHostKeyPolicy(s.node, s.node.Addr(22), s.config())
	if err != nil {
		t.Fatal(err)
	}
	signer, err := ssh.NewSignerFromKey(s.clientPriv)
	if err != nil {
		t.Fatal(err)
	}
	_, err = ssh.Dial("tcp", s.node.Addr(22), &ssh.ClientConfig{User: "root", Auth: []ssh.AuthMethod{ssh.PublicKeys(signer)},
		HostKeyCallback: hk.callback, Timeout: 10 * time.Second})
	if !errors.Is(err, ErrHostKeyMismatch) {
		t.Fatalf("with default algorithms: err = %v, want a mismatch (the ECDSA key was offered)", err)
	}
	if want := []string{ssh.KeyAlgoED25519}; !equalStrings(hk.algorithms, want) {
		t.Errorf("algorithms = %v, want %v", hk.algorithms, want)
	}
	r := dialTest(t, s, s.config())
	if res, err := r.Run(context.Background(), Cmd{Argv: []string{"echo", "ok"}}); err != nil || string(res.Stdout) != "ok\n" {
		t.Fatalf("Run = %q, %v", res.Stdout, err)
	}
}

func TestAlgorithmsFor(t *testing.T) {
	ed, _ := ssh.NewPublicKey(newEd25519(t).Public())
	got := algorithmsFor([]ssh.PublicKey{ed, ed})
	if !equalStrings(got, []string{ssh.KeyAlgoED25519}) {
		t.Errorf("algorithmsFor(ed25519 twice) = %v", got)
	}
}

// TestSSHSessionCap runs 20 overlapping commands on one connection. sshd
// refuses an 11th concurrent session; the cap of 8 queues the rest, so all
// succeed. Without the cap (shown first) some are refused for good.
func TestSSHSessionCap(t *testing.T) {
	s := startSSHD(t, sshdOptions{})
	runMany := func(r Remote, sleep string) (failures []error) {
		var mu sync.Mutex
		var wg sync.WaitGroup
		for i := range 20 {
			wg.Go(func() {
				res, err := r.Run(context.Background(), Cmd{Raw: "sleep " + sleep + "; echo " + strconv.Itoa(i)})
				if err == nil && strings.TrimSpace(string(res.Stdout)) != strconv.Itoa(i) {
					err = errors.New("wrong output " + string(res.Stdout))
				}
				if err != nil {
					mu.Lock()
					failures = append(failures, err)
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		return failures
	}
	uncapped := s.config()
	uncapped.MaxSessions = 20
	fails := runMany(dialTest(t, s, uncapped), "3") // longer than the retries for a refused channel
	var oce *ssh.OpenChannelError
	if len(fails) == 0 || !errors.As(fails[0], &oce) {
		t.Fatalf("without the cap: failures %v, want sshd to refuse sessions", fails)
	}
	if fails := runMany(dialTest(t, s, s.config()), "0.5"); len(fails) > 0 {
		t.Fatalf("with the cap of %d: %d failed, first: %v", DefaultMaxSessions, len(fails), fails[0])
	}
}

func TestSSHReconnect(t *testing.T) {
	s := startSSHD(t, sshdOptions{})
	r := dialTest(t, s, s.config())
	ctx := context.Background()
	echo := func() error {
		res, err := r.Run(ctx, Cmd{Argv: []string{"echo", "ok"}})
		if err == nil && string(res.Stdout) != "ok\n" {
			err = errors.New("output " + string(res.Stdout))
		}
		return err
	}
	if err := echo(); err != nil {
		t.Fatal(err)
	}
	before := childrenOf(s.cmd.Process.Pid)
	s.killConnections(t)
	if err := echo(); err != nil {
		t.Fatalf("after the connection was killed: %v", err)
	}
	after := childrenOf(s.cmd.Process.Pid)
	if fresh := without(after, before); len(fresh) != 1 {
		t.Errorf("connection handlers before %v, after %v: want exactly one new connection", before, after)
	}
	// Closing the client's side of the connection is repaired the same way.
	sr := r.(*sshRemote)
	sr.mu.Lock()
	c := sr.client
	sr.mu.Unlock()
	c.Close()
	if err := echo(); err != nil {
		t.Fatalf("after closing the client connection: %v", err)
	}
	if err := r.Upload(ctx, s.knownHosts, filepath.Join(t.TempDir(), "kh")); err != nil {
		t.Fatalf("upload on the new connection: %v", err)
	}
}

// without returns the elements of a not in b.
func without(a, b []int) []int {
	var out []int
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}

// TestSSHLostConnectionIndeterminate kills the connection while a command
// runs: the outcome is unknown, and must be reported as such.
func TestSSHLostConnectionIndeterminate(t *testing.T) {
	s := startSSHD(t, sshdOptions{})
	r := dialTest(t, s, s.config())
	started := filepath.Join(t.TempDir(), "started")
	errc := make(chan error, 1)
	go func() {
		_, err := r.Run(context.Background(), Cmd{Raw: "touch " + Quote(started) + "; sleep 30"})
		errc <- err
	}()
	if !testdaemon.WaitFor(20*time.Second, func() bool { return fileExists(started) }) {
		t.Fatal("command did not start")
	}
	s.killConnections(t)
	select {
	case err := <-errc:
		var ee *ExitError
		if !errors.Is(err, ErrIndeterminate) || errors.As(err, &ee) {
			t.Fatalf("err = %v, want ErrIndeterminate", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Run did not return after the connection died")
	}
}

// TestSSHKeepAlive freezes the server side of the connection: only the
// keepalive can notice, and it must turn the hung command into an
// indeterminate error long before the command would end.
func TestSSHKeepAlive(t *testing.T) {
	s := startSSHD(t, sshdOptions{})
	cfg := s.config()
	cfg.KeepAlive = 200 * time.Millisecond
	r := dialTest(t, s, cfg)
	started := filepath.Join(t.TempDir(), "started")
	errc := make(chan error, 1)
	go func() {
		_, err := r.Run(context.Background(), Cmd{Raw: "touch " + Quote(started) + "; sleep 60"})
		errc <- err
	}()
	if !testdaemon.WaitFor(20*time.Second, func() bool { return fileExists(started) }) {
		t.Fatal("command did not start")
	}
	frozen := s.sessionPIDs()
	for _, pid := range frozen {
		syscall.Kill(pid, syscall.SIGSTOP)
	}
	defer func() {
		for _, pid := range frozen {
			syscall.Kill(pid, syscall.SIGKILL)
			syscall.Kill(pid, syscall.SIGCONT)
		}
	}()
	select {
	case err := <-errc:
		if !errors.Is(err, ErrIndeterminate) {
			t.Fatalf("err = %v, want ErrIndeterminate", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("a frozen peer went unnoticed")
	}
}

// TestSSHDaemonOutlivesConnection starts a daemon, kills every connection,
// and finds it still serving through a fresh one.
func TestSSHDaemonOutlivesConnection(t *testing.T) {
	s := startSSHD(t, sshdOptions{})
	r := dialTest(t, s, s.config())
	ctx := context.Background()
	port := testdaemon.FreePort(t)
	pidfile := filepath.Join(t.TempDir(), "d.pid")
	pid, err := StartDaemon(ctx, r, Daemon{Argv: testdaemon.Argv(t, "outlives"), Pidfile: pidfile,
		Env: map[string]string{testdaemon.EnvListen: strconv.Itoa(port)}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	if err := AwaitPort(ctx, r, port, 20*time.Second); err != nil {
		t.Fatal(err)
	}
	// Kill the connection while it is still open: once r is closed its
	// sshd child may already have exited, leaving nothing to kill.
	s.killConnections(t)
	r.Close()
	r2 := dialTest(t, s, s.config())
	if err := AwaitPort(ctx, r2, port, 5*time.Second); err != nil || !testdaemon.Alive(pid) {
		t.Fatalf("daemon gone after its session ended: %v", err)
	}
	if stopped, err := StopDaemon(ctx, r2, Stop{Pidfile: pidfile}); !stopped || err != nil {
		t.Fatalf("StopDaemon = %v, %v", stopped, err)
	}
}

func TestSSHAgent(t *testing.T) {
	s := startSSHD(t, sshdOptions{})
	keyring := agent.NewKeyring()
	if err := keyring.Add(agent.AddedKey{PrivateKey: s.clientPriv}); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(t.TempDir(), "agent.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				agent.ServeAgent(keyring, c)
			}()
		}
	}()
	cfg := s.config()
	cfg.KeyFiles, cfg.UseAgent, cfg.AgentSocket = nil, true, sock
	r := dialTest(t, s, cfg)
	if res, err := r.Run(context.Background(), Cmd{Argv: []string{"echo", "agent"}}); err != nil || string(res.Stdout) != "agent\n" {
		t.Fatalf("Run = %q, %v", res.Stdout, err)
	}
}

// TestSSHPoolParallel works every node of one SSH pool at once (what
// control.on_nodes does): upload, download, exec with quoting, exists and
// sudo, then checks the pool kept one connection per node.
func TestSSHPoolParallel(t *testing.T) {
	s := startSSHD(t, sshdOptions{})
	var nodes []Node
	for _, n := range []string{"n1", "n2", "n3"} {
		nodes = append(nodes, Node{Name: n, Host: "127.0.0.1", Port: s.node.Port})
	}
	cfg := s.config()
	cfg.PinnedKeys = map[string]string{"127.0.0.1": string(ssh.MarshalAuthorizedKey(s.hostKey))}
	p, err := NewPool(nodes, SSHDialer(cfg))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "payload"), []byte("p"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	got := make([]string, len(nodes))
	var wg sync.WaitGroup
	for i, n := range nodes {
		wg.Go(func() {
			res, err := func() (string, error) {
				r, err := p.Remote(ctx, n.Name)
				if err != nil {
					return "", err
				}
				up := filepath.Join(dir, n.Name+".up")
				down := filepath.Join(dir, n.Name+".down")
				if err := r.Upload(ctx, filepath.Join(dir, "payload"), up); err != nil {
					return "", err
				}
				if err := r.Download(ctx, up, down); err != nil {
					return "", err
				}
				echo, err := r.Run(ctx, Cmd{Argv: []string{"sh", "-c", `echo "$1 $2"`, "sh", n.Name, "it's"}, Timeout: 10 * time.Second})
				if err != nil {
					return "", err
				}
				ok, err := Exists(ctx, r, down)
				if err != nil {
					return "", err
				}
				id, err := r.Run(ctx, Cmd{Argv: []string{"id", "-u"}, Sudo: true})
				if err != nil {
					return "", err
				}
				return fmt.Sprintf("%s|%t|%s", strings.TrimSpace(string(echo.Stdout)), ok, strings.TrimSpace(string(id.Stdout))), nil
			}()
			if err != nil {
				t.Errorf("%s: %v", n.Name, err)
			}
			got[i] = res
		})
	}
	wg.Wait()
	want := []string{"n1 it's|true|0", "n2 it's|true|0", "n3 it's|true|0"}
	if !slices.Equal(got, want) {
		t.Errorf("results = %q, want %q", got, want)
	}
	// Other handlers (the readiness probe's) may take a moment to exit.
	if !testdaemon.WaitFor(10*time.Second, func() bool { return len(childrenOf(s.cmd.Process.Pid)) == 3 }) {
		t.Errorf("%d connections to sshd, want one per node (3)", len(childrenOf(s.cmd.Process.Pid)))
	}
}

// TestDialHandshakeTimeout dials a port that accepts but never speaks: the
// handshake deadline, or ctx, must end the dial.
func TestDialHandshakeTimeout(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var conns []net.Conn
	var mu sync.Mutex
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	defer func() {
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
	}()
	dir := t.TempDir()
	key := filepath.Join(dir, "id")
	writeKey(t, key, newEd25519(t))
	node := Node{Name: "mute", Host: "127.0.0.1", Port: ln.Addr().(*net.TCPAddr).Port}
	cfg := SSHConfig{KeyFiles: []string{key}, KnownHosts: filepath.Join(dir, "kh"), AcceptNew: true,
		HandshakeTimeout: 300 * time.Millisecond}
	testdaemon.Within(t, 30*time.Second, "DialSSH with a handshake timeout", func() {
		if _, err = DialSSH(context.Background(), node, cfg); err == nil {
			t.Error("dial to a mute server succeeded")
		}
	})
	cfg.HandshakeTimeout = time.Hour
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	testdaemon.Within(t, 30*time.Second, "DialSSH with a cancelled ctx", func() {
		if _, err = DialSSH(ctx, node, cfg); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("err = %v, want the ctx deadline", err)
		}
	})
}

func TestSSHConfigDefaults(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	if _, err := (SSHConfig{}).withDefaults(); err == nil || !strings.Contains(err.Error(), "no ssh key") {
		t.Errorf("without keys: err = %v", err)
	}
	if err := os.MkdirAll(filepath.Join(home, ".ssh"), 0o700); err != nil {
		t.Fatal(err)
	}
	writeKey(t, filepath.Join(home, ".ssh", "id_ed25519"), newEd25519(t))
	c, err := SSHConfig{}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	if c.User != "root" || c.Port != 22 || c.MaxSessions != DefaultMaxSessions || c.KeepAlive != 15*time.Second ||
		c.HandshakeTimeout != 10*time.Second || c.KnownHosts != filepath.Join(home, ".ssh", "known_hosts") ||
		!equalStrings(c.KeyFiles, []string{filepath.Join(home, ".ssh", "id_ed25519")}) {
		t.Errorf("defaults = %+v", c)
	}
	t.Setenv("SSH_AUTH_SOCK", "")
	if _, err := (SSHConfig{UseAgent: true}).withDefaults(); err == nil || !strings.Contains(err.Error(), "SSH_AUTH_SOCK") {
		t.Errorf("agent without socket: err = %v", err)
	}
	if _, err := (SSHConfig{Port: 70000}).withDefaults(); err == nil {
		t.Error("port 70000 accepted")
	}
	enc := filepath.Join(home, "enc")
	block, err := ssh.MarshalPrivateKeyWithPassphrase(newEd25519(t), "", []byte("pw"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(enc, pem.EncodeToMemory(block), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := (SSHConfig{KeyFiles: []string{enc}}).signers(); err == nil || !strings.Contains(err.Error(), "passphrase") {
		t.Errorf("encrypted key: err = %v", err)
	}
}
