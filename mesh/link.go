package mesh

import (
	"errors"
	"math/rand/v2"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// Directions of a link, indexing link.dirs and conn.lost.
const (
	fwd = 0 // From -> To: the dialer's bytes
	rev = 1 // To -> From: the replies
)

// direction is the fault state of one direction of a link, read per chunk
// with atomic loads so forwarding takes no lock.
type direction struct {
	blocked atomic.Bool
	shape   atomic.Pointer[shaper]
	moved   *atomic.Int64 // bytes delivered
	dropped *atomic.Int64 // bytes discarded by a partition
}

// counters are a link's Counters as atomics.
type counters struct {
	forwarded, returned, dropped, returnDropped atomic.Int64
	accepted, blocked, refused, reset, lost     atomic.Int64
	delayed, throttled                          atomic.Int64
}

func (c *counters) snapshot() Counters {
	return Counters{
		BytesForwarded: c.forwarded.Load(), BytesReturned: c.returned.Load(),
		BytesDropped: c.dropped.Load(), BytesReturnDropped: c.returnDropped.Load(),
		ConnsAccepted: c.accepted.Load(), ConnsBlocked: c.blocked.Load(), ConnsRefused: c.refused.Load(),
		ConnsReset: c.reset.Load(), ConnsLost: c.lost.Load(),
		Delayed: c.delayed.Load(), ThrottledNanos: c.throttled.Load(),
	}
}

// link is the proxy of one Link.
type link struct {
	m      *Mesh
	id     Link
	target string // the real address of id.To's service
	ln     net.Listener
	addr   string
	seed   uint64
	dirs   [2]direction
	c      counters

	// mu orders accepting and dropping against partition changes, so that
	// no connection is held, or loses bytes, unseen by the heal.
	mu     sync.Mutex
	closed bool
	conns  map[*conn]struct{}
	rng    *rand.Rand // accept-time loss rolls
	seq    uint64     // connections accepted, seeding their own rolls
}

func newLink(m *Mesh, id Link, target string, ln net.Listener, seed uint64) *link {
	l := &link{m: m, id: id, target: target, ln: ln, addr: ln.Addr().String(), seed: seed,
		conns: map[*conn]struct{}{}, rng: rand.New(rand.NewPCG(seed, 0))}
	l.dirs[fwd].moved, l.dirs[fwd].dropped = &l.c.forwarded, &l.c.dropped
	l.dirs[rev].moved, l.dirs[rev].dropped = &l.c.returned, &l.c.returnDropped
	return l
}

// conn is one accepted connection and, unless held, its onward connection.
type conn struct {
	l      *link
	seq    uint64
	client *net.TCPConn
	server *net.TCPConn // set under l.mu once dialled; nil while held
	held   bool
	lost   [2]bool // guarded by l.mu: bytes were dropped in that direction
	once   sync.Once
	done   chan struct{} // closed at teardown
}

// teardown closes both sides once; reset sends RST instead of FIN, as a
// peer does when its stream is broken.
func (c *conn) teardown(reset bool) {
	c.once.Do(func() {
		close(c.done)
		for _, tc := range []*net.TCPConn{c.client, c.server} {
			if tc != nil {
				if reset {
					_ = tc.SetLinger(0) // best effort: Close still ends the connection
				}
				_ = tc.Close()
			}
		}
	})
}

// sleep waits d unless the connection is torn down first.
func (c *conn) sleep(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-c.done:
		return false
	}
}

// drop discards n bytes read in direction dir if that direction is still
// blocked, marking the connection as broken so the heal resets it.
func (c *conn) drop(dir, n int) bool {
	c.l.mu.Lock()
	defer c.l.mu.Unlock()
	d := &c.l.dirs[dir]
	if !d.blocked.Load() {
		return false
	}
	c.lost[dir] = true
	d.dropped.Add(int64(n))
	return true
}

// setBlocked installs a partition on the link: it resets connections that
// lost bytes in a direction now open, and closes held connections once both
// directions are open.
func (l *link) setBlocked(f, r bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.dirs[fwd].blocked.Store(f)
	l.dirs[rev].blocked.Store(r)
	for c := range l.conns {
		switch {
		case c.held && !f && !r:
			c.teardown(false)
		case !c.held && (c.lost[fwd] && !f || c.lost[rev] && !r):
			c.lost = [2]bool{}
			l.c.reset.Add(1)
			c.teardown(true)
		}
	}
}

// serve accepts connections until the listener closes.
func (l *link) serve() {
	defer l.m.wg.Done()
	for {
		nc, err := l.ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			// Transient, such as running out of descriptors: back off.
			select {
			case <-l.m.ctx.Done():
				return
			case <-time.After(10 * time.Millisecond):
			}
			continue
		}
		l.m.wg.Add(1)
		go l.handle(nc.(*net.TCPConn))
	}
}

// handle runs one accepted connection to its end: lost, held, refused, or
// forwarded both ways.
func (l *link) handle(client *net.TCPConn) {
	defer l.m.wg.Done()
	l.c.accepted.Add(1)
	c := &conn{l: l, client: client, done: make(chan struct{})}
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		c.teardown(false)
		return
	}
	if sh := l.dirs[fwd].shape.Load(); sh != nil && sh.s.Loss > 0 && l.rng.Float64() < sh.s.Loss {
		l.mu.Unlock()
		l.c.lost.Add(1)
		c.teardown(true)
		return
	}
	l.seq++
	c.seq = l.seq
	l.conns[c] = struct{}{}
	// A dropped SYN or SYN-ACK leaves connect hanging: hold the connection
	// without dialling on, until the heal closes it.
	c.held = l.dirs[fwd].blocked.Load() || l.dirs[rev].blocked.Load()
	l.mu.Unlock()
	defer l.remove(c)
	if c.held {
		l.c.blocked.Add(1)
		l.hold(c)
		return
	}
	var d net.Dialer
	sc, err := d.DialContext(l.m.ctx, "tcp", l.target)
	if err != nil {
		if l.m.ctx.Err() == nil { // not the mesh closing
			l.c.refused.Add(1)
		}
		c.teardown(true)
		return
	}
	server := sc.(*net.TCPConn)
	l.mu.Lock()
	select {
	case <-c.done: // the mesh closed while dialling
		l.mu.Unlock()
		_ = server.Close()
		return
	default:
		c.server = server
	}
	l.mu.Unlock()
	back := &pipe{c: c, dir: rev, src: server, dst: client}
	l.m.wg.Add(1)
	backOK := make(chan bool, 1)
	go func() {
		defer l.m.wg.Done()
		backOK <- back.run()
	}()
	ok := (&pipe{c: c, dir: fwd, src: client, dst: server}).run()
	ok = <-backOK && ok
	c.teardown(!ok)
}

// hold reads and discards what the dialer sends a held connection until it
// gives up or the heal closes the connection.
func (l *link) hold(c *conn) {
	bp := getBuf()
	defer putBuf(bp)
	for {
		if _, err := c.client.Read(*bp); err != nil {
			c.teardown(false)
			return
		}
	}
}

func (l *link) remove(c *conn) {
	l.mu.Lock()
	delete(l.conns, c)
	l.mu.Unlock()
}

// close stops the listener and every connection of the link.
func (l *link) close() error {
	err := l.ln.Close()
	l.mu.Lock()
	l.closed = true
	for c := range l.conns {
		c.teardown(false)
	}
	l.mu.Unlock()
	if errors.Is(err, net.ErrClosed) {
		err = nil
	}
	return err
}
