package cluster

import (
	"archive/tar"
	"bytes"
	"io"
	"strings"
	"testing"
	"time"
)

func vmTestCfg(t *testing.T) Config {
	t.Helper()
	c, err := Config{Nodes: 3, Prefix: "fvm", Subnet: "10.90.0.0/24", StateDir: "/var/lib/x/cluster", VM: true}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestQEMUArgs(t *testing.T) {
	c := vmTestCfg(t)
	img := &Image{Kernel: "/c/vmlinux", Initrd: "/c/initrd.img", Base: "/c/base.img"}
	for _, tc := range []struct {
		accel     string
		want, not []string
	}{
		{"tcg", []string{"-accel tcg,thread=multi,tb-size=64 -cpu max", "-m 256 -smp 1"}, []string{"kvm"}},
		{"kvm", []string{"-accel kvm -cpu host"}, []string{"tcg"}},
	} {
		line := strings.Join(qemuArgs(c, 2, img, tc.accel), " ")
		for _, w := range append(tc.want,
			"-name fvm-n2", "-kernel /c/vmlinux -initrd /c/initrd.img",
			"-append "+kernelArgs,
			"-drive file=/var/lib/x/cluster/n2/overlay.qcow2,if=virtio,cache=unsafe,format=qcow2",
			"-drive file=/var/lib/x/cluster/n2/seed.tar,if=virtio,format=raw,readonly=on",
			"-netdev tap,id=net0,ifname=fvm-n2,script=no,downscript=no",
			"-device virtio-net-pci,netdev=net0,mac=02:00:0a:5a:00:0c", // the netns node's MAC for 10.90.0.12
			"-device virtio-rng-pci", "-serial file:/var/lib/x/cluster/n2/console.log",
			"-pidfile /var/lib/x/cluster/n2/qemu.pid -daemonize", "-no-reboot") {
			if !strings.Contains(line, w) {
				t.Errorf("%s: qemu args lack %q:\n%s", tc.accel, w, line)
			}
		}
		for _, n := range tc.not {
			if strings.Contains(line, n) {
				t.Errorf("%s: qemu args contain %q:\n%s", tc.accel, n, line)
			}
		}
	}
}

func TestRenderSeed(t *testing.T) {
	c := vmTestCfg(t)
	seed, err := renderSeed(c, 3, []byte("PRIVATE\n"), []byte("ssh-ed25519 AAAA n3\n"), []byte("ssh-ed25519 BBBB client\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(seed)%512 != 0 {
		t.Errorf("seed is %d bytes, not whole sectors", len(seed))
	}
	files := map[string]string{}
	modes := map[string]int64{}
	tr := tar.NewReader(bytes.NewReader(seed))
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(tr)
		files[h.Name], modes[h.Name] = string(b), h.Mode
	}
	for _, tc := range []struct {
		name, has string
		mode      int64
	}{
		{"etc/faultline/node.env", "NODE_NAME=n3\nNODE_ADDR=10.90.0.13/24\n", 0o644},
		{"etc/hostname", "n3\n", 0o644},
		{"etc/hosts", "10.90.0.1\tcontrol\n", 0o644},
		{"etc/ssh/ssh_host_ed25519_key", "PRIVATE", 0o600},
		{"etc/ssh/ssh_host_ed25519_key.pub", "AAAA", 0o644},
		{"etc/ssh/sshd_config.faultline", "ListenAddress 10.90.0.13:22\n", 0o644},
		{"root/.ssh/authorized_keys", "BBBB", 0o600},
		{"root/.ssh/", "", 0o700},
	} {
		got, ok := files[tc.name]
		if !ok || !strings.Contains(got, tc.has) || modes[tc.name] != tc.mode {
			t.Errorf("seed %s = %q mode %o (present %v), want %q mode %o", tc.name, got, modes[tc.name], ok, tc.has, tc.mode)
		}
	}
	if cfg := files["etc/ssh/sshd_config.faultline"]; !strings.Contains(cfg, "PasswordAuthentication no") || !strings.Contains(cfg, "SetEnv FAULTLINE_NODE=n3") {
		t.Errorf("guest sshd_config lacks the shared settings:\n%s", cfg)
	}
}

func TestParseKernelDepends(t *testing.T) {
	for _, tc := range []struct {
		name, show, pkg, ver, err string
	}{
		{"bookworm", "Package: linux-image-amd64\nVersion: 6.1.192-3\nDepends: linux-image-6.1.0-57-amd64 (= 6.1.192-3)\n", "linux-image-6.1.0-57-amd64", "6.1.192-3", ""},
		{"trixie style", "Depends: linux-image-6.12.48+deb13-amd64 (= 6.12.48-1)\n", "linux-image-6.12.48+deb13-amd64", "6.12.48-1", ""},
		{"no versioned dep", "Depends: something-else\n", "", "", "no versioned kernel package"},
		{"no depends", "Package: linux-image-amd64\n", "", "", "no Depends line"},
	} {
		pkg, ver, err := parseKernelDepends([]byte(tc.show))
		if pkg != tc.pkg || ver != tc.ver || (err == nil) != (tc.err == "") || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%s: got %q %q %v, want %q %q %q", tc.name, pkg, ver, err, tc.pkg, tc.ver, tc.err)
		}
	}
}

