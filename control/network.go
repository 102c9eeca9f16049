package control

import (
	"fmt"
	"net"
	"strconv"
)

// ClientEndpoint names the test's clients as the source of a link, for
// Network.DialAddr.
const ClientEndpoint = "client"

// Network says which address a node's process listens on for a service and
// which address one endpoint dials to reach another's service. Over SSH that
// is the node's host and the service's port; in local mode (--local) every
// node shares this host, so ports are allocated per node and every link goes
// through a proxy faultline owns (package mesh), which is what lets it cut
// links without root.
type Network interface {
	// ListenAddr is the host:port the node's process binds for service;
	// port is the service's port on a real node.
	ListenAddr(node, service string, port int) (string, error)
	// DialAddr is the host:port that from (a node name, or ClientEndpoint)
	// dials to reach service on node to.
	DialAddr(from, to, service string, port int) (string, error)
}

// hostNetwork is the Network of real nodes: every node listens on its own
// host at the service's port, and everyone dials it there.
type hostNetwork struct{ p *Pool }

func (h hostNetwork) ListenAddr(node, _ string, port int) (string, error) {
	n, ok := h.p.Node(node)
	if !ok {
		return "", fmt.Errorf("unknown node %q", node)
	}
	return net.JoinHostPort(n.Host, strconv.Itoa(port)), nil
}

func (h hostNetwork) DialAddr(_, to, service string, port int) (string, error) {
	return h.ListenAddr(to, service, port)
}

// SetNetwork replaces how the pool's nodes address each other (local mode
// sets the proxy mesh). Call it before the run starts.
func (p *Pool) SetNetwork(n Network) { p.net = n }

// Network returns how the pool's nodes address each other: the one set
// with SetNetwork, or their hosts and the services' ports.
func (p *Pool) Network() Network {
	if p.net != nil {
		return p.net
	}
	return hostNetwork{p}
}
