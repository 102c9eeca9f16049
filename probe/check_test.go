package probe

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io/fs"
	"os/exec"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"
	"time"
)

// fakeEnv is a host with the given commands on PATH (name -> version output),
// the given euid and files. It records every command it is asked to run.
type fakeEnv struct {
	cmds map[string]string
	euid int
	fs   fstest.MapFS
	ran  []string
}

func (f *fakeEnv) env() Env {
	return Env{
		LookPath: func(name string) (string, error) {
			if _, ok := f.cmds[name]; ok {
				return "/usr/bin/" + name, nil
			}
			return "", exec.ErrNotFound
		},
		Run: func(ctx context.Context, path string, args ...string) ([]byte, error) {
			f.ran = append(f.ran, path+" "+strings.Join(args, " "))
			name := path[strings.LastIndexByte(path, '/')+1:]
			return []byte(f.cmds[name]), errors.New("exit status 1") // output must be used even on error
		},
		Euid: func() int { return f.euid },
		FS:   f.fs,
	}
}

func gz(t *testing.T, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	if _, err := w.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func req(name string, caps ...string) Requirement {
	return Requirement{Name: name, Capabilities: caps, UsedBy: []string{"S1"}}
}

func TestCheck(t *testing.T) {
	full := func() *fakeEnv {
		return &fakeEnv{
			cmds: map[string]string{
				"iptables": "iptables v1.8.9 (nf_tables)\n", "tc": "tc utility, iproute2-6.1.0, libbpf 1.1.0\n",
				"etcd": "etcd Version: 3.5.9\nGit SHA: x\n", "sshd": "OpenSSH_9.2p1 Debian-2, OpenSSL 3.0.11\n",
				"ip": "ip utility, iproute2-6.1.0\n",
			},
			fs: fstest.MapFS{"sys/module/sch_netem": {Mode: fs.ModeDir | 0o755}, "proc/self/ns/net": {}},
		}
	}
	tests := []struct {
		name string
		env  *fakeEnv
		req  Requirement
		opt  Options
		want Row // Requirement is filled in from req
	}{
		{name: "command with backend", env: full(), req: req("iptables", "iptables"),
			want: Row{Present: Yes, Version: "1.8.9 (nf_tables)", Source: "iptables --version"}},
		{name: "command missing is installable", env: &fakeEnv{}, req: req("iptables", "iptables"),
			want: Row{Present: No, Source: "which iptables", Note: "iptables not on PATH", Install: "apt-get install iptables"}},
		{name: "root as non-root", env: &fakeEnv{euid: 1000}, req: req("root", "root"),
			want: Row{Present: No, Source: "euid", Note: "euid 1000, needs root"}},
		{name: "root", env: &fakeEnv{}, req: req("root", "root"), want: Row{Present: Yes, Source: "euid"}},
		{name: "netem loaded", env: full(), req: req("tc-netem", "tc-netem"),
			want: Row{Present: Yes, Version: "6.1.0", Source: "tc -V, /sys/module/sch_netem"}},
		{name: "netem per kernel config", env: &fakeEnv{cmds: map[string]string{"tc": "iproute2-6.1.0"},
			fs: fstest.MapFS{"proc/config.gz": {Data: gz(t, "CONFIG_X=y\nCONFIG_NET_SCH_NETEM=m\n")}}},
			req: req("tc-netem", "tc-netem"), want: Row{Present: Yes, Version: "6.1.0", Source: "tc -V, /proc/config.gz"}},
		{name: "netem absent from kernel config", env: &fakeEnv{cmds: map[string]string{"tc": "iproute2-6.1.0"},
			fs: fstest.MapFS{"proc/config.gz": {Data: gz(t, "# CONFIG_NET_SCH_NETEM is not set\n")}}},
			req: req("tc-netem", "tc-netem"), want: Row{Present: No, Version: "6.1.0", Source: "tc -V, /proc/config.gz",
				Note: "CONFIG_NET_SCH_NETEM not set in the kernel config"}},
		{name: "netem module shipped", env: &fakeEnv{cmds: map[string]string{"tc": "iproute2-6.1.0"},
			fs: fstest.MapFS{"proc/sys/kernel/osrelease": {Data: []byte("6.1.0-13-amd64\n")},
				"lib/modules/6.1.0-13-amd64/kernel/net/sched/sch_netem.ko.xz": {}}},
			req: req("tc-netem", "tc-netem"), want: Row{Present: Yes, Version: "6.1.0", Source: "tc -V, /lib/modules/6.1.0-13-amd64"}},
		{name: "netem undecidable", env: &fakeEnv{cmds: map[string]string{"tc": "iproute2-6.1.0"}}, req: req("tc-netem", "tc-netem"),
			want: Row{Present: Unknown, Version: "6.1.0", Source: "tc -V, /sys/module, /proc/config.gz",
				Note: "cannot tell whether the kernel has sch_netem"}},
		{name: "multi-capability row is as bad as its worst part", env: full(),
			req:  Requirement{Name: "netns + sshd", Capabilities: []string{"netns", "sshd", "root"}, FromPlan: true},
			opt:  Options{},
			want: Row{Present: Yes, Version: "6.1.0; 9.2p1", Source: "ip -V, stat /proc/self/ns/net; sshd -V; euid"}},
		{name: "multi-capability row missing a part", env: &fakeEnv{cmds: map[string]string{"ip": "iproute2-6.1.0"}, euid: 1},
			req: Requirement{Name: "netns + sshd", Capabilities: []string{"netns", "sshd"}, FromPlan: true,
				InstallHint: "`faultline cluster up`"},
			want: Row{Present: No, Version: "6.1.0", Source: "ip -V, stat /proc/self/ns/net; which sshd",
				Note: "/proc/self/ns/net absent; sshd not on PATH", Install: "apt-get install openssh-server"}},
		{name: "version below floor", env: full(), req: Requirement{Name: "etcd-server", Capabilities: []string{"etcd-server"},
			VersionFloor: "3.6+", FromPlan: true, InstallHint: "`apt-get install etcd-server`"},
			want: Row{Present: No, Version: "3.5.9", Source: "etcd --version", Note: "version 3.5.9 is below the floor 3.6+",
				Install: "apt-get install etcd-server"}},
		{name: "version at floor", env: full(), req: Requirement{Name: "etcd-server", Capabilities: []string{"etcd-server"}, VersionFloor: "3.5"},
			want: Row{Present: Yes, Version: "3.5.9", Source: "etcd --version"}},
		{name: "unknown requirement looked up on PATH", env: &fakeEnv{cmds: map[string]string{"kafka": "kafka 3.7.0"}},
			req: req("Kafka"), want: Row{Present: Yes, Version: "3.7.0", Source: "kafka --version"}},
		{name: "unprobeable requirement", env: &fakeEnv{}, req: req("a 10 GbE link (two hosts)"),
			want: Row{Present: Unknown, Note: "no probe known for this requirement"}},
		{name: "assumed present is not probed", env: &fakeEnv{}, req: req("iptables", "iptables"),
			opt: Options{Assume: map[string]bool{"IPTABLES": true}}, want: Row{Present: AssumedYes, Source: "operator"}},
		{name: "assumed absent", env: full(), req: req("iptables", "iptables"),
			opt:  Options{Assume: map[string]bool{"iptables": false}},
			want: Row{Present: AssumedNo, Source: "operator", Install: "apt-get install iptables"}},
		{name: "skipped by name", env: full(), req: req("iptables", "iptables"),
			opt: Options{Skip: []string{"iptables"}}, want: Row{Present: Skipped, Source: "operator"}},
		{name: "skipped because every dependent scenario is", env: full(), req: req("iptables", "iptables"),
			opt: Options{Skip: []string{"S1"}}, want: Row{Present: Skipped, Source: "operator"}},
		{name: "an assumed part of a row is not probed, the others are", env: &fakeEnv{euid: 1000,
			cmds: map[string]string{"iptables": "iptables v1.8.7 (legacy)"}},
			req: req("iptables (CAP_NET_ADMIN)", "root", "iptables"), opt: Options{Assume: map[string]bool{"root": true}},
			want: Row{Present: AssumedYes, Version: "1.8.7 (legacy)", Source: "operator; iptables --version"}},
		{name: "an assumed-absent part makes the row absent", env: full(),
			req: req("iptables (CAP_NET_ADMIN)", "root", "iptables"), opt: Options{Assume: map[string]bool{"Root": false}},
			want: Row{Present: AssumedNo, Version: "1.8.9 (nf_tables)", Source: "operator; iptables --version"}},
		{name: "a probed absence outranks an assumption", env: &fakeEnv{euid: 1000},
			req: req("iptables (CAP_NET_ADMIN)", "root", "iptables"), opt: Options{Assume: map[string]bool{"iptables": true}},
			want: Row{Present: No, Source: "euid; operator", Note: "euid 1000, needs root"}},
		{name: "skipped by a capability it names", env: full(), req: req("iptables (CAP_NET_ADMIN)", "root", "iptables"),
			opt: Options{Skip: []string{"IPTABLES"}}, want: Row{Present: Skipped, Source: "operator"}},
		{name: "not skipped while one dependent scenario still runs", env: full(),
			req: Requirement{Name: "iptables", Capabilities: []string{"iptables"}, UsedBy: []string{"S1", "S2"}},
			opt: Options{Skip: []string{"S1"}}, want: Row{Present: Yes, Version: "1.8.9 (nf_tables)", Source: "iptables --version"}},
		{name: "assumed rows are not compared with answers", env: &fakeEnv{}, req: req("iptables", "iptables"),
			opt:  Options{Assume: map[string]bool{"iptables": true}, Said: map[string]bool{"iptables": false}},
			want: Row{Present: AssumedYes, Source: "operator"}},
		{name: "brought up by the SUT", env: &fakeEnv{}, req: Requirement{Name: "compose stack", BySUT: true},
			want: Row{Present: BySUT, Source: "plan §6b"}},
		{name: "operator said yes, probe disagrees", env: &fakeEnv{}, req: req("iptables", "iptables"),
			opt: Options{Said: map[string]bool{"iptables": true}},
			want: Row{Present: No, Source: "which iptables", Note: "iptables not on PATH", Install: "apt-get install iptables",
				Differs: "operator said yes, probe found no"}},
		{name: "operator said no, probe agrees", env: &fakeEnv{}, req: req("iptables", "iptables"),
			opt:  Options{Said: map[string]bool{"iptables": false}},
			want: Row{Present: No, Source: "which iptables", Note: "iptables not on PATH", Install: "apt-get install iptables"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.opt.Env = tt.env.env()
			m := Check(context.Background(), []Requirement{tt.req}, tt.opt)
			tt.want.Requirement = tt.req
			if len(m.Rows) != 1 || !reflect.DeepEqual(m.Rows[0], tt.want) {
				t.Errorf("Check:\n got %+v\nwant %+v", m.Rows, tt.want)
			}
		})
	}
}

func TestCheckNeverRunsInstalls(t *testing.T) {
	f := &fakeEnv{cmds: map[string]string{"tc": "iproute2-6.1.0", "iptables": "iptables v1.8.9 (legacy)"}}
	reqs := Requirements(nil, map[string][]string{"S1": {"iptables", "tc-netem", "postgresql", "docker", "compose"}})
	o := Options{Env: f.env()}
	Check(context.Background(), reqs, o)
	for _, cmd := range f.ran {
		if strings.Contains(cmd, "install") || strings.Contains(cmd, "apt") || strings.Contains(cmd, "qdisc") {
			t.Errorf("probe ran %q; it may only run version commands", cmd)
		}
	}
	if len(f.ran) == 0 {
		t.Error("no version command ran")
	}
}

// TestCheckRealShell runs one real probe on this host: sh must be present.
func TestCheckRealShell(t *testing.T) {
	m := Check(context.Background(), []Requirement{req("sh", "sh")}, Options{})
	if r := m.Rows[0]; r.Present != Yes || r.Source != "sh -c 'echo sh'" {
		t.Errorf("real sh probe: %+v", r)
	}
}

func TestBelowFloor(t *testing.T) {
	tests := []struct {
		version, floor string
		want           bool
	}{
		{"3.5.9", "3.5", false},
		{"3.4.27", "3.5", true},
		{"3.10.0", "3.9", false},
		{"2.20.2", "2.20+", false},
		{"9.2p1", "9.3", true},
		{"1.26", "1.26.1", true},
		{"5.15.0", "Linux 5.10", false},
		{"1.0", "any", false},
		{"1.0", "", false},
		{"", "1.0", true},
	}
	for _, tt := range tests {
		if got := belowFloor(tt.version, tt.floor); got != tt.want {
			t.Errorf("belowFloor(%q, %q) = %v, want %v", tt.version, tt.floor, got, tt.want)
		}
	}
}

func FuzzBelowFloor(f *testing.F) {
	f.Add("3.5.9", "3.5+")
	f.Add("", "")
	f.Add("99999999999999999999.1", "1.99999999999999999999")
	f.Fuzz(func(t *testing.T, v, floor string) {
		belowFloor(v, floor) // must not panic on any input
	})
}

func TestInstallCommand(t *testing.T) {
	tests := []struct {
		hint  string
		parts []string
		want  string
	}{
		{"`apt-get install etcd-server`", nil, "apt-get install etcd-server"},
		{"on macOS: `brew install toxiproxy` (or build it)", nil, "brew install toxiproxy"},
		{"apt install a b; then restart", nil, "apt install a b"},
		{"`faultline cluster up --nodes 5` (root)", []string{"apt-get install openssh-server"}, "apt-get install openssh-server"},
		{"preinstalled", []string{"", "apt-get install iptables", "apt-get install iptables", "apt-get install iproute2"},
			"apt-get install iptables && apt-get install iproute2"},
		{"needs root", []string{""}, ""},
	}
	for _, tt := range tests {
		if got := installCommand(tt.hint, tt.parts); got != tt.want {
			t.Errorf("installCommand(%q, %q) = %q, want %q", tt.hint, tt.parts, got, tt.want)
		}
	}
}

func TestCheckCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	f := &fakeEnv{cmds: map[string]string{"iptables": "iptables v1.8.9"}}
	m := Check(ctx, []Requirement{req("iptables", "iptables")}, Options{Env: f.env()})
	if r := m.Rows[0]; r.Present != Unknown || r.Note != "probe cancelled" || len(f.ran) != 0 {
		t.Errorf("cancelled Check: %+v, ran %q", r, f.ran)
	}
	if got := m.Missing("S1"); len(got) != 1 {
		t.Errorf("a cancelled probe must count as missing, got %q", got)
	}
}

