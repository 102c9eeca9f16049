package cluster

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestRenderedFiles(t *testing.T) {
	c := defaultConfig(t, 3)
	keys := []string{
		"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA1 n1",
		"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA2 n2",
		"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA3",
	}
	kh, err := renderKnownHosts(c, keys)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []struct {
		name string
		data []byte
	}{
		{"nodes.golden", renderNodes(c)},
		{"known_hosts.golden", kh},
		{"hosts.golden", renderHosts(c)},
		{"sshd_config.golden", renderSSHDConfig(c, 2)},
		{"fstab.golden", renderFstab(c, 2, true)},
		{"ssh_config.golden", renderSSHConfig(c)},
		{"cluster.json.golden", renderRecord(c)},
	} {
		t.Run(f.name, func(t *testing.T) { golden(t, f.name, f.data) })
	}
	if _, err := renderKnownHosts(c, []string{keys[0], "garbage", keys[2]}); err == nil || !strings.Contains(err.Error(), "n2") {
		t.Errorf("malformed host key: err %v, want one naming n2", err)
	}
}

func TestFstabWithoutHostname(t *testing.T) {
	c := defaultConfig(t, 1)
	got := string(renderFstab(c, 1, false))
	if strings.Contains(got, "hostname") || !strings.Contains(got, "/var/lib/faultline/cluster/n1/hosts /etc/hosts none bind 0 0\n") {
		t.Errorf("fstab for a host without /etc/hostname:\n%s", got)
	}
}

func TestRecordRoundTrip(t *testing.T) {
	for _, cfg := range []Config{
		{Nodes: 7, StateDir: "/srv/fl", Subnet: "10.9.8.0/24", Prefix: "abc", Bridge: "abcbr"},
		{Nodes: 3, StateDir: "/srv/vm", Subnet: "10.9.7.0/24", Prefix: "vm", VM: true, Packages: []string{"redis-server", "etcd-server"}},
	} {
		c, err := cfg.withDefaults()
		if err != nil {
			t.Fatal(err)
		}
		got, err := parseRecord(renderRecord(c), c.StateDir)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, c) {
			t.Errorf("round trip: %+v, want %+v", got, c)
		}
	}
}

func TestParseRecordErrors(t *testing.T) {
	tests := []struct{ name, data, want string }{
		{"not json", "nodes=3", "invalid character"},
		{"unknown field", `{"prefix":"fl","bridge":"fl-br","subnet":"10.77.0.0/24","nodes":3,"x":1}`, "unknown field"},
		{"missing nodes", `{"prefix":"fl","bridge":"fl-br","subnet":"10.77.0.0/24"}`, "incomplete"},
		{"bad prefix", `{"prefix":"F L","bridge":"fl-br","subnet":"10.77.0.0/24","nodes":3}`, "prefix"},
		{"bad subnet", `{"prefix":"fl","bridge":"fl-br","subnet":"10.77.0.0/33","nodes":3}`, "subnet"},
		{"too many nodes", `{"prefix":"fl","bridge":"fl-br","subnet":"10.77.0.0/28","nodes":5}`, "do not fit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseRecord([]byte(tt.data), "/srv/fl")
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "/srv/fl/cluster.json") {
				t.Errorf("err %v, want one naming the file and %q", err, tt.want)
			}
		})
	}
}

func TestReadRecordMissing(t *testing.T) {
	_, ok, err := readRecord(filepath.Join(t.TempDir(), "absent"))
	if ok || err != nil {
		t.Errorf("absent record: ok %v err %v, want false, nil", ok, err)
	}
}

func TestRemoveStateDirKeepsForeignFiles(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{recordFile, nodesFile, knownHostsFile, "n1/opt/data", "n12/tmp/x", "notes.txt", "n01/keep"} {
		p := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	err := removeStateDir(dir)
	if err == nil || !strings.Contains(err.Error(), "left in place") {
		t.Errorf("err %v, want a refusal to remove a directory with foreign files", err)
	}
	ents, _ := os.ReadDir(dir)
	var left []string
	for _, e := range ents {
		left = append(left, e.Name())
	}
	if strings.Join(left, ",") != "n01,notes.txt" {
		t.Errorf("left %v, want only the files faultline did not write", left)
	}
	os.Remove(filepath.Join(dir, "notes.txt"))
	os.RemoveAll(filepath.Join(dir, "n01"))
	if err := removeStateDir(dir); err != nil {
		t.Errorf("now empty of foreign files: %v", err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("state dir still there: %v", err)
	}
}
