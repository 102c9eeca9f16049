package control

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
)

// Dialer opens the Remote of one node.
type Dialer func(ctx context.Context, n Node) (Remote, error)

// SSHDialer dials nodes over ssh with cfg.
func SSHDialer(cfg SSHConfig) Dialer {
	return func(ctx context.Context, n Node) (Remote, error) { return DialSSH(ctx, n, cfg) }
}

// LocalDialer treats every node as this host (for --local runs and tests).
func LocalDialer() Dialer {
	return func(_ context.Context, n Node) (Remote, error) { return Local(n.Name), nil }
}

// DryRunDialer records every node's actions to log instead of running them.
func DryRunDialer(log io.Writer) Dialer {
	if log != nil {
		log = &lockedWriter{w: log}
	}
	return func(_ context.Context, n Node) (Remote, error) { return DryRun(n.Name, log), nil }
}

// lockedWriter lets the dry-run remotes of many nodes share one log.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// Pool holds the nodes of a run and one Remote per node, dialled on first
// use and kept for the run (each ssh Remote keeps its connection alive and
// redials it when it dies).
type Pool struct {
	nodes  []Node
	dial   Dialer
	slots  map[string]*poolSlot // fixed at construction
	closed atomic.Bool
	net    Network // nil: hosts and ports (see Network)
	// slowdown is how many times slower than the host the nodes run
	// (SetSlowdown; 0 means not measured).
	slowdown float64
}

// poolSlot serialises the dial of one node; lock is a one-token channel so
// waiting for it honours ctx.
type poolSlot struct {
	lock   chan struct{}
	remote Remote
}

// NewPool returns a pool of nodes (names must be unique) dialled with dial.
func NewPool(nodes []Node, dial Dialer) (*Pool, error) {
	if err := checkUnique(nodes); err != nil {
		return nil, err
	}
	if dial == nil {
		return nil, errors.New("pool: nil dialer")
	}
	p := &Pool{nodes: append([]Node(nil), nodes...), dial: dial, slots: make(map[string]*poolSlot, len(nodes))}
	for _, n := range nodes {
		p.slots[n.Name] = &poolSlot{lock: make(chan struct{}, 1)}
	}
	return p, nil
}

// Nodes returns the pool's nodes in their configured order.
func (p *Pool) Nodes() []Node { return append([]Node(nil), p.nodes...) }

// Node returns the node called name.
func (p *Pool) Node(name string) (Node, bool) {
	for _, n := range p.nodes {
		if n.Name == name {
			return n, true
		}
	}
	return Node{}, false
}

// Remote returns the node's Remote, dialling it on first use. A failed dial
// is not remembered: the next call tries again.
func (p *Pool) Remote(ctx context.Context, name string) (Remote, error) {
	s := p.slots[name]
	if s == nil {
		return nil, fmt.Errorf("unknown node %q", name)
	}
	select {
	case s.lock <- struct{}{}:
	case <-ctx.Done():
		return nil, fmt.Errorf("node %s: %w", name, context.Cause(ctx))
	}
	defer func() { <-s.lock }()
	if p.closed.Load() {
		return nil, fmt.Errorf("node %s: pool %w", name, ErrClosed)
	}
	if s.remote != nil {
		return s.remote, nil
	}
	n, _ := p.Node(name)
	r, err := p.dial(ctx, n)
	if err != nil {
		return nil, err
	}
	s.remote = r
	return r, nil
}

// Close closes every dialled Remote, after dials in progress end; later
// calls to Remote fail with ErrClosed.
func (p *Pool) Close() error {
	p.closed.Store(true)
	var errs []error
	for _, n := range p.nodes {
		s := p.slots[n.Name]
		s.lock <- struct{}{}
		if s.remote != nil {
			errs = append(errs, s.remote.Close())
			s.remote = nil
		}
		<-s.lock
	}
	return errors.Join(errs...)
}
