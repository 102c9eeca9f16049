package mesh

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"strconv"
	"strings"
)

// Ports for the nodes' real listeners are drawn below the kernel's
// ephemeral range (Linux: 32768-60999, macOS: 49152-65535), where the
// proxies' own listeners (port 0) are placed, so a port handed to a node
// cannot be taken by a proxy before the node binds it.
const (
	realPortLow  = 20000
	realPortHigh = 32000
)

// ListenAddr is the address node's process should bind for service: a free
// port on the mesh host, allocated and registered (Add) on first use, so
// the proxies into it exist before any peer dials. port, the service's port
// on a real node, is not used: on one host every node needs its own.
// Together with DialAddr it makes a Mesh a control.Network.
func (m *Mesh) ListenAddr(node, service string, _ int) (string, error) {
	m.alloc.Lock()
	defer m.alloc.Unlock()
	m.mu.Lock()
	addr, ok := m.services[node][service]
	m.mu.Unlock()
	if ok {
		return addr, nil
	}
	addr, err := m.freeAddr()
	if err != nil {
		return "", fmt.Errorf("mesh: %s/%s: %w", node, service, err)
	}
	if err := m.Add(node, service, addr); err != nil {
		return "", err
	}
	return addr, nil
}

// DialAddr is the proxy address from dials to reach service on node to.
func (m *Mesh) DialAddr(from, to, service string, port int) (string, error) {
	if _, err := m.ListenAddr(to, service, port); err != nil {
		return "", err
	}
	return m.Addr(from, to, service)
}

// freeAddr finds a port in the real-port range that can be bound now.
func (m *Mesh) freeAddr() (string, error) {
	var errs []error
	for range 50 {
		port := realPortLow + rand.IntN(realPortHigh-realPortLow)
		addr := net.JoinHostPort(m.host, strconv.Itoa(port))
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		ln.Close()
		return addr, nil
	}
	return "", fmt.Errorf("no free port in %d-%d: %w", realPortLow, realPortHigh, errors.Join(errs[:3]...))
}

// Shapes reads back the shaping in force, per node (nodes without any are
// absent), as the landing evidence of a shaping fault.
func (m *Mesh) Shapes() map[string]Shaping {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make(map[string]Shaping, len(m.shapes))
	for n, sh := range m.shapes {
		out[n] = sh.s
	}
	return out
}

// String renders a shaping for evidence and logs ("none" when zero).
func (s Shaping) String() string {
	if s == (Shaping{}) {
		return "none"
	}
	var parts []string
	if s.Latency > 0 || s.Jitter > 0 {
		parts = append(parts, fmt.Sprintf("latency %s jitter %s", s.Latency, s.Jitter))
	}
	if s.Bandwidth > 0 {
		parts = append(parts, fmt.Sprintf("bandwidth %d B/s", s.Bandwidth))
	}
	if s.Loss > 0 {
		parts = append(parts, fmt.Sprintf("connection loss %g", s.Loss))
	}
	return strings.Join(parts, ", ")
}
