package mesh

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"net"
	"slices"
	"time"
)

// Probes are traffic faultline sends through the mesh itself, so that a
// fault's effect can be measured when the system's own traffic did not
// cross it during the hold. They only ever reach the mesh's own proxies
// (and, for ProbeShaped, a sink the mesh runs): never a node's service.

// ProbeService is the service name of the sink ProbeShaped sends through.
// It is registered on a node the first time that node is probed, and is
// no service of the system under test.
const ProbeService = "faultline-probe"

// probeWait bounds how long a probe waits for the proxy to count what it
// sent; the proxy counts in its own goroutine, normally within microseconds.
const probeWait = 2 * time.Second

// ProbeCut opens one connection through each link from -> to (one per
// service to has) and reports how many it opened and how many of them the
// partition held (counted in ConnsBlocked of those links). A link whose directions are both open
// is not dialled: the connection would reach the node's own service. Each
// probe connection is closed before ProbeCut returns; nothing is written
// on it.
func (m *Mesh) ProbeCut(ctx context.Context, from, to string) (sent, held int64, err error) {
	m.mu.Lock()
	var links []*link
	for _, svc := range slices.Sorted(maps.Keys(m.services[to])) {
		if svc == ProbeService {
			continue
		}
		if l, err := m.link(Link{from, to, svc}); err == nil {
			f, r := blockedDirs(m.table, l.id)
			if f || r {
				links = append(links, l)
			}
		}
	}
	m.mu.Unlock()
	var errs []error
	for _, l := range links {
		before := l.c.blocked.Load()
		var d net.Dialer
		c, err := d.DialContext(ctx, "tcp", l.addr)
		if err != nil {
			errs = append(errs, fmt.Errorf("mesh: probe %s: %w", l.id, err))
			continue
		}
		sent++
		if waitFor(ctx, func() bool { return l.c.blocked.Load() > before }) {
			held++
		}
		c.Close()
	}
	return sent, held, errors.Join(errs...)
}

// ProbeShaped sends traffic through a link into node, shaped as every link
// into node is, to a sink the mesh runs for the purpose (registered as
// ProbeService on node), and returns what that link's counters gained:
// ThrottledNanos, Delayed, ConnsLost. The probe is sized by the shaping in
// force: with a bandwidth limit, the bucket's burst and a tenth of a
// second of rate beyond it, so it must wait for tokens; with connection
// loss, connections until one is lost or so many that all surviving has
// odds below one in a million; otherwise one chunk.
func (m *Mesh) ProbeShaped(ctx context.Context, node string) (Counters, error) {
	addr, err := m.probeSink(node)
	if err != nil {
		return Counters{}, err
	}
	m.mu.Lock()
	l, err := m.link(Link{Client, node, ProbeService})
	var s Shaping
	var burst int
	if sh := m.shapes[node]; sh != nil {
		s = sh.s
		if sh.bucket != nil {
			burst = sh.bucket.burst
		}
	}
	m.mu.Unlock()
	if err != nil {
		return Counters{}, err
	}
	n := 1024
	if s.Bandwidth > 0 {
		n = burst + int(min(int64(burst), s.Bandwidth/10+1))
	}
	conns := 1
	if s.Loss > 0 {
		conns = int(min(math.Ceil(14/s.Loss), 5000)) // (1-p)^(14/p) < e^-14
	}
	before := l.c.snapshot()
	var errs []error
	for range conns {
		lost := l.c.lost.Load()
		if err := probeTransfer(ctx, addr, n); err != nil && l.c.lost.Load() == lost {
			errs = append(errs, fmt.Errorf("mesh: probe %s: %w", l.id, err))
			break
		}
		if l.c.lost.Load() > before.ConnsLost || ctx.Err() != nil {
			break
		}
	}
	after := l.c.snapshot()
	return Counters{
		ThrottledNanos: after.ThrottledNanos - before.ThrottledNanos,
		Delayed:        after.Delayed - before.Delayed,
		ConnsLost:      after.ConnsLost - before.ConnsLost,
		BytesForwarded: after.BytesForwarded - before.BytesForwarded,
	}, errors.Join(errs...)
}

// probeTransfer writes n zero bytes to addr and waits for the far side to
// close: the sink closes after reading everything, so a clean EOF means
// every byte went through the proxy.
func probeTransfer(ctx context.Context, addr string, n int) error {
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	defer c.Close()
	dl := time.Now().Add(time.Minute)
	if d, ok := ctx.Deadline(); ok && d.Before(dl) {
		dl = d
	}
	_ = c.SetDeadline(dl) // best effort: a failed deadline leaves the minute to the sink
	if _, err := c.Write(make([]byte, n)); err != nil {
		return err
	}
	if err := c.(*net.TCPConn).CloseWrite(); err != nil {
		return err
	}
	_, err = io.Copy(io.Discard, c)
	return err
}

// probeSink returns the proxy address clients dial to reach node's probe
// sink, starting the sink (a listener that reads and discards until EOF)
// on first use.
func (m *Mesh) probeSink(node string) (string, error) {
	m.mu.Lock()
	_, ok := m.services[node][ProbeService]
	_, known := m.services[node]
	m.mu.Unlock()
	if !known {
		return "", fmt.Errorf("mesh: probe %s: no such node", node)
	}
	if !ok {
		ln, err := net.Listen("tcp", net.JoinHostPort(m.host, "0"))
		if err != nil {
			return "", fmt.Errorf("mesh: probe sink for %s: %w", node, err)
		}
		if err := m.Add(node, ProbeService, ln.Addr().String()); err != nil {
			ln.Close()
			return "", err
		}
		m.wg.Add(2)
		go func() { defer m.wg.Done(); <-m.ctx.Done(); ln.Close() }()
		go func() {
			defer m.wg.Done()
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				m.wg.Add(1)
				go func() {
					defer m.wg.Done()
					defer c.Close()
					_, _ = io.Copy(io.Discard, c)
				}()
			}
		}()
	}
	return m.Addr(Client, node, ProbeService)
}

// waitFor polls cond until it holds, ctx ends or probeWait passes.
func waitFor(ctx context.Context, cond func() bool) bool {
	deadline := time.Now().Add(probeWait)
	for !cond() {
		if ctx.Err() != nil || time.Now().After(deadline) {
			return false
		}
		time.Sleep(time.Millisecond)
	}
	return true
}
