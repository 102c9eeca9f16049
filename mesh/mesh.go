// Package mesh is a TCP proxy mesh for running every node of a system under
// test as a process on one host without root. Each directed link (from, to,
// service) gets its own proxy listener; nodes and clients dial the proxy
// instead of the real address, so partitions, latency, bandwidth limits and
// connection loss are applied in the proxies rather than by iptables and tc,
// and the proxies' own counters are the landing evidence.
//
// Partitions mirror what iptables DROP does to TCP: bytes of a blocked
// direction vanish (their connection is reset when the partition heals,
// since its stream has a hole), and a new connection needing a blocked
// direction hangs instead of failing fast.
package mesh

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"net"
	"sync"
)

// Client is the from-name of the links the test's clients use. Client links
// are shaped like any link into a node but never partitioned.
const Client = "client"

// Options configures a Mesh.
type Options struct {
	// Host is the address the proxies listen on; default 127.0.0.1.
	Host string
	// Seed makes loss and jitter decisions reproducible.
	Seed uint64
}

// Link names one proxy: From dials To's Service through it. Bytes From->To
// are "forwarded", bytes To->From are "returned".
type Link struct{ From, To, Service string }

// String renders the link as from->to/service.
func (l Link) String() string { return l.From + "->" + l.To + "/" + l.Service }

// Counters are one link's cumulative, monotonic statistics.
type Counters struct {
	BytesForwarded     int64 // From->To bytes delivered
	BytesReturned      int64 // To->From bytes delivered
	BytesDropped       int64 // From->To bytes discarded by a partition
	BytesReturnDropped int64 // To->From bytes discarded by a partition
	ConnsAccepted      int64 // connections the listener accepted
	ConnsBlocked       int64 // accepted while a direction was blocked: held (what they send is discarded uncounted), never connected onward
	ConnsRefused       int64 // the onward dial to the real address failed
	ConnsReset         int64 // reset because the partition that dropped their bytes healed
	ConnsLost          int64 // reset by Shaping.Loss
	Delayed            int64 // chunks held back by latency or jitter
	ThrottledNanos     int64 // total time forwarding waited for bandwidth tokens
}

// Mesh owns one TCP proxy per directed link (from, to, service). Its methods
// are safe for concurrent use.
type Mesh struct {
	host   string
	seed   uint64
	ctx    context.Context // cancelled by Close, ending onward dials
	cancel context.CancelFunc
	wg     sync.WaitGroup // every goroutine the mesh starts
	alloc  sync.Mutex     // serializes ListenAddr's port allocation (network.go)

	mu       sync.Mutex
	closed   bool
	nodes    []string                     // in Add order
	services map[string]map[string]string // node -> service -> real address
	links    map[Link]*link
	table    map[string][]string // partition in effect, normalized
	shapes   map[string]*shaper  // node -> shaping of the links into it
}

// New returns an empty mesh; Add registers the nodes.
func New(o Options) *Mesh {
	if o.Host == "" {
		o.Host = "127.0.0.1"
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Mesh{
		host: o.Host, seed: o.Seed, ctx: ctx, cancel: cancel,
		services: map[string]map[string]string{},
		links:    map[Link]*link{},
		table:    map[string][]string{},
		shapes:   map[string]*shaper{},
	}
}

// Add registers node's real address for a named service and starts a proxy
// for every link that reaches it (from each node known so far and from
// Client), and for the links from node to the services already registered.
// Links from names that are not (yet) nodes are made by Addr on demand.
func (m *Mesh) Add(node, service, realAddr string) error {
	switch {
	case node == "" || service == "":
		return fmt.Errorf("mesh: add %q/%q: node and service must be named", node, service)
	case node == Client:
		return fmt.Errorf("mesh: add %q: the name is reserved for clients", node)
	}
	if _, _, err := net.SplitHostPort(realAddr); err != nil {
		return fmt.Errorf("mesh: add %s/%s: address %q: %w", node, service, realAddr, err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return fmt.Errorf("mesh: add %s/%s: mesh is closed", node, service)
	}
	svcs, known := m.services[node]
	if _, dup := svcs[service]; dup {
		return fmt.Errorf("mesh: add %s/%s: already registered at %s", node, service, svcs[service])
	}
	if !known {
		svcs = map[string]string{}
		m.services[node] = svcs
		m.nodes = append(m.nodes, node)
	}
	svcs[service] = realAddr
	var errs []error
	for _, from := range append([]string{Client}, m.nodes...) {
		if from != node {
			_, err := m.link(Link{from, node, service})
			errs = append(errs, err)
		}
	}
	if !known {
		for _, to := range m.nodes {
			for svc := range m.services[to] {
				if to != node {
					_, err := m.link(Link{node, to, svc})
					errs = append(errs, err)
				}
			}
		}
	}
	return errors.Join(errs...)
}

// Addr is the address from must dial to reach to's service through the mesh.
func (m *Mesh) Addr(from, to, service string) (string, error) {
	if from == "" || from == to {
		return "", fmt.Errorf("mesh: addr %q->%q: want two different names", from, to)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return "", fmt.Errorf("mesh: addr %s->%s/%s: mesh is closed", from, to, service)
	}
	if _, ok := m.services[to][service]; !ok {
		return "", fmt.Errorf("mesh: addr %s->%s/%s: no such service registered", from, to, service)
	}
	l, err := m.link(Link{from, to, service})
	if err != nil {
		return "", err
	}
	return l.addr, nil
}

// link returns the proxy for id, starting it if needed, with the partition
// and shaping in effect. m.mu is held.
func (m *Mesh) link(id Link) (*link, error) {
	if l := m.links[id]; l != nil {
		return l, nil
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(m.host, "0"))
	if err != nil {
		return nil, fmt.Errorf("mesh: listen for %s: %w", id, err)
	}
	h := fnv.New64a()
	h.Write([]byte(id.From + "\x00" + id.To + "\x00" + id.Service))
	l := newLink(m, id, m.services[id.To][id.Service], ln, m.seed^h.Sum64())
	l.setBlocked(blockedDirs(m.table, id))
	l.dirs[fwd].shape.Store(m.shapes[id.To])
	l.dirs[rev].shape.Store(m.shapes[id.From])
	m.links[id] = l
	m.wg.Add(1)
	go l.serve()
	return l, nil
}

// Stats returns every link's counters.
func (m *Mesh) Stats() map[Link]Counters {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make(map[Link]Counters, len(m.links))
	for id, l := range m.links {
		out[id] = l.c.snapshot()
	}
	return out
}

// Close stops every listener and connection and waits for every goroutine
// of the mesh to finish. Closing twice is harmless.
func (m *Mesh) Close() error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil
	}
	m.closed = true
	links := make([]*link, 0, len(m.links))
	for _, l := range m.links {
		links = append(links, l)
	}
	m.mu.Unlock()
	m.cancel()
	var errs []error
	for _, l := range links {
		errs = append(errs, l.close())
	}
	m.wg.Wait()
	return errors.Join(errs...)
}