// TestCheckBoundsVersionCommands checks that every version command runs under
// a deadline, so a hung tool cannot stall the session.
func TestCheckBoundsVersionCommands(t *testing.T) {
	f := &fakeEnv{cmds: map[string]string{"etcd": ""}}
	env := f.env()
	env.Run = func(ctx context.Context, path string, args ...string) ([]byte, error) {
		if _, ok := ctx.Deadline(); !ok {
			t.Errorf("%s ran without a deadline", path)
		}
		<-ctx.Done() // behave like a hung tool
		return nil, ctx.Err()
	}
	m := Check(context.Background(), []Requirement{req("etcd", "etcd-server")}, Options{Env: env, Timeout: time.Millisecond})
	if r := m.Rows[0]; r.Present != Yes || r.Version != "" {
		t.Errorf("hung version command: %+v (found on PATH, so present without a version)", r)
	}
}

func TestCommandLine(t *testing.T) {
	tests := []struct {
		argv []string
		want string
	}{
		{[]string{"tc", "-V"}, "tc -V"},
		{[]string{"sh", "-c", "echo sh"}, "sh -c 'echo sh'"},
		{[]string{"sh", "-c", "it's"}, `sh -c 'it'\''s'`},
	}
	for _, tt := range tests {
		if got := commandLine(tt.argv); got != tt.want {
			t.Errorf("commandLine(%q) = %q, want %q", tt.argv, got, tt.want)
		}
	}
}
