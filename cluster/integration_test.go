package cluster

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/faultline/faultline/internal/integration"
	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// Tests use their own prefix and subnet so a developer's real cluster (fl,
// 10.77.0.0/24) is never touched by `go test`.
const (
	testPrefix = "flt"
	testSubnet = "10.78.0.0/24"
)

// needCluster gates a test on root and the tools Up runs.
func needCluster(t testing.TB) {
	t.Helper()
	integration.NeedRoot(t)
	_, err := toolPaths(toolsUp, exec.LookPath)
	integration.Need(t, err == nil, fmt.Sprint(err))
}

// testConfig puts StateDir in /var/tmp: nodes mount their own /tmp, so a
// t.TempDir() state dir would be invisible to them (and is refused).
func testConfig(t testing.TB, nodes int) Config {
	t.Helper()
	base, err := os.MkdirTemp("/var/tmp", "faultline-cluster-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	return Config{Nodes: nodes, StateDir: filepath.Join(base, "state"), Subnet: testSubnet, Prefix: testPrefix}
}

// upCluster runs Up and registers a Down that must succeed.
func upCluster(t *testing.T, cfg Config) *State {
	t.Helper()
	t.Cleanup(func() {
		if err := Down(context.Background(), cfg); err != nil {
			t.Errorf("cleanup down: %v", err)
		}
	})
	st, err := Up(context.Background(), cfg)
	if err != nil {
		t.Fatalf("up: %v", err)
	}
	return st
}

// dial connects as root with the cluster's client key, checking host keys
// strictly against knownHostsFile.
func dial(t *testing.T, st *State, addr, knownHostsFile string) (*ssh.Client, error) {
	t.Helper()
	pem, err := os.ReadFile(st.ClientKey)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := ssh.ParsePrivateKey(pem)
	if err != nil {
		t.Fatal(err)
	}
	hk, err := knownhosts.New(knownHostsFile)
	if err != nil {
		t.Fatal(err)
	}
	return ssh.Dial("tcp", addr, &ssh.ClientConfig{
		User:            "root",
		Auth:            []ssh.AuthMethod{ssh.PublicKeys(signer)},
		HostKeyCallback: hk,
		Timeout:         5 * time.Second,
	})
}

// sshRun runs cmd on node i (from 0) and returns its trimmed output.
func sshRun(t *testing.T, st *State, i int, cmd string) string {
	t.Helper()
	c, err := dial(t, st, st.Nodes[i].Addr.String(), st.KnownHosts)
	if err != nil {
		t.Fatalf("ssh %s: %v", st.Nodes[i].Name, err)
	}
	defer c.Close()
	s, err := c.NewSession()
	if err != nil {
		t.Fatalf("ssh %s: %v", st.Nodes[i].Name, err)
	}
	defer s.Close()
	out, err := s.CombinedOutput(cmd)
	if err != nil {
		t.Fatalf("ssh %s %q: %v: %s", st.Nodes[i].Name, cmd, err, out)
	}
	return strings.TrimSpace(string(out))
}

func TestClusterLifecycle(t *testing.T) {
	needCluster(t)
	cfg := testConfig(t, 3)
	ctx := context.Background()
	st := upCluster(t, cfg)
	if st.Action != Created || len(st.Nodes) != 3 {
		t.Fatalf("up: action %s, %d nodes; want created, 3", st.Action, len(st.Nodes))
	}
	t.Logf("up 3 nodes: %v", st.Elapsed)

	t.Run("files", func(t *testing.T) {
		nodes, err := os.ReadFile(st.NodesFile)
		if err != nil {
			t.Fatal(err)
		}
		want := "n1=10.78.0.11:22\nn2=10.78.0.12:22\nn3=10.78.0.13:22\n"
		if _, body, _ := strings.Cut(string(nodes), "\n"); body != want {
			t.Errorf("nodes file body:\n%s\nwant:\n%s", body, want)
		}
		kh, err := os.ReadFile(st.KnownHosts)
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(kh), "\n"); n != 3 {
			t.Errorf("known_hosts has %d lines, want 3:\n%s", n, kh)
		}
	})

	t.Run("identity", func(t *testing.T) {
		for i, n := range st.Nodes {
			got := sshRun(t, st, i, `echo "$(hostname) $(cat /proc/1/comm) $FAULTLINE_NODE $(ip -4 -o addr show eth0 | awk '{print $4}')"`)
			want := fmt.Sprintf("%s sshd %s %s/24", n.Name, n.Name, n.Addr.Addr())
			if got != want {
				t.Errorf("%s: got %q, want %q", n.Name, got, want)
			}
			if r := sshRun(t, st, i, "ip route show default"); r != "" {
				t.Errorf("%s has a default route: %q", n.Name, r)
			}
			if r := sshRun(t, st, i, "ls /sys/class/net | tr '\\n' ' '"); r != "eth0 lo" {
				t.Errorf("%s sees links %q in /sys, want its own eth0 lo", n.Name, r)
			}
		}
	})

	t.Run("private dirs", func(t *testing.T) {
		marker := fmt.Sprintf("faultline-private-%d", os.Getpid())
		sshRun(t, st, 0, "echo n1 >/tmp/"+marker+" && echo n1 >/opt/"+marker+" && echo n1 >/root/"+marker)
		if got := sshRun(t, st, 1, "ls -A /tmp /opt /root"); strings.Contains(got, marker) {
			t.Errorf("n1's files visible on n2: %s", got)
		}
		for _, d := range []string{"/tmp", "/opt", "/root"} {
			if _, err := os.Stat(filepath.Join(d, marker)); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("n1's %s file visible on the host (%v)", d, err)
			}
			if _, err := os.Stat(filepath.Join(st.Nodes[0].Dir, d, marker)); err != nil {
				t.Errorf("n1's %s file not in its state dir: %v", d, err)
			}
		}
		if got := sshRun(t, st, 2, "getent hosts n1"); !strings.HasPrefix(got, "10.78.0.11") {
			t.Errorf("n3 resolves n1 as %q", got)
		}
	})

	t.Run("node to node", func(t *testing.T) {
		for _, p := range [][2]int{{1, 0}, {2, 1}, {0, 2}} {
			cmd := fmt.Sprintf("bash -c 'exec 3<>/dev/tcp/%s/22 && head -c 4 <&3'", st.Nodes[p[1]].Addr.Addr())
			if got := sshRun(t, st, p[0], cmd); got != "SSH-" {
				t.Errorf("%s -> %s:22 read %q, want the SSH greeting", st.Nodes[p[0]].Name, st.Nodes[p[1]].Name, got)
			}
		}
	})

	t.Run("strict known_hosts", func(t *testing.T) {
		// n1's key filed under n2's address: n2 must be rejected.
		kh, err := os.ReadFile(st.KnownHosts)
		if err != nil {
			t.Fatal(err)
		}
		first, _, _ := strings.Cut(string(kh), "\n")
		_, key, _ := strings.Cut(first, " ")
		wrong := filepath.Join(t.TempDir(), "known_hosts")
		if err := os.WriteFile(wrong, []byte(st.Nodes[1].Addr.Addr().String()+" "+key+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		c, err := dial(t, st, st.Nodes[1].Addr.String(), wrong)
		if err == nil {
			c.Close()
			t.Fatal("n2 accepted with n1's host key in known_hosts")
		}
		var ke *knownhosts.KeyError
		if !errors.As(err, &ke) {
			t.Errorf("want a known_hosts key mismatch, got %v", err)
		}
	})

	t.Run("status", func(t *testing.T) {
		rep, err := Status(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if !rep.Healthy() {
			t.Fatalf("status not healthy: %s", rep.Summary())
		}
		var b bytes.Buffer
		if err := rep.Table(&b); err != nil {
			t.Fatal(err)
		}
		rows := tableRows(b.String())
		for i, n := range st.Nodes {
			want := fmt.Sprintf("%s %s %s up pid %d ok", n.Name, n.Addr, n.Namespace, n.PID)
			if i+1 >= len(rows) || strings.Join(rows[i+1], " ") != want {
				t.Errorf("table row %d: want %q in\n%s", i+1, want, b.String())
			}
		}
	})

	t.Run("up again is a no-op", func(t *testing.T) {
		again, err := Up(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if again.Action != Unchanged {
			t.Errorf("action %s, want unchanged (%s)", again.Action, again.Summary())
		}
		for i := range st.Nodes {
			if again.Nodes[i].PID != st.Nodes[i].PID {
				t.Errorf("%s: sshd pid %d, was %d", st.Nodes[i].Name, again.Nodes[i].PID, st.Nodes[i].PID)
			}
		}
	})

	t.Run("up repairs a killed sshd", func(t *testing.T) {
		sshRun(t, st, 1, "echo kept >/opt/disk")
		if err := syscall.Kill(st.Nodes[1].PID, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "n2's sshd to die", func() bool {
			rep, err := Status(ctx, cfg)
			return err == nil && !rep.Nodes[1].SSHD
		})
		fixed, err := Up(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if fixed.Action != Repaired || strings.Join(fixed.Repaired, ",") != "n2" {
			t.Fatalf("action %s %v, want repaired [n2]", fixed.Action, fixed.Repaired)
		}
		if fixed.Nodes[0].PID != st.Nodes[0].PID || fixed.Nodes[1].PID == st.Nodes[1].PID {
			t.Errorf("pids %d,%d were %d,%d: want n1 kept and n2 new", fixed.Nodes[0].PID, fixed.Nodes[1].PID, st.Nodes[0].PID, st.Nodes[1].PID)
		}
		// Same host key (the original known_hosts still works) and disk.
		if got := sshRun(t, fixed, 1, "hostname; cat /opt/disk"); got != "n2\nkept" {
			t.Errorf("repaired n2: got %q", got)
		}
	})

	t.Run("up repairs a node whose namespace lost its name", func(t *testing.T) {
		// sshd goes on in the now anonymous namespace; only its arguments
		// tie it to the cluster.
		rep, err := Status(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		old := rep.Nodes[2].PID
		if out, err := exec.Command("ip", "netns", "del", testPrefix+"-n3").CombinedOutput(); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		fixed, err := Up(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(fixed.Repaired, ",") != "n3" {
			t.Errorf("repaired %v, want [n3]", fixed.Repaired)
		}
		if alive(old) {
			t.Errorf("n3's old sshd (pid %d) survived the repair", old)
		}
		if got := sshRun(t, fixed, 2, "hostname"); got != "n3" {
			t.Errorf("hostname %q", got)
		}
	})

	t.Run("namespace tcp table", func(t *testing.T) {
		// A connection n1 -> n2 that lives on after the ssh session: its two
		// ends are what Down must let close before deleting the network.
		sshRun(t, st, 0, fmt.Sprintf("nohup bash -c 'exec 3<>/dev/tcp/%s/22; sleep 600' >/dev/null 2>&1 &", st.Nodes[1].Addr.Addr()))
		waitFor(t, "the n1 -> n2 connection", func() bool {
			n, err := closingIn(st.Nodes[0].Namespace)
			return err == nil && n >= 1
		})
		if _, err := closingIn("flt-absent"); err == nil {
			t.Error("closingIn on a missing namespace: no error")
		}
	})

	t.Run("down removes everything, twice", func(t *testing.T) {
		start := time.Now()
		if err := Down(ctx, cfg); err != nil {
			t.Fatal(err)
		}
		t.Logf("down 3 nodes: %v", time.Since(start))
		assertNothingLeft(t, cfg)
		if err := Down(ctx, cfg); err != nil {
			t.Errorf("second down: %v", err)
		}
		rep, err := Status(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Recorded || len(rep.Strays) > 0 {
			t.Errorf("status after down: %s", rep.Summary())
		}
	})
}

// TestUpAfterCrash covers leftovers with no state dir (a crash before the
// record was written, or a deleted state dir) and a state dir whose network
// is gone (a reboot, or someone deleting the bridge).
func TestUpAfterCrash(t *testing.T) {
	needCluster(t)
	ctx := context.Background()
	cfg := testConfig(t, 2)
	t.Cleanup(func() { Down(context.Background(), cfg) })
	for _, args := range [][]string{
		{"ip", "netns", "add", testPrefix + "-n2"},
		{"ip", "link", "add", testPrefix + "-n7", "type", "veth", "peer", "name", "flx-peer7"},
		{"ip", "link", "add", testPrefix + "-br", "type", "bridge"},
	} {
		if out, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%v: %v: %s", args, err, out)
		}
	}
	sleeper := exec.Command("ip", "netns", "exec", testPrefix+"-n2", "sleep", "600")
	if err := sleeper.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sleeper.Process.Kill() })
	slept := make(chan error, 1)
	go func() { slept <- sleeper.Wait() }()
	staleNS, ok := namedNetns(testPrefix + "-n2")
	if !ok {
		t.Fatal("namespace flt-n2 not mounted")
	}
	waitFor(t, "the sleeper to enter flt-n2", func() bool {
		id, _ := statNS(fmt.Sprintf("/proc/%d/ns/net", sleeper.Process.Pid))
		return id == staleNS
	})

	rep, err := Status(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	wantStrays := "bridge flt-br,link flt-n7,netns flt-n2"
	if rep.Recorded || strings.Join(rep.Strays, ",") != wantStrays {
		t.Errorf("status: recorded %v, strays %v; want strays %s", rep.Recorded, rep.Strays, wantStrays)
	}

	st := upCluster(t, cfg)
	if st.Action != Created {
		t.Errorf("action %s, want created", st.Action)
	}
	select { // Up returned, so it is dead; the bound only covers reaping
	case <-slept:
	case <-time.After(10 * time.Second):
		t.Error("a process left in a stale namespace survived up")
	}
	if linkExists(testPrefix + "-n7") {
		t.Error("stray link flt-n7 survived up")
	}
	sshRun(t, st, 1, "true")

	// The network vanishes under a recorded cluster: Up rebuilds it all.
	if out, err := exec.Command("ip", "link", "del", testPrefix+"-br").CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	st2, err := Up(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if st2.Action != Created {
		t.Errorf("after bridge loss: action %s, want created", st2.Action)
	}
	if got := sshRun(t, st2, 0, "hostname"); got != "n1" {
		t.Errorf("hostname %q", got)
	}
}

// TestConcurrentUp: two Ups at once serialise on the lock; one builds,
// the other finds the cluster up.
func TestConcurrentUp(t *testing.T) {
	needCluster(t)
	cfg := testConfig(t, 2)
	t.Cleanup(func() { Down(context.Background(), cfg) })
	type result struct {
		st  *State
		err error
	}
	results := make(chan result, 2)
	for range 2 {
		go func() {
			st, err := Up(context.Background(), cfg)
			results <- result{st, err}
		}()
	}
	actions := map[Action]int{}
	for range 2 {
		r := <-results
		if r.err != nil {
			t.Fatal(r.err)
		}
		actions[r.st.Action]++
	}
	if actions[Created] != 1 || actions[Unchanged] != 1 {
		t.Errorf("actions %v, want one created and one unchanged", actions)
	}
}

func TestUpRefusesAnotherShape(t *testing.T) {
	needCluster(t)
	cfg := testConfig(t, 2)
	upCluster(t, cfg)
	bigger := cfg
	bigger.Nodes = 3
	_, err := Up(context.Background(), bigger)
	if err == nil || !strings.Contains(err.Error(), "run down first") {
		t.Errorf("up with 3 nodes over 2: err %v, want a refusal naming down", err)
	}
}

func TestDownWithNothingThere(t *testing.T) {
	needCluster(t)
	cfg := testConfig(t, 2)
	if err := Down(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(cfg.StateDir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("down created %s (%v)", cfg.StateDir, err)
	}
}

// assertNothingLeft checks namespaces, links, mounts, processes and the
// state dir, each the way an operator would look.
func assertNothingLeft(t *testing.T, cfg Config) {
	t.Helper()
	out, err := exec.Command("ip", "netns", "list").CombinedOutput()
	if err != nil {
		t.Fatalf("ip netns list: %v: %s", err, out)
	}
	for _, l := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(l, testPrefix+"-") {
			t.Errorf("namespace left: %s", l)
		}
	}
	out, err = exec.Command("ip", "-o", "link", "show").CombinedOutput()
	if err != nil {
		t.Fatalf("ip link: %v: %s", err, out)
	}
	for _, l := range strings.Split(string(out), "\n") {
		if f := strings.Fields(l); len(f) > 1 && strings.HasPrefix(f[1], testPrefix+"-") {
			t.Errorf("link left: %s", l)
		}
	}
	mounts, err := os.ReadFile("/proc/mounts")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(mounts), "\n") {
		if strings.Contains(l, cfg.StateDir) || strings.Contains(l, netnsDir+"/"+testPrefix+"-") {
			t.Errorf("mount left: %s", l)
		}
	}
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && bytes.Contains(cmdline, []byte(cfg.StateDir)) {
			t.Errorf("process left: %s %q", e.Name(), bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '}))
		}
	}
	if _, err := os.Stat(cfg.StateDir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("state dir left: %v", err)
	}
}

// alive reports whether pid is a live process (not gone, not a zombie).
func alive(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	_, rest, ok := bytes.Cut(stat, []byte(") "))
	return ok && len(rest) > 0 && rest[0] != 'Z'
}

// waitFor polls cond until it holds; a condition that never holds fails
// the test after a generous bound (not a timing assertion).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}
