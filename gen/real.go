package gen

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/faultline/faultline/history"
)

// realEngine runs each client thread and the nemesis in its own goroutine, in
// wall-clock time. Jobs go to a thread over its own channel; completions come
// back over one shared channel. Per-op work allocates nothing: jobs and
// completions are passed by value, and a client worker's context lives as
// long as the worker, since a timeout abandons the worker anyway.
type realEngine struct {
	r     *runner
	began time.Time
	base  context.Context // the run ctx's values, without its cancellation
	done  <-chan struct{} // the run ctx's Done
	comps chan completion
	procs []*proc // per slot; nil until a client thread's first op

	ready []completion // completions made up by the loop, handled at the next poll

	timer   *time.Timer
	armed   bool
	armedAt int64

	// The nemesis has one Worker that must never run two ops at once, so after
	// a timeout it is not replaced: its later ops fail fast as info until the
	// stuck call returns.
	nemHung   bool
	nemTicket uint64 // ticket of the op it is stuck in
	nemCancel context.CancelFunc
}

type completion struct {
	slot   int
	ticket uint64
	at     int64
	op     history.Op
}

type job struct {
	op     history.Op
	ticket uint64
	ctx    context.Context // per-op context (nemesis); nil = the proc's
}

// proc is one worker goroutine.
type proc struct {
	thread   int
	in       chan job // capacity 1: a thread has at most one op
	ctx      context.Context
	cancel   context.CancelFunc
	exited   chan struct{}
	factory  WorkerFactory // nil for the nemesis
	worker   Worker        // the nemesis worker; clients open their own
	closeErr error         // from closing the client on exit; read after exited
}

func newRealEngine(ctx context.Context, r *runner) *realEngine {
	e := &realEngine{
		r:     r,
		began: time.Now(),
		base:  context.WithoutCancel(ctx),
		done:  ctx.Done(),
		comps: make(chan completion, r.ctx.slots+1),
		procs: make([]*proc, r.ctx.slots),
		timer: time.NewTimer(time.Hour),
	}
	e.timer.Stop()
	if r.cfg.Nemesis != nil {
		e.procs[r.ctx.n] = e.spawn(NemesisThread, nil, r.cfg.Nemesis)
	}
	return e
}

func (e *realEngine) now() int64 { return int64(time.Since(e.began)) }

func (e *realEngine) spawn(thread int, f WorkerFactory, w Worker) *proc {
	ctx, cancel := context.WithCancel(e.base)
	p := &proc{thread: thread, in: make(chan job, 1), ctx: ctx, cancel: cancel,
		exited: make(chan struct{}), factory: f, worker: w}
	go e.work(p)
	return p
}

// work is a worker goroutine: it opens its client lazily (and again for each
// new process), runs jobs, and closes the client on a crash and on exit.
func (e *realEngine) work(p *proc) {
	defer close(p.exited)
	w, wProc := p.worker, 0
	closeClient := func() {
		if p.factory != nil && w != nil {
			p.closeErr = w.Close()
			w = nil
		}
	}
	defer closeClient()
	slot := p.thread
	if p.thread == NemesisThread {
		slot = e.r.ctx.n
	}
	for {
		var j job
		select {
		case next, ok := <-p.in:
			if !ok {
				return
			}
			j = next
		case <-p.ctx.Done():
			return
		}
		if j.ctx == nil {
			j.ctx = p.ctx
		}
		if p.factory != nil && w != nil && wProc != j.op.Process {
			closeClient() // a new process always gets a fresh client
		}
		var res history.Op
		if w == nil {
			var err error
			if w, err = openWorker(p.factory, p.thread, j.op.Process); err != nil {
				res = noClient(err)
			}
			wProc = j.op.Process
		}
		if w != nil {
			res = invoke(j.ctx, w, j.op)
			if crashed(res.Type) {
				closeClient()
			}
		}
		select {
		case e.comps <- completion{slot: slot, ticket: j.ticket, at: e.now(), op: res}:
		case <-p.ctx.Done():
			return
		}
	}
}

