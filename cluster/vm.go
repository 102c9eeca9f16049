package cluster

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sync/errgroup"
)

// VM nodes (Config.VM): node nX is a QEMU guest booting the cached image's
// Debian kernel (PVH boot of the uncompressed vmlinux, a busybox initramfs,
// then faultline-init as PID 1 on a copy-on-write qcow2 overlay of the base
// image). Its NIC is virtio-net on a tap <prefix>-nX on the same bridge and
// addresses as a netns cluster, and its identity (hostname, /etc/hosts, host
// key generated on the host, authorized_keys, sshd_config) comes from a
// per-node seed: a tar written on the host and attached as a read-only
// second disk that faultline-init unpacks. So known_hosts is written with
// no trust on first use, and the nodes file, known_hosts, client key and
// ssh_config are the netns cluster's files under the same names.
//
// Node directory of a VM node: ssh_host_ed25519_key(.pub), seed.tar,
// overlay.qcow2, qemu.pid, console.log (the serial console), qemu.log
// (QEMU's own messages).

const defaultMemoryMB = 256

// vmBootTimeout bounds the wait for a booted guest's sshd; 5 guests under
// software emulation on 2 loaded cores took 35-39 s, so this is generous.
const vmBootTimeout = 4 * time.Minute

// vmStopTimeout bounds the wait for QEMU to exit on SIGTERM before SIGKILL.
const vmStopTimeout = 5 * time.Second

// toolsVM are what a VM cluster runs on the host.
var toolsVM = []tool{
	{"ip", "iproute2", "/usr/sbin/ip"},
	{"qemu-system-x86_64", "qemu-system-x86", "/usr/bin/qemu-system-x86_64"},
	{"qemu-img", "qemu-utils", "/usr/bin/qemu-img"},
}

func (c Config) qemuPidPath(i int) string { return filepath.Join(c.nodeDir(i), "qemu.pid") }
func (c Config) consolePath(i int) string { return filepath.Join(c.nodeDir(i), "console.log") }
func (c Config) overlayPath(i int) string { return filepath.Join(c.nodeDir(i), "overlay.qcow2") }
func (c Config) seedPath(i int) string    { return filepath.Join(c.nodeDir(i), "seed.tar") }
func (c Config) qemuLogPath(i int) string { return filepath.Join(c.nodeDir(i), "qemu.log") }
func (c Config) hostKeyPath(i int) string { return filepath.Join(c.nodeDir(i), "ssh_host_ed25519_key") }

// kernelArgs is the guests' kernel command line: serial console, eth0 kept
// as eth0 (no udev renaming), faultline-init as PID 1, and a panic powers
// off at once (QEMU runs with -no-reboot), so Status sees a dead node.
const kernelArgs = "console=ttyS0 net.ifnames=0 init=/sbin/faultline-init panic=-1 loglevel=4"

// qemuArgs is node i's QEMU command line (after the program name). The
// accelerator flags are the measured ones: multi-threaded TCG with a 64 MB
// translation cache (without it one guest took 722 MB), or KVM when the
// probe booted a guest with it.
func qemuArgs(c Config, i int, img *Image, accel string) []string {
	acc := []string{"-accel", "tcg,thread=multi,tb-size=64", "-cpu", "max"}
	if accel == "kvm" {
		acc = []string{"-accel", "kvm", "-cpu", "host"}
	}
	return append(append([]string{"-name", c.nsName(i)}, acc...),
		"-m", strconv.Itoa(c.MemoryMB), "-smp", "1",
		"-nodefaults", "-no-user-config", "-display", "none", "-no-reboot",
		"-serial", "file:"+c.consolePath(i),
		"-kernel", img.Kernel, "-initrd", img.Initrd, "-append", kernelArgs,
		"-drive", "file="+c.overlayPath(i)+",if=virtio,cache=unsafe,format=qcow2",
		"-drive", "file="+c.seedPath(i)+",if=virtio,format=raw,readonly=on",
		"-netdev", "tap,id=net0,ifname="+c.nsName(i)+",script=no,downscript=no",
		"-device", "virtio-net-pci,netdev=net0,mac="+macOf(c.nodeAddr(i)),
		"-device", "virtio-rng-pci",
		"-pidfile", c.qemuPidPath(i), "-daemonize")
}

// renderVMSSHDConfig is the guest's sshd_config: the netns node's settings
// with the guest's own paths.
func renderVMSSHDConfig(c Config, i int) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# faultline cluster VM node %s\n", nodeName(i))
	fmt.Fprintf(&b, "ListenAddress %s:%d\n", c.nodeAddr(i), SSHPort)
	b.WriteString("HostKey /etc/ssh/ssh_host_ed25519_key\nAuthorizedKeysFile /root/.ssh/authorized_keys\n")
	b.WriteString(sshdCommon)
	fmt.Fprintf(&b, "SetEnv FAULTLINE_NODE=%s\n", nodeName(i))
	return b.Bytes()
}

