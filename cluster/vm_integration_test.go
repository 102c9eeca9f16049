package cluster_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/cluster"
	"github.com/faultline/faultline/control"
	"github.com/faultline/faultline/internal/testcluster"
	"github.com/faultline/faultline/nodeclock"
)

// vmTestConfig is this test's own VM cluster; the image also carries
// etcd-server and curl (the stdlib etcd recipe's health check), so every VM
// test, the etcd plan's too, shares one cached image.
var vmTestConfig = cluster.Config{Nodes: 3, Prefix: "fvm", Subnet: "10.90.0.0/24",
	StateDir: "/var/lib/faultline-test-vm/cluster", VM: true, Packages: []string{"curl", "etcd-server"}}

// vmTools are the host commands building and booting VMs needs.
var vmTools = []string{"qemu-system-x86_64", "qemu-img", "debootstrap", "busybox", "mkfs.ext4", "cpio", "depmod", "xz", "zstd", "ssh"}

// TestVMCluster boots 3 Debian VMs and proves over real SSH, with the
// ssh_config Up wrote, that each runs its own kernel and clock, and that
// netem works inside them; then takes them down and finds nothing left.
func TestVMCluster(t *testing.T) {
	start := time.Now()
	st := testcluster.Up(t, vmTestConfig, vmTools...)
	v := st.VM
	if v == nil {
		t.Fatal("Up of a VM cluster reported no VM info")
	}
	t.Logf("up in %.1fs: image build %.1fs (0: cached), boot of 3 %.1fs; %s; slowdown %.1fx (host loop %.0f ms)",
		st.Elapsed.Seconds(), v.ImageBuildSec, v.BootSec, v.AccelReason, v.Slowdown, v.HostLoopMS)
	for _, n := range v.Nodes {
		t.Logf("%s: speed loop %.0f ms (%.1fx), clock after sync %+.1f ms ±%.1f", n.Name, n.LoopMS, n.Slowdown, n.ClockOffsetMS, n.ClockBoundMS)
		if n.ClockOffsetMS > n.ClockBoundMS+50 || n.ClockOffsetMS < -n.ClockBoundMS-50 {
			t.Errorf("%s: clock not synced after boot: %+.1f ms ±%.1f", n.Name, n.ClockOffsetMS, n.ClockBoundMS)
		}
	}
	if v.Slowdown < 1 {
		t.Errorf("slowdown %.2f: a VM cannot be faster than its host's CPU-bound loop", v.Slowdown)
	}
	nodes, err := control.ReadNodesFile(st.NodesFile)
	if err != nil || len(nodes) != 3 {
		t.Fatalf("nodes file: %v, %v", nodes, err)
	}
	slow, ok, err := control.ReadNodesFileSlowdown(st.NodesFile)
	if err != nil || !ok || slow != v.Slowdown {
		t.Errorf("nodes file slowdown = %v, %v, %v; want %v", slow, ok, err, v.Slowdown)
	}

	sh := func(node, cmd string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		for try := 1; ; try++ {
			out, err := exec.CommandContext(ctx, "ssh", "-F", st.SSHConfig, node, cmd).CombinedOutput()
			// Exit 255 is ssh's own failure to connect: with netem
			// corrupting and reordering n2's packets on a slow guest, a
			// fresh connection can miss ssh_config's 3 s ConnectTimeout.
			var ee *exec.ExitError
			if errors.As(err, &ee) && ee.ExitCode() == 255 && try < 5 && ctx.Err() == nil {
				continue
			}
			if err != nil {
				t.Fatalf("ssh %s %q (try %d): %v: %s", node, cmd, try, err, out)
			}
			return strings.TrimSpace(string(out))
		}
	}

	// Own kernels: the Debian kernel, and a boot id per node, none the host's.
	hostBoot, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{strings.TrimSpace(string(hostBoot)): "the host"}
	for _, n := range []string{"n1", "n2", "n3"} {
		out := sh(n, "uname -r; cat /proc/sys/kernel/random/boot_id; hostname")
		f := strings.Fields(out)
		if len(f) != 3 {
			t.Fatalf("%s: %q", n, out)
		}
		if f[0] != v.KernelRelease || !strings.HasSuffix(f[0], "-amd64") {
			t.Errorf("%s runs kernel %s, want the image's Debian kernel %s", n, f[0], v.KernelRelease)
		}
		if other, dup := seen[f[1]]; dup {
			t.Errorf("%s has boot id %s, the same as %s: not its own kernel", n, f[1], other)
		}
		seen[f[1]] = n
		if f[2] != n {
			t.Errorf("%s: hostname %q", n, f[2])
		}
	}

	// Own clocks: date -s on n1 moves n1 only, as measured from here.
	pool := testcluster.Pool(t, st)
	measure := func(name string) nodeclock.Offset {
		t.Helper()
		r, err := pool.Remote(context.Background(), name)
		if err != nil {
			t.Fatal(err)
		}
		n, _ := pool.Node(name)
		o, err := nodeclock.Measure(context.Background(), r, n.Host, 5)
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	before := map[string]nodeclock.Offset{}
	for _, name := range []string{"n1", "n2", "n3"} {
		before[name] = measure(name)
	}
	sh("n1", "date -s '+30 seconds' >/dev/null")
	for _, name := range []string{"n1", "n2", "n3"} {
		o := measure(name)
		moved := o.Moved(before[name])
		t.Logf("after date -s '+30 seconds' on n1: %s offset %s, moved %s", name, o, moved)
		want := time.Duration(0)
		if name == "n1" {
			want = 30 * time.Second
		}
		// The shell's date -s itself takes a moment on an emulated node:
		// allow 1 s beyond the measurement bounds for n1, 250 ms of drift
		// for the others.
		slack := o.Bound + before[name].Bound + 250*time.Millisecond
		if name == "n1" {
			slack += 750 * time.Millisecond
		}
		if d := moved - want; d > slack || d < -slack {
			t.Errorf("%s: moved %s (offset %s), want %s", name, moved, o, want)
		}
	}
	r1, err := pool.Remote(context.Background(), "n1")
	if err != nil {
		t.Fatal(err)
	}
	o, err := nodeclock.Sync(context.Background(), r1, nodes[0].Host, 5*time.Millisecond, 3)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("n1 after reset: %s", o)
	if o.Offset > o.Bound+50*time.Millisecond || o.Offset < -o.Bound-50*time.Millisecond {
		t.Errorf("n1 not reset: %s", o)
	}

	// netem inside a VM: reorder, duplicate and corrupt on n2's eth0, with
	// tc's counters and ping's duplicates as evidence; n3 keeps its qdisc.
	sh("n2", "tc qdisc add dev eth0 root netem delay 10ms reorder 50% duplicate 20% corrupt 10%")
	ping := sh("n2", "ping -c 60 -i 0.02 -W 2 -q n3 || true")
	qd := sh("n2", "tc -s qdisc show dev eth0")
	t.Logf("n2 ping: %s\nn2 qdisc: %s", ping, qd)
	for _, want := range []string{"netem", "reorder 50%", "duplicate 20%", "corrupt 10%"} {
		if !strings.Contains(qd, want) {
			t.Errorf("n2 qdisc lacks %q: %s", want, qd)
		}
	}
	if m := regexp.MustCompile(`Sent \d+ bytes (\d+) pkt`).FindStringSubmatch(qd); m == nil {
		t.Errorf("no counters in n2's qdisc: %s", qd)
	} else if pkts, _ := strconv.Atoi(m[1]); pkts < 60 {
		t.Errorf("n2's netem sent %d packets, want at least the 60 pings", pkts)
	}
	if !regexp.MustCompile(`\+\d+ duplicates`).MatchString(ping) {
		t.Errorf("no duplicated replies with 20%% duplication on 60 pings: %s", ping)
	}
	if qd3 := sh("n3", "tc qdisc show dev eth0"); strings.Contains(qd3, "netem") {
		t.Errorf("n3 got n2's netem: %s", qd3)
	}
	sh("n2", "tc qdisc del dev eth0 root")

	// Down leaves nothing: no taps, bridge, QEMU or state dir.
	pool.Close()
	downStart := time.Now()
	if err := cluster.Down(context.Background(), vmTestConfig); err != nil {
		t.Fatalf("down: %v", err)
	}
	t.Logf("down in %.1fs; whole test %.1fs", time.Since(downStart).Seconds(), time.Since(start).Seconds())
	ifs, err := net.Interfaces()
	if err != nil {
		t.Fatal(err)
	}
	for _, ifc := range ifs {
		if strings.HasPrefix(ifc.Name, vmTestConfig.Prefix+"-") {
			t.Errorf("link %s left after down", ifc.Name)
		}
	}
	if left := qemuUnder(t, vmTestConfig.StateDir); len(left) > 0 {
		t.Errorf("QEMU processes left after down: %v", left)
	}
	if _, err := os.Stat(vmTestConfig.StateDir); !os.IsNotExist(err) {
		t.Errorf("state dir left after down: %v", err)
	}
}

// qemuUnder lists QEMU processes with an argument under dir.
func qemuUnder(t *testing.T, dir string) []string {
	t.Helper()
	ms, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	var out []string
	for _, m := range ms {
		b, err := os.ReadFile(m)
		if err != nil || !strings.HasPrefix(filepath.Base(strings.SplitN(string(b), "\x00", 2)[0]), "qemu-system") {
			continue
		}
		if strings.Contains(string(b), dir+"/") {
			out = append(out, fmt.Sprintf("%s: %s", m, strings.ReplaceAll(string(b), "\x00", " ")))
		}
	}
	return out
}
