package cluster

import (
	"net/netip"
	"reflect"
	"strings"
	"testing"
)

func TestConfigDefaults(t *testing.T) {
	c, err := Config{}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	want := Config{Nodes: 5, StateDir: "/var/lib/faultline/cluster", Subnet: "10.77.0.0/24", Bridge: "fl-br", Prefix: "fl",
		ImageCache: DefaultImageCache, MemoryMB: defaultMemoryMB}
	if !reflect.DeepEqual(c, want) {
		t.Errorf("defaults %+v, want %+v", c, want)
	}
	c, err = Config{Prefix: "jep", Subnet: "10.5.5.77/24", StateDir: "/srv/x/"}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	if c.Bridge != "jep-br" || c.Subnet != "10.5.5.0/24" || c.StateDir != "/srv/x" {
		t.Errorf("derived fields: %+v", c)
	}
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		want string // substring of the error; "" means valid
	}{
		{"defaults", Config{}, ""},
		{"max in /24", Config{Nodes: 244}, ""},
		{"one too many in /24", Config{Nodes: 245}, "at most 244"},
		{"/28 holds 4", Config{Nodes: 4, Subnet: "10.1.1.0/28"}, ""},
		{"/28 not 5", Config{Nodes: 5, Subnet: "10.1.1.0/28"}, "at most 4"},
		{"/30 holds none", Config{Nodes: 1, Subnet: "10.1.1.0/30"}, "at most 0"},
		{"/16 capped by names", Config{Nodes: 1000, Subnet: "10.1.0.0/16"}, "at most 999"},
		{"negative nodes", Config{Nodes: -1}, "at least 1"},
		{"vm packages", Config{VM: true, Packages: []string{"etcd-server,redis-server", " etcd-server"}}, ""},
		{"packages without vm", Config{Packages: []string{"etcd-server"}}, "add --vm"},
		{"bad package name", Config{VM: true, Packages: []string{"etcd;rm"}}, "not a Debian package name"},
		{"tiny vm", Config{VM: true, MemoryMB: 64}, "at least 128"},
		{"ipv6", Config{Subnet: "fd00::/64"}, "IPv4"},
		{"garbage subnet", Config{Subnet: "ten"}, "subnet"},
		{"prefix upper case", Config{Prefix: "FL"}, "prefix"},
		{"prefix too long", Config{Prefix: "abcdefghi"}, "prefix"},
		{"prefix starts with digit", Config{Prefix: "1a"}, "prefix"},
		{"prefix with dash", Config{Prefix: "a-b"}, "prefix"},
		{"bridge too long", Config{Bridge: "abcdefghijklmnop"}, "bridge"},
		{"bridge with space", Config{Bridge: "a b"}, "bridge"},
		{"bridge like a node link", Config{Bridge: "fl-n3"}, "collides"},
		{"relative state dir", Config{StateDir: "state"}, "absolute"},
		{"state dir with a space", Config{StateDir: "/srv/my state"}, "use only"},
		{"state dir with a quote", Config{StateDir: `/srv/a"b`}, "use only"},
		{"state dir with a newline", Config{StateDir: "/srv/a\nb"}, "use only"},
		{"root state dir", Config{StateDir: "/"}, "must not be /"},
		{"state dir in /tmp", Config{StateDir: "/tmp/fl"}, "outside /opt, /tmp, /root and /run"},
		{"state dir is /root", Config{StateDir: "/root"}, "/root"},
		{"state dir in /run", Config{StateDir: "/run/fl"}, "/run"},
		{"state dir /tmpfoo is fine", Config{StateDir: "/tmpfoo/fl"}, ""},
		{"state dir /var/tmp is fine", Config{StateDir: "/var/tmp/fl"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.cfg.withDefaults()
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("unexpected error: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("err %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestAddressing(t *testing.T) {
	tests := []struct {
		subnet     string
		host       string
		node, addr string
		i          int
	}{
		{"10.77.0.0/24", "10.77.0.1/24", "n1", "10.77.0.11/24", 1},
		{"10.77.0.0/24", "10.77.0.1/24", "n244", "10.77.0.254/24", 244},
		{"10.1.0.0/16", "10.1.0.1/16", "n300", "10.1.1.54/16", 300},
		{"192.168.9.16/28", "192.168.9.17/28", "n4", "192.168.9.30/28", 4},
	}
	for _, tt := range tests {
		c, err := Config{Nodes: tt.i, Subnet: tt.subnet}.withDefaults()
		if err != nil {
			t.Fatalf("%s: %v", tt.subnet, err)
		}
		if got := c.hostPrefix().String(); got != tt.host {
			t.Errorf("%s host: %s, want %s", tt.subnet, got, tt.host)
		}
		if got := c.nodePrefix(tt.i).String(); got != tt.addr || nodeName(tt.i) != tt.node {
			t.Errorf("%s %s: %s, want %s", tt.subnet, nodeName(tt.i), got, tt.addr)
		}
	}
	if got := macOf(netip.MustParseAddr("10.77.0.12")); got != "02:00:0a:4d:00:0c" {
		t.Errorf("macOf: %s", got)
	}
}

func TestIsNodeLink(t *testing.T) {
	c := defaultConfig(t, 3)
	for name, want := range map[string]bool{
		"fl-n1": true, "fl-n999": true, "fl-n42": true,
		"fl-n0": false, "fl-n01": false, "fl-n1000": false, "fl-n": false, "fl-nx": false,
		"fl-br": false, "flt-n1": false, "xfl-n1": false, "fl-n1a": false, "eth0": false,
	} {
		if got := c.isNodeLink(name); got != want {
			t.Errorf("isNodeLink(%q) = %v, want %v", name, got, want)
		}
	}
	for name, want := range map[string]int{"fl-n1": 1, "fl-n42": 42, "fl-n999": 999, "fl-br": 0, "fl-n01": 0} {
		if got := c.nodeIndex(name); got != want {
			t.Errorf("nodeIndex(%q) = %d, want %d", name, got, want)
		}
	}
}