// renderSeed is node i's seed tar: files faultline-init unpacks over /.
func renderSeed(c Config, i int, hostKey, hostPub, authKeys []byte) ([]byte, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	mtime := time.Unix(0, 0)
	for _, d := range []struct {
		name string
		mode int64
	}{{"etc/", 0o755}, {"etc/faultline/", 0o755}, {"etc/ssh/", 0o755}, {"root/", 0o700}, {"root/.ssh/", 0o700}} {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: d.name, Mode: d.mode, ModTime: mtime}); err != nil {
			return nil, fmt.Errorf("seed of %s: %w", nodeName(i), err)
		}
	}
	env := fmt.Sprintf("NODE_NAME=%s\nNODE_ADDR=%s\n", nodeName(i), c.nodePrefix(i))
	for _, f := range []struct {
		name string
		mode int64
		data []byte
	}{
		{"etc/faultline/node.env", 0o644, []byte(env)},
		{"etc/hostname", 0o644, []byte(nodeName(i) + "\n")},
		{"etc/hosts", 0o644, renderHosts(c)},
		{"etc/ssh/ssh_host_ed25519_key", 0o600, hostKey},
		{"etc/ssh/ssh_host_ed25519_key.pub", 0o644, hostPub},
		{"etc/ssh/sshd_config.faultline", 0o644, renderVMSSHDConfig(c, i)},
		{"root/.ssh/authorized_keys", 0o600, authKeys},
	} {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: f.name, Mode: f.mode, Size: int64(len(f.data)), ModTime: mtime}); err != nil {
			return nil, fmt.Errorf("seed of %s: %w", nodeName(i), err)
		}
		if _, err := tw.Write(f.data); err != nil {
			return nil, fmt.Errorf("seed of %s: %w", nodeName(i), err)
		}
	}
	if err := tw.Close(); err != nil {
		return nil, fmt.Errorf("seed of %s: %w", nodeName(i), err)
	}
	// A disk is whole sectors; tar's own padding already is, this keeps it so.
	for buf.Len()%512 != 0 {
		buf.WriteByte(0)
	}
	return buf.Bytes(), nil
}

// createTapNet makes the bridge (when withBridge) and one tap per node on
// it, in one ip batch; the taps are named like a netns node's veth, so
// findHostNet, Status and Down see them the same way.
func createTapNet(ctx context.Context, ip string, c Config, nodes []int, withBridge bool) error {
	var cmds [][]string
	if withBridge {
		cmds = append(cmds,
			[]string{"link", "add", c.Bridge, "address", macOf(c.hostPrefix().Addr()), "type", "bridge"},
			[]string{"addr", "add", c.hostPrefix().String(), "dev", c.Bridge},
			[]string{"link", "set", c.Bridge, "up"})
	}
	for _, i := range nodes {
		cmds = append(cmds,
			[]string{"tuntap", "add", "dev", c.nsName(i), "mode", "tap"},
			[]string{"link", "set", c.nsName(i), "master", c.Bridge, "up"})
	}
	if err := ipBatch(ctx, ip, "", false, cmds); err != nil {
		return fmt.Errorf("create VM cluster network: %w", err)
	}
	return nil
}

// prepareVMNode writes node i's host key, seed and overlay.
func prepareVMNode(ctx context.Context, paths map[string]string, c Config, i int, img *Image, authKeys []byte) error {
	dir := c.nodeDir(i)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("prepare %s: %w", nodeName(i), err)
	}
	if _, err := keygen(c.hostKeyPath(i), nodeName(i)); err != nil {
		return err
	}
	key, err := os.ReadFile(c.hostKeyPath(i))
	if err != nil {
		return fmt.Errorf("prepare %s: %w", nodeName(i), err)
	}
	pub, err := os.ReadFile(c.hostKeyPath(i) + ".pub")
	if err != nil {
		return fmt.Errorf("prepare %s: %w", nodeName(i), err)
	}
	seed, err := renderSeed(c, i, key, pub, authKeys)
	if err != nil {
		return err
	}
	if err := writeFile(c.seedPath(i), seed, 0o600); err != nil {
		return err
	}
	_ = os.Remove(c.overlayPath(i))
	if _, err := run(ctx, nil, paths["qemu-img"], "create", "-q", "-f", "qcow2", "-F", "raw", "-b", img.Base, c.overlayPath(i)); err != nil {
		return fmt.Errorf("overlay of %s: %w", nodeName(i), err)
	}
	return nil
}

// bootVMs creates the VM nodes of a fresh cluster and waits for their sshd:
// keys, seeds, overlays, bridge and taps, then one QEMU per node.
func bootVMs(ctx context.Context, paths map[string]string, c Config, img *Image, accel string) error {
	auth, err := os.ReadFile(c.path(authKeysFile))
	if err != nil {
		return fmt.Errorf("cluster up: %w", err)
	}
	all := make([]int, c.Nodes)
	for k := range all {
		all[k] = k + 1
		if err := prepareVMNode(ctx, paths, c, k+1, img, auth); err != nil {
			return err
		}
	}
	if err := createTapNet(ctx, paths["ip"], c, all, true); err != nil {
		return err
	}
	for _, i := range all {
		if err := launchVM(ctx, paths, c, i, img, accel); err != nil {
			return err
		}
	}
	g, gctx := errgroup.WithContext(ctx)
	for _, i := range all {
		g.Go(func() error { return waitVMReady(gctx, c, i) })
	}
	return g.Wait()
}

