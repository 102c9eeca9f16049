package mesh

import (
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"sync"
	"time"
)

// chunkSize is the most a pipe reads at once.
const chunkSize = 32 << 10

var bufPool = sync.Pool{New: func() any { b := make([]byte, chunkSize); return &b }}

func getBuf() *[]byte  { return bufPool.Get().(*[]byte) }
func putBuf(b *[]byte) { bufPool.Put(b) }

// queueLen bounds the chunks a delayed pipe holds in flight, so a slow or
// delayed receiver pushes back on the sender as a full TCP window would.
const queueLen = 64

// chunk is bytes waiting in a delay queue until due.
type chunk struct {
	buf *[]byte
	n   int
	due time.Time
}

// pipe forwards one direction of a connection. Without faults it is a plain
// read-write loop; once a chunk is delayed, every later chunk goes through
// the same queue and writer so that none overtakes another.
type pipe struct {
	c        *conn
	dir      int
	src, dst *net.TCPConn
	rng      *rand.Rand // made on first use, seeded per connection
	q        chan chunk // nil until the first delayed chunk
	wdone    chan struct{}
	lastDue  time.Time
}

// run forwards until src ends. It reports whether the stream ended cleanly,
// passed on as a half-close; otherwise it has torn the connection down.
func (p *pipe) run() bool {
	bp := getBuf()
	ok := p.copy(&bp)
	putBuf(bp)
	if p.q != nil {
		close(p.q)
		select {
		case <-p.wdone:
		case <-p.c.done:
		}
	}
	select {
	case <-p.c.done:
		ok = false
	default:
	}
	if ok {
		ok = p.dst.CloseWrite() == nil
	}
	if !ok {
		p.c.teardown(true)
	}
	return ok
}

// copy reads chunks into *bp and delivers them; a delivered chunk that was
// queued takes the buffer with it and *bp is replaced.
func (p *pipe) copy(bp **[]byte) bool {
	d := &p.c.l.dirs[p.dir]
	for {
		b := **bp
		if sh := d.shape.Load(); sh != nil && sh.bucket != nil {
			b = b[:sh.bucket.burst] // keep chunks within the bucket's burst
		}
		n, err := p.src.Read(b)
		if n > 0 && !p.deliver(d, bp, n) {
			return false
		}
		if err != nil {
			return errors.Is(err, io.EOF)
		}
	}
}

// deliver passes on, delays or drops one chunk. It reports false when the
// connection must end.
func (p *pipe) deliver(d *direction, bp **[]byte, n int) bool {
	if d.blocked.Load() && p.c.drop(p.dir, n) {
		return true
	}
	sh := d.shape.Load()
	if sh == nil && p.q == nil {
		return p.write(d, (**bp)[:n])
	}
	var delay time.Duration
	if sh != nil {
		if sh.s.Loss > 0 && p.rand().Float64() < sh.s.Loss {
			p.c.l.c.lost.Add(1)
			return false
		}
		if sh.bucket != nil {
			if wait := sh.bucket.take(time.Now(), n); wait > 0 {
				p.c.l.c.throttled.Add(int64(wait))
				if !p.c.sleep(wait) {
					return false
				}
			}
		}
		delay = sh.s.Latency
		if sh.s.Jitter > 0 {
			delay += time.Duration(p.rand().Int64N(int64(sh.s.Jitter) + 1))
		}
	}
	if delay == 0 && p.q == nil {
		return p.write(d, (**bp)[:n])
	}
	return p.enqueue(d, bp, n, delay)
}

// enqueue hands the chunk to the pipe's writer, due after delay but never
// before the chunk ahead of it.
func (p *pipe) enqueue(d *direction, bp **[]byte, n int, delay time.Duration) bool {
	if p.q == nil {
		p.q, p.wdone = make(chan chunk, queueLen), make(chan struct{})
		p.c.l.m.wg.Add(1)
		go p.writer(d)
	}
	due := time.Now().Add(delay)
	if due.Before(p.lastDue) {
		due = p.lastDue
	}
	p.lastDue = due
	if delay > 0 {
		p.c.l.c.delayed.Add(1)
	}
	select {
	case p.q <- chunk{buf: *bp, n: n, due: due}:
		*bp = getBuf()
		return true
	case <-p.c.done:
		return false
	}
}

// writer writes queued chunks when due, until the queue closes or the
// connection is torn down.
func (p *pipe) writer(d *direction) {
	defer p.c.l.m.wg.Done()
	defer close(p.wdone)
	t := time.NewTimer(time.Hour)
	defer t.Stop()
	for ch := range p.q {
		if wait := time.Until(ch.due); wait > 0 {
			t.Reset(wait)
			select {
			case <-t.C:
			case <-p.c.done:
				return
			}
		}
		ok := p.write(d, (*ch.buf)[:ch.n])
		putBuf(ch.buf)
		if !ok {
			p.c.teardown(true)
			return
		}
	}
}

func (p *pipe) write(d *direction, b []byte) bool {
	if _, err := p.dst.Write(b); err != nil {
		return false
	}
	d.moved.Add(int64(len(b)))
	return true
}

// rand is the pipe's own generator, seeded from the mesh seed, the link,
// the connection's sequence number and the direction, so runs repeat.
func (p *pipe) rand() *rand.Rand {
	if p.rng == nil {
		p.rng = rand.New(rand.NewPCG(p.c.l.seed, p.c.seq<<1|uint64(p.dir)))
	}
	return p.rng
}
