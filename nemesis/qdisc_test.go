package nemesis

import (
	"strings"
	"testing"
)

func TestParseRootQdisc(t *testing.T) {
	for _, c := range []struct {
		line        string
		kind, owner string
		err         bool
	}{
		{"qdisc noqueue 0: root refcnt 2 ", "noqueue", qdiscDefault, false},
		{"qdisc pfifo_fast 0: root refcnt 2 bands 3 priomap 1 2 2 2 1 2 0 0 1 1 1 1 1 1 1 1", "pfifo_fast", qdiscDefault, false},
		{"qdisc fq_codel 0: root refcnt 2 limit 10240p flows 1024 quantum 1514", "fq_codel", qdiscDefault, false},
		{"qdisc mq 0: root", "mq", qdiscDefault, false},
		{"qdisc tbf fa17: root refcnt 3 rate 1Mbit burst 4Kb lat 400ms ", "tbf", qdiscOurs, false},
		{"qdisc netem fa17: root refcnt 2 limit 1000 delay 50ms", "netem", qdiscOurs, false},
		{"qdisc htb 1: root refcnt 3 r2q 10 default 0x10 direct_packets_stat 0 direct_qlen 1000", "htb", qdiscForeign, false},
		// tc numbers a qdisc added without a handle itself: still the node's.
		{"qdisc pfifo 8001: root refcnt 3 limit 1000p", "pfifo", qdiscForeign, false},
		{"qdisc fq_codel 8002: root refcnt 2 limit 10240p", "fq_codel", qdiscForeign, false},
		{"qdisc tbf fa18: root refcnt 2 rate 1Mbit", "tbf", qdiscForeign, false},
		// No root shown: nothing to destroy, taken like a default.
		{"", "", qdiscDefault, false},
		{"   ", "", qdiscDefault, false},
		{"qdisc htb 1: parent 1:10 refcnt 2", "", "", true},
		{"qdisc htb root", "", "", true},
		{"class htb 1:10 root prio 0", "", "", true},
		{"qdisc htb 1 root", "", "", true},
		{"qdisc htb 1:2 root", "", "", true},
		{"Error: Cannot find device", "", "", true},
	} {
		q, err := parseRootQdisc(c.line)
		if c.err {
			if err == nil {
				t.Errorf("parseRootQdisc(%q) = %+v, want an error", c.line, q)
			}
			continue
		}
		if err != nil {
			t.Errorf("parseRootQdisc(%q): %v", c.line, err)
			continue
		}
		if q.Kind != c.kind || q.owner() != c.owner {
			t.Errorf("parseRootQdisc(%q) = kind %q owner %s, want %q %s", c.line, q.Kind, q.owner(), c.kind, c.owner)
		}
	}
}

func TestClusterIfaceShapeable(t *testing.T) {
	for _, c := range []struct {
		name, out string
		dev       string
		parseErr  bool
		refusal   string // "" when the interface may be shaped
	}{
		{"default root", "addr 10.93.0.2\ndev eth0\nroot qdisc noqueue 0: root refcnt 2 \n", "eth0", false, ""},
		{"ours from a crashed run", "addr 10.93.0.2\ndev eth0\nroot qdisc tbf fa17: root refcnt 2 rate 1Mbit\n", "eth0", false, ""},
		{"foreign htb", "addr 10.93.0.2\ndev eth0\nroot qdisc htb 1: root refcnt 3 r2q 10 default 0x10\n", "eth0", false,
			"n2: eth0 has its own root qdisc htb 1:; faultline does not replace a qdisc it did not create"},
		{"foreign unnamed pfifo", "addr 10.93.0.2\ndev ens3\nroot qdisc pfifo 8001: root refcnt 3 limit 1000p\n", "ens3", false,
			"n2: ens3 has its own root qdisc pfifo 8001:; faultline does not replace"},
		{"no interface holds the address", "addr 10.93.0.2\ndev \n", "", false, "no interface holds the cluster address 10.93.0.2"},
		{"no address at all", "addr \ndev \n", "", false, "no cluster address"},
		{"loopback", "addr 127.0.0.1\ndev lo\nroot qdisc noqueue 0: root refcnt 2\n", "lo", false, "does not shape loopback"},
		{"root line missing", "addr 10.93.0.2\ndev eth0\n", "", true, ""},
		{"stray line", "addr 10.93.0.2\ndev eth0\nroot qdisc noqueue 0: root\nroot qdisc htb 1: root\n", "", true, ""},
		{"garbage", "Permission denied\n", "", true, ""},
		{"empty", "", "", true, ""},
		{"bad root line", "addr 10.93.0.2\ndev eth0\nroot Error: no such device\n", "", true, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			ci, err := parseClusterIface(c.out)
			if c.parseErr {
				if err == nil {
					t.Fatalf("parseClusterIface(%q) = %+v, want an error", c.out, ci)
				}
				return
			}
			if err != nil {
				t.Fatalf("parseClusterIface(%q): %v", c.out, err)
			}
			if ci.Dev != c.dev {
				t.Errorf("dev %q, want %q", ci.Dev, c.dev)
			}
			err = ci.shapeable("n2")
			switch {
			case c.refusal == "" && err != nil:
				t.Errorf("refused: %v", err)
			case c.refusal != "" && (err == nil || !strings.Contains(err.Error(), c.refusal)):
				t.Errorf("shapeable = %v, want an error containing %q", err, c.refusal)
			}
		})
	}
}

// Whatever a node prints, faultline never agrees to shape loopback, an
// interface it did not find, or one whose root qdisc is the node's own.
func FuzzParseClusterIface(f *testing.F) {
	for _, s := range []string{
		"addr 10.93.0.2\ndev eth0\nroot qdisc noqueue 0: root refcnt 2 \n",
		"addr 10.93.0.2\ndev eth0\nroot qdisc htb 1: root refcnt 3\n",
		"addr 10.93.0.2\ndev eth0\nroot qdisc tbf fa17: root refcnt 2\n",
		"addr 10.93.0.2\ndev \n",
		"addr 127.0.0.1\ndev lo\nroot qdisc noqueue 0: root\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, out string) {
		c, err := parseClusterIface(out)
		if err != nil || c.shapeable("n1") != nil {
			return
		}
		if c.Dev == "" || c.Dev == "lo" || c.Addr == "" {
			t.Fatalf("%q: agreed to shape %+v", out, c)
		}
		if h := c.Root.Handle; h != DefaultQdiscHandle && h != QdiscHandle {
			t.Fatalf("%q: agreed to replace root qdisc %v", out, c.Root)
		}
	})
}