// launchVM starts node i's QEMU, which daemonizes once the guest is set up
// (so a failure to start, such as a busy tap, is reported here) and then
// outlives this process, like a netns node's launcher.
func launchVM(ctx context.Context, paths map[string]string, c Config, i int, img *Image, accel string) error {
	_ = os.Remove(c.qemuPidPath(i))
	logf, err := os.OpenFile(c.qemuLogPath(i), os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return fmt.Errorf("start %s: %w", nodeName(i), err)
	}
	defer logf.Close()
	cmd := exec.CommandContext(ctx, paths["qemu-system-x86_64"], qemuArgs(c, i, img, accel)...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Run(); err != nil {
		b, _ := os.ReadFile(c.qemuLogPath(i))
		return fmt.Errorf("start QEMU for %s: %w: %s", nodeName(i), err, strings.TrimSpace(string(b)))
	}
	return nil
}

// waitVMReady polls node i's sshd port until it accepts, failing early
// with the console's tail when QEMU exits (a panic powers the guest off).
func waitVMReady(ctx context.Context, c Config, i int) error {
	ctx, cancel := context.WithTimeout(ctx, vmBootTimeout)
	defer cancel()
	addr := c.nodeAddrPort(i)
	for {
		if probeTCP(ctx, addr, 500*time.Millisecond) == nil {
			return nil
		}
		if vmPID(c, i) == 0 {
			return fmt.Errorf("VM %s exited while booting; console: %s", nodeName(i), fileTail(c.consolePath(i), 2000))
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("VM %s: sshd did not answer on %s: %w; console: %s", nodeName(i), addr, ctx.Err(), fileTail(c.consolePath(i), 2000))
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func fileTail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	b = bytes.TrimSpace(b)
	if len(b) > n {
		b = b[len(b)-n:]
	}
	if len(b) == 0 {
		return "(empty)"
	}
	return string(b)
}

// vmPID is the PID of node i's running QEMU, or 0: the pid file's process,
// if it still is that node's QEMU (the PID may have been reused).
func vmPID(c Config, i int) int {
	b, err := os.ReadFile(c.qemuPidPath(i))
	if err != nil {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		return 0
	}
	argv, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil || !argvIsVM(argv, map[string]bool{c.qemuPidPath(i): true}) {
		return 0
	}
	return pid
}

// argvIsVM reports whether a NUL-separated command line is QEMU run with
// one of pidFiles as an argument: one of the cluster's VMs.
func argvIsVM(cmdline []byte, pidFiles map[string]bool) bool {
	args := bytes.Split(bytes.TrimRight(cmdline, "\x00"), []byte{0})
	if len(args) < 2 || !strings.HasPrefix(filepath.Base(string(args[0])), "qemu-system-") {
		return false
	}
	for _, a := range args[1:] {
		if pidFiles[string(a)] {
			return true
		}
	}
	return false
}

// stopVMs ends the QEMU of each given node, found by its pid-file argument
// (so also when the pid file is gone): SIGTERM, which QEMU obeys at once,
// then SIGKILL for any still there after vmStopTimeout. Nothing that is not
// one of this cluster's VMs is touched. Harmless on a netns cluster.
func stopVMs(ctx context.Context, c Config, nodes []int) error {
	pidFiles := make(map[string]bool, len(nodes))
	for _, i := range nodes {
		pidFiles[c.qemuPidPath(i)] = true
	}
	deadline := time.Now().Add(vmStopTimeout)
	sig := syscall.SIGTERM
	for {
		pids, err := findVMs(pidFiles)
		if err != nil {
			return err
		}
		if len(pids) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			if sig == syscall.SIGKILL {
				return fmt.Errorf("QEMU still running after SIGKILL (pid %d)", pids[0])
			}
			sig, deadline = syscall.SIGKILL, time.Now().Add(vmStopTimeout)
		}
		for _, pid := range pids {
			if err := syscall.Kill(pid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
				return fmt.Errorf("stop QEMU %d: %w", pid, err)
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("stop VMs: %w", ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// findVMs lists the PIDs of QEMU processes started with one of pidFiles.
func findVMs(pidFiles map[string]bool) ([]int, error) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil, fmt.Errorf("list processes: %w", err)
	}
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if argv, err := os.ReadFile("/proc/" + e.Name() + "/cmdline"); err == nil && argvIsVM(argv, pidFiles) {
			out = append(out, pid)
		}
	}
	return out, nil
}

// nodeAddrPort is where node i's sshd listens.
func (c Config) nodeAddrPort(i int) netip.AddrPort { return netip.AddrPortFrom(c.nodeAddr(i), SSHPort) }
