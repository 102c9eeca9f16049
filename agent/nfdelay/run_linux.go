package nfdelay

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// statsEvery is how often the stats file is rewritten.
const statsEvery = 200 * time.Millisecond

// queueMaxLen bounds the packets the kernel holds for the agent; beyond it
// the kernel drops. 100 ms at 64k packets is 640k packets/s, well past what
// the agent sustains.
const queueMaxLen = 65535

// Run serves c.Queue until ctx ends, then accepts every packet still held
// and returns nil. It fails if the queue cannot be bound (not root, no
// NFQUEUE support, or another process holds the queue).
func Run(ctx context.Context, c Config) error {
	if c.Delay < 0 || c.Jitter < 0 {
		return fmt.Errorf("nfdelay: negative delay %v or jitter %v", c.Delay, c.Jitter)
	}
	q, err := openQueue(c.Queue)
	if err != nil {
		return err
	}
	defer q.close()
	a := &agent{cfg: c, q: q, sample: newSampler(c.Delay, c.Jitter, c.Seed), base: time.Now(), wake: make(chan struct{}, 1)}
	return a.run(ctx)
}

// agent holds the packets of one queue: a reader goroutine schedules them,
// the run loop releases them when due.
type agent struct {
	cfg    Config
	q      *queueConn
	sample sampler
	base   time.Time
	stats  counters

	mu    sync.Mutex
	sched schedule
	wake  chan struct{} // the earliest due time moved earlier
}

func (a *agent) now() int64 { return int64(time.Since(a.base)) }

func (a *agent) run(ctx context.Context) error {
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		a.read()
	}()
	if err := a.writeStats(true); err != nil {
		return err // the stats file is the evidence: a bad path is fatal at once
	}
	timer := time.NewTimer(time.Hour)
	ticker := time.NewTicker(statsEvery)
	defer ticker.Stop()
	var buf []byte
	for {
		var early bool
		select {
		case <-ctx.Done():
			early = true
		case <-readDone:
			early = true // the socket failed; accept what is held and report it
		case <-timer.C:
		case <-a.wake:
		case <-ticker.C:
			a.logStatsErr(a.writeStats(true))
			continue
		}
		if early {
			a.q.stopReading()
			<-readDone
			a.q.drain(func(b []byte) { a.handle(b) })
			buf = a.release(buf, 1<<62, true)
			a.logStatsErr(a.writeStats(false))
			return nil
		}
		buf = a.release(buf, a.now(), false)
		a.mu.Lock()
		due, ok := a.sched.next()
		a.mu.Unlock()
		if ok {
			timer.Reset(time.Duration(due - a.now()))
		}
	}
}

// release gives the verdict to every packet due by now, in due order, as
// one datagram. early marks packets released because the agent stops.
func (a *agent) release(buf []byte, now int64, early bool) []byte {
	buf = buf[:0]
	t := a.now()
	a.mu.Lock()
	for {
		due, ok := a.sched.next()
		if !ok || due > now {
			break
		}
		p := a.sched.pop()
		buf = appendVerdict(buf, uint32(p.seq), a.cfg.Queue, p.id)
		a.stats.released(t-p.arrived, early)
	}
	a.stats.held.Store(int64(a.sched.len()))
	a.mu.Unlock()
	if len(buf) > 0 {
		if err := a.q.send(buf); err != nil {
			a.stats.fail(fmt.Errorf("send verdicts: %w", err))
		}
	}
	return buf
}

// read receives queued packets until the socket stops.
func (a *agent) read() {
	buf := make([]byte, 1<<16)
	for {
		n, err := a.q.recv(buf)
		switch {
		case errors.Is(err, unix.ENOBUFS):
			// The kernel dropped notifications: those packets stay queued
			// until the agent exits (then the kernel drops them).
			a.stats.fail(fmt.Errorf("receive: kernel overrun: %w", err))
			continue
		case err != nil:
			if !errors.Is(err, os.ErrDeadlineExceeded) && !errors.Is(err, os.ErrClosed) {
				a.stats.fail(fmt.Errorf("receive: %w", err))
			}
			return
		}
		a.handle(buf[:n])
	}
}

// handle schedules the packets of one datagram.
func (a *agent) handle(b []byte) {
	err := eachMessage(b, func(m message) error {
		switch {
		case m.isPacket():
			id, err := packetID(m.payload)
			if err != nil {
				return err
			}
			a.stats.seen.Add(1)
			now := a.now()
			a.mu.Lock()
			old, had := a.sched.next()
			due := now + a.sample.draw()
			a.sched.push(id, now, due)
			a.stats.held.Store(int64(a.sched.len()))
			a.mu.Unlock()
			if !had || due < old {
				select {
				case a.wake <- struct{}{}:
				default:
				}
			}
		case m.typ == nlmsgError:
			if errno, _, err := ackError(m.payload); err != nil {
				return err
			} else if errno != 0 {
				return fmt.Errorf("kernel: %w", syscall.Errno(-errno))
			}
		}
		return nil
	})
	if err != nil {
		a.stats.fail(err)
	}
}

func (a *agent) writeStats(running bool) error {
	if a.cfg.StatsFile == "" {
		return nil
	}
	return writeStats(a.cfg.StatsFile, a.stats.snapshot(a.cfg, running))
}

// logStatsErr counts a failed periodic stats write; the next one may work.
func (a *agent) logStatsErr(err error) {
	if err != nil {
		a.stats.fail(err)
	}
}
