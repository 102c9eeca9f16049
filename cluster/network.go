package cluster

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// hostNet is what of a cluster exists on the host, found by name.
type hostNet struct {
	namespaces []string // named netns <prefix>-nX
	links      []string // host-side veths <prefix>-nX
	bridge     bool     // the bridge, and it is a bridge
}

// findHostNet lists the cluster's namespaces and links present now, from
// the names alone, so it works without (or despite) a state directory.
func findHostNet(c Config) (hostNet, error) {
	var h hostNet
	ents, err := os.ReadDir(netnsDir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return h, fmt.Errorf("list network namespaces: %w", err)
	}
	for _, e := range ents {
		if c.isNodeLink(e.Name()) {
			h.namespaces = append(h.namespaces, e.Name())
		}
	}
	ifs, err := net.Interfaces()
	if err != nil {
		return h, fmt.Errorf("list links: %w", err)
	}
	for _, ifc := range ifs {
		switch {
		case c.isNodeLink(ifc.Name):
			h.links = append(h.links, ifc.Name)
		case ifc.Name == c.Bridge && isBridge(ifc.Name):
			h.bridge = true
		}
	}
	return h, nil
}

func isBridge(name string) bool {
	_, err := os.Stat(filepath.Join("/sys/class/net", name, "bridge"))
	return err == nil
}

// checkSubnetFree refuses a subnet that overlaps an address on any other
// interface: routing it to the bridge would cut the host off that network.
func checkSubnetFree(c Config) error {
	subnet := netip.MustParsePrefix(c.Subnet)
	ifs, err := net.Interfaces()
	if err != nil {
		return fmt.Errorf("list links: %w", err)
	}
	for _, ifc := range ifs {
		if ifc.Name == c.Bridge {
			continue
		}
		addrs, err := ifc.Addrs()
		if err != nil {
			return fmt.Errorf("addresses of %s: %w", ifc.Name, err)
		}
		for _, a := range addrs {
			ipn, ok := a.(*net.IPNet)
			if !ok {
				continue
			}
			p, err := netip.ParsePrefix(ipn.String())
			if err == nil && p.Overlaps(subnet) {
				return fmt.Errorf("subnet %s overlaps %s on %s; choose another subnet", c.Subnet, p, ifc.Name)
			}
		}
	}
	return nil
}

// bridgeHealthy reports whether the bridge is up and holds the host address.
func bridgeHealthy(c Config) bool {
	ifc, err := net.InterfaceByName(c.Bridge)
	if err != nil || ifc.Flags&net.FlagUp == 0 || !isBridge(c.Bridge) {
		return false
	}
	addrs, err := ifc.Addrs()
	if err != nil {
		return false
	}
	want := c.hostPrefix().String()
	for _, a := range addrs {
		if a.String() == want {
			return true
		}
	}
	return false
}

// nodeLinkHealthy reports whether node i's host-side veth is up on the bridge.
func nodeLinkHealthy(c Config, i int) bool {
	name := c.nsName(i)
	ifc, err := net.InterfaceByName(name)
	if err != nil || ifc.Flags&net.FlagUp == 0 {
		return false
	}
	master, err := os.Readlink(filepath.Join("/sys/class/net", name, "master"))
	return err == nil && filepath.Base(master) == c.Bridge
}

// macOf derives a link address from an IPv4 address (02:00 then the four
// bytes: locally administered, unicast). Fixed link addresses keep every ARP
// cache valid when Up rebuilds a node, and keep the bridge's address from
// following its lowest-numbered port; random ones left peers sending to a
// vanished MAC for half a minute after a repair.
func macOf(a netip.Addr) string {
	b := a.As4()
	return fmt.Sprintf("02:00:%02x:%02x:%02x:%02x", b[0], b[1], b[2], b[3])
}

// createNet makes, in one ip batch (each ip start costs milliseconds, tens
// on a loaded host), the given nodes' namespaces and veth pairs (host end on
// the bridge, node end named eth0 and moved inside), and the bridge first
// when withBridge. configureLinks sets the node side up when the node
// starts; only the subnet route exists there: no default route, no way out.
func createNet(ctx context.Context, ip string, c Config, nodes []int, withBridge bool) error {
	var host [][]string
	if withBridge {
		host = append(host,
			[]string{"link", "add", c.Bridge, "address", macOf(c.hostPrefix().Addr()), "type", "bridge"},
			[]string{"addr", "add", c.hostPrefix().String(), "dev", c.Bridge},
			[]string{"link", "set", c.Bridge, "up"})
	}
	for _, i := range nodes {
		ns := c.nsName(i)
		host = append(host,
			[]string{"netns", "add", ns},
			[]string{"link", "add", ns, "type", "veth", "peer", "name", "eth0", "address", macOf(c.nodeAddr(i)), "netns", ns},
			[]string{"link", "set", ns, "master", c.Bridge, "up"})
	}
	if err := ipBatch(ctx, ip, "", false, host); err != nil {
		return fmt.Errorf("create cluster network: %w", err)
	}
	return nil
}