func (e *realEngine) start(s int, op history.Op, ticket uint64) {
	if s == e.r.ctx.n { // the nemesis
		if e.nemHung {
			e.ready = append(e.ready, completion{slot: s, ticket: ticket, at: e.now(), op: history.Op{
				Type: history.Info, Error: "nemesis unavailable: an earlier operation timed out and has not returned"}})
			return
		}
		ctx, cancel := context.WithCancel(e.base)
		e.nemCancel = cancel
		e.procs[s].in <- job{op: op, ticket: ticket, ctx: ctx}
		return
	}
	p := e.procs[s]
	if p == nil {
		p = e.spawn(s, e.r.cfg.Client, nil)
		e.procs[s] = p
	}
	p.in <- job{op: op, ticket: ticket} // never blocks: the thread was idle
}

func (e *realEngine) sleep(int, int64, uint64) {} // the deadline scan wakes it

func (e *realEngine) abandon(s int) {
	if s == e.r.ctx.n {
		e.nemHung, e.nemTicket = true, e.r.slots[s].ticket
		e.nemCancel()
		return
	}
	// The goroutine exits (closing its client) whenever the stuck call
	// returns; the thread gets a new goroutine and client on its next op.
	e.procs[s].cancel()
	e.procs[s] = nil
}

// receive handles one completion from a worker goroutine.
func (e *realEngine) receive(c completion) {
	if c.slot == e.r.ctx.n {
		if e.nemHung && c.ticket == e.nemTicket {
			e.nemHung = false // the stuck call finally returned; its op already timed out
			return
		}
		if e.nemCancel != nil && c.ticket == e.r.slots[c.slot].ticket {
			e.nemCancel()
		}
	}
	e.r.complete(c.slot, c.ticket, c.op, c.at)
}

func (e *realEngine) poll() int {
	n := 0
	for len(e.ready) > 0 {
		c := e.ready[0]
		e.ready = e.ready[1:]
		e.receive(c)
		n++
	}
	e.ready = e.ready[:0]
drain:
	for {
		select {
		case c := <-e.comps:
			e.receive(c)
			n++
		default:
			break drain
		}
	}
	if !e.r.sum.Cancelled {
		select {
		case <-e.done:
			e.r.sum.Cancelled = true
			n++
		default:
		}
	}
	if now := e.now(); now >= e.r.deadline {
		n += e.expire(now)
	}
	return n
}

// expire times out ops and ends sleeps whose deadline has passed, and
// recomputes the earliest remaining deadline.
func (e *realEngine) expire(now int64) int {
	n, next := 0, int64(math.MaxInt64)
	for s := range e.r.slots {
		sl := &e.r.slots[s]
		switch {
		case sl.state == idle:
		case sl.deadline > now:
			next = min(next, sl.deadline)
		case sl.state == sleeping:
			e.r.wake(s, sl.ticket)
			n++
		default:
			e.r.timeout(s, now)
			n++
		}
	}
	e.r.deadline = next
	return n
}

func (e *realEngine) await(until int64) bool {
	if len(e.ready) > 0 {
		return false // poll has work; don't block
	}
	target := e.r.deadline
	if until >= 0 {
		target = min(target, until)
	}
	var tc <-chan time.Time
	if target < math.MaxInt64 {
		e.arm(target)
		tc = e.timer.C
	}
	done := e.done
	if e.r.sum.Cancelled {
		done = nil
	}
	select {
	case c := <-e.comps:
		e.receive(c)
		return true
	case <-tc:
		e.armed = false
		return false
	case <-done:
		e.r.sum.Cancelled = true
		return true
	}
}

// arm makes the timer fire no later than target. An already armed earlier
// wake-up is kept: waking early only makes the loop look again, and not
// resetting the timer on every wait keeps the hot path cheap.
func (e *realEngine) arm(target int64) {
	if e.armed && e.armedAt <= target {
		return
	}
	e.timer.Reset(time.Duration(max(target-e.now(), 0)))
	e.armed, e.armedAt = true, target
}

func (e *realEngine) shutdown() time.Duration {
	e.timer.Stop()
	if e.nemCancel != nil {
		e.nemCancel()
	}
	var waiting []*proc
	for s, p := range e.procs {
		if p == nil {
			continue
		}
		if e.r.slots[s].state == running || (s == e.r.ctx.n && e.nemHung) {
			p.cancel() // still busy (the run failed): abandon it
			continue
		}
		close(p.in)
		waiting = append(waiting, p)
	}
	for _, p := range waiting {
		<-p.exited
		p.cancel()
		if p.closeErr != nil && e.r.cfg.Log != nil {
			e.r.cfg.Log(fmt.Sprintf("closing the worker of thread %d: %v", p.thread, p.closeErr))
		}
	}
	return time.Since(e.began)
}