func TestMirrorIn(t *testing.T) {
	for _, tc := range []struct{ name, text, want string }{
		{"deb822", "Types: deb\n# comment\nURIs: http://deb.debian.org/debian\nSuites: bookworm bookworm-updates\nComponents: main\n\nTypes: deb\nURIs: http://security/x\nSuites: bookworm-security\n", "http://deb.debian.org/debian"},
		{"deb822 disabled", "Enabled: no\nURIs: http://a/\nSuites: bookworm\n\nURIs: http://b/\nSuites: bookworm\n", "http://b/"},
		{"one-line", "deb http://mirror/debian bookworm main\n", "http://mirror/debian"},
		{"one-line options", "deb [arch=amd64 signed-by=/k.gpg] http://m/d bookworm main\n", "http://m/d"},
		{"other release only", "deb http://m/d bullseye main\nURIs: http://x\nSuites: trixie\n", ""},
	} {
		if got := mirrorIn(tc.text, "bookworm"); got != tc.want {
			t.Errorf("%s: mirrorIn = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestImageKey(t *testing.T) {
	base := imageKey("bookworm", "linux-image-6.1.0-57-amd64", "6.1.192-3", []string{"etcd-server"}, []byte("recipe"))
	if !strings.HasPrefix(base, "bookworm-") || len(base) != len("bookworm-")+16 {
		t.Errorf("key %q", base)
	}
	for name, other := range map[string]string{
		"kernel version": imageKey("bookworm", "linux-image-6.1.0-57-amd64", "6.1.192-4", []string{"etcd-server"}, []byte("recipe")),
		"packages":       imageKey("bookworm", "linux-image-6.1.0-57-amd64", "6.1.192-3", nil, []byte("recipe")),
		"recipe":         imageKey("bookworm", "linux-image-6.1.0-57-amd64", "6.1.192-3", []string{"etcd-server"}, []byte("recipe 2")),
	} {
		if other == base {
			t.Errorf("changing the %s kept key %s", name, base)
		}
	}
	if again := imageKey("bookworm", "linux-image-6.1.0-57-amd64", "6.1.192-3", normalPackages([]string{" etcd-server,etcd-server"}), []byte("recipe")); again != base {
		t.Errorf("same inputs gave %s and %s", again, base)
	}
}

func TestArgvIsVM(t *testing.T) {
	pids := map[string]bool{"/s/n1/qemu.pid": true}
	for _, tc := range []struct {
		argv string
		want bool
	}{
		{"/usr/bin/qemu-system-x86_64\x00-name\x00fvm-n1\x00-pidfile\x00/s/n1/qemu.pid\x00", true},
		{"/usr/bin/qemu-system-x86_64\x00-pidfile\x00/s/n2/qemu.pid\x00", false}, // another node
		{"/bin/cat\x00/s/n1/qemu.pid\x00", false},                                // not QEMU
		{"", false}, // a zombie
	} {
		if got := argvIsVM([]byte(tc.argv), pids); got != tc.want {
			t.Errorf("argvIsVM(%q) = %v, want %v", tc.argv, got, tc.want)
		}
	}
}

func TestProbeVerdict(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, console, stderr string
		timedOut              bool
		accel, why            string
	}{
		{"booted", "...\nFAULTLINE-PROBE-OK\n", "", false, "kvm", "booted under it"},
		{"internal error", "", "KVM internal error. Suberror: 1\nemulation failure\n", false, "tcg", "KVM internal error"},
		{"slow", "[ 0.0] Linux version", "", true, "tcg", "no boot within"},
		{"qemu failed", "", "", false, "tcg", "QEMU exited"},
	} {
		p := dir + "/" + strings.ReplaceAll(tc.name, " ", "-")
		if err := writeFile(p, []byte(tc.console), 0o644); err != nil {
			t.Fatal(err)
		}
		a := probeVerdict(p, tc.stderr, 3*time.Second, tc.timedOut)
		if a.Accel != tc.accel || !strings.Contains(a.Reason, tc.why) {
			t.Errorf("%s: %+v, want %s with %q", tc.name, a, tc.accel, tc.why)
		}
	}
}

func TestVMNodeStatus(t *testing.T) {
	for _, tc := range []struct {
		name string
		n    NodeStatus
		ok   bool
		why  string
	}{
		{"healthy", NodeStatus{VM: true, Link: true, SSHD: true, Reachable: true}, true, ""},
		{"qemu dead", NodeStatus{VM: true, Link: true, Reachable: false}, false, "QEMU not running, ssh unreachable"},
		{"netns still needs its namespace", NodeStatus{Link: true, SSHD: true, Reachable: true}, false, "namespace missing"},
	} {
		if tc.n.Healthy() != tc.ok || tc.n.Problems() != tc.why {
			t.Errorf("%s: healthy %v problems %q, want %v %q", tc.name, tc.n.Healthy(), tc.n.Problems(), tc.ok, tc.why)
		}
	}
}

func TestRecordKeepsVMInfoOutOfTheShape(t *testing.T) {
	c := vmTestCfg(t)
	r := recordOf(c)
	r.Info = &VMInfo{Accel: "tcg", Slowdown: 9}
	if r == recordOf(c) {
		t.Fatal("a record with info must differ as a value")
	}
	data := []byte(`{"prefix":"fvm","bridge":"fvm-br","subnet":"10.90.0.0/24","nodes":3,"vm":true,"vm_info":{"accel":"tcg","slowdown":9,"nodes":[]}}`)
	got, err := parseRecord(data, c.StateDir)
	if err != nil {
		t.Fatal(err)
	}
	if recordOf(got) != recordOf(c) {
		t.Errorf("shape of a record with vm_info: %+v, want %+v", recordOf(got), recordOf(c))
	}
}
