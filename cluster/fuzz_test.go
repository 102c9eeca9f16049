package cluster

import (
	"net/netip"
	"reflect"
	"testing"
)

// FuzzParseRecord: any cluster.json content either fails cleanly or yields
// a valid config that renders back to the same record.
func FuzzParseRecord(f *testing.F) {
	f.Add([]byte(`{"prefix":"fl","bridge":"fl-br","subnet":"10.77.0.0/24","nodes":3}`))
	f.Add([]byte(`{"prefix":"a","bridge":"b","subnet":"10.0.0.0/8","nodes":999}`))
	f.Add([]byte(`{"prefix":"v","bridge":"v-br","subnet":"10.90.0.0/24","nodes":3,"vm":true,"packages":"etcd-server"}`))
	f.Add([]byte(`{}`))
	f.Add([]byte(`[`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := parseRecord(data, "/srv/fl")
		if err != nil {
			return
		}
		again, err := parseRecord(renderRecord(c), "/srv/fl")
		if err != nil || !reflect.DeepEqual(again, c) {
			t.Fatalf("re-parse of %+v: %+v, %v", c, again, err)
		}
	})
}

// FuzzConfig: any accepted config gives names that fit the kernel's limit
// and node addresses inside the subnet, distinct from the host's.
func FuzzConfig(f *testing.F) {
	f.Add(5, "/var/lib/fl", "10.77.0.0/24", "", "fl")
	f.Add(4, "/x", "192.168.1.16/28", "br0", "a")
	f.Add(999, "/x", "10.0.0.0/8", "", "abcdefgh")
	f.Fuzz(func(t *testing.T, nodes int, dir, subnet, bridge, prefix string) {
		c, err := Config{Nodes: nodes, StateDir: dir, Subnet: subnet, Bridge: bridge, Prefix: prefix}.withDefaults()
		if err != nil {
			return
		}
		p := netip.MustParsePrefix(c.Subnet)
		host := c.hostPrefix().Addr()
		for _, i := range []int{1, c.Nodes} {
			a := c.nodeAddr(i)
			if !p.Contains(a) || a == host || a == p.Addr() {
				t.Fatalf("%+v: node %d at %s, host %s", c, i, a, host)
			}
			if n := len(c.nsName(i)); n > 15 {
				t.Fatalf("%+v: name %q is %d bytes", c, c.nsName(i), n)
			}
			if !c.isNodeLink(c.nsName(i)) {
				t.Fatalf("%+v: %q not recognised as a node link", c, c.nsName(i))
			}
		}
	})
}

// FuzzInnermostPID: /proc status parsing never panics and only reports
// positive PIDs.
func FuzzInnermostPID(f *testing.F) {
	f.Add([]byte("Name:\tsshd\nNSpid:\t8808\t1\n"))
	f.Add([]byte("NSpid:"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if pid, ok := innermostPID(data); ok && pid <= 0 {
			t.Fatalf("pid %d reported ok", pid)
		}
	})
}

// FuzzClosingSockets: the count never exceeds the number of lines.
func FuzzClosingSockets(f *testing.F) {
	f.Add([]byte(procTCP))
	f.Fuzz(func(t *testing.T, data []byte) {
		lines := 1
		for _, b := range data {
			if b == '\n' {
				lines++
			}
		}
		if n := closingSockets(data); n < 0 || n > lines {
			t.Fatalf("%d closing sockets in %d lines", n, lines)
		}
	})
}