// deleteNet removes the given links and namespaces, and the bridge when
// h.bridge, in one forced batch. The veths go first and explicitly:
// deleting one removes both ends at once, even while its namespace lingers,
// kept alive by dying sockets. Whatever still exists afterwards is an error.
func deleteNet(ctx context.Context, ip string, h hostNet, bridge string) error {
	var cmds [][]string
	for _, l := range h.links {
		cmds = append(cmds, []string{"link", "del", l})
	}
	for _, ns := range h.namespaces {
		cmds = append(cmds, []string{"netns", "del", ns})
	}
	if h.bridge {
		cmds = append(cmds, []string{"link", "del", bridge})
	}
	if len(cmds) == 0 {
		return nil
	}
	batchErr := ipBatch(ctx, ip, "", true, cmds)
	var left []string
	for _, l := range h.links {
		if linkExists(l) {
			left = append(left, "link "+l)
		}
	}
	for _, ns := range h.namespaces {
		if _, err := os.Lstat(filepath.Join(netnsDir, ns)); err == nil {
			left = append(left, "netns "+ns)
		}
	}
	if h.bridge && linkExists(bridge) {
		left = append(left, "bridge "+bridge)
	}
	if len(left) > 0 {
		return fmt.Errorf("delete cluster network: %s still there: %w", strings.Join(left, ", "), batchErr)
	}
	return nil
}

func linkExists(name string) bool {
	_, err := net.InterfaceByName(name)
	return err == nil
}

// settleTimeout bounds the wait for killed nodes' TCP connections to close.
const settleTimeout = time.Second

// settleSockets waits, with the bridge still up, until the namespaces hold
// no TCP socket that is still closing. A socket of a killed process lives on
// in FIN-WAIT and keeps its (by then invisible) namespace for a minute or
// more when its peer is unreachable; with the bridge up the FIN exchange
// takes microseconds. Best effort: after settleTimeout Down goes on.
func settleSockets(ctx context.Context, namespaces []string) {
	ctx, cancel := context.WithTimeout(ctx, settleTimeout)
	defer cancel()
	for {
		pending := 0
		for _, ns := range namespaces {
			n, err := closingIn(ns)
			if err == nil {
				pending += n
			}
		}
		if pending == 0 {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// closingIn counts the closing TCP sockets of a named namespace, reading
// /proc/thread-self/net/tcp{,6} from a thread inside it: no process has to
// run there and no ss starts per node.
func closingIn(ns string) (int, error) {
	total := 0
	err := inNetns(ns, func() error {
		for _, table := range []string{"tcp", "tcp6"} {
			b, err := os.ReadFile("/proc/thread-self/net/" + table)
			if errors.Is(err, os.ErrNotExist) {
				continue // no IPv6 in this kernel
			}
			if err != nil {
				return fmt.Errorf("tcp table of %s: %w", ns, err)
			}
			total += closingSockets(b)
		}
		return nil
	})
	return total, err
}

// TCP states in /proc/net/tcp that need no wait: the kernel purges
// TIME_WAIT sockets when a namespace exits, and CLOSE and LISTEN ones die
// with their process.
const (
	tcpTimeWait = "06"
	tcpClose    = "07"
	tcpListen   = "0A"
)

// closingSockets counts the sockets in a /proc/net/tcp table (header line,
// then "sl local remote st ...") whose state still needs the network.
func closingSockets(table []byte) int {
	n := 0
	for line := range bytes.SplitSeq(table, []byte{'\n'}) {
		f := bytes.Fields(line)
		if len(f) < 4 || string(f[0]) == "sl" {
			continue
		}
		switch string(f[3]) {
		case tcpTimeWait, tcpClose, tcpListen:
		default:
			n++
		}
	}
	return n
}

// forwardWarnings flags a host whose bridged traffic goes through an
// iptables FORWARD chain that does not accept it (Docker sets DROP): node
// to node traffic would then vanish.
func forwardWarnings(ctx context.Context) []string {
	b, err := os.ReadFile("/proc/sys/net/bridge/bridge-nf-call-iptables")
	if err != nil || strings.TrimSpace(string(b)) != "1" {
		return nil
	}
	ipt, err := exec.LookPath("iptables")
	if err != nil {
		return nil
	}
	out, err := run(ctx, nil, ipt, "-w", "-S", "FORWARD")
	if err != nil || bytes.Contains(out, []byte("-P FORWARD ACCEPT")) {
		return nil
	}
	return []string{"br_netfilter is on and the host's iptables FORWARD policy is not ACCEPT: traffic between nodes may be dropped"}
}
