package gen

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/faultline/faultline/history"
	"github.com/faultline/faultline/internal/seed"
)

// virtualEngine runs a whole test in simulated time on the loop goroutine:
// Invoke is called synchronously, its completion is scheduled Latency later,
// and the clock jumps from event to event. With no goroutines and no wall
// clock, the same seed gives the same history, byte for byte.
type virtualEngine struct {
	r       *runner
	ctx     context.Context // passed to Invoke
	done    <-chan struct{}
	clock   int64
	events  eventHeap
	seq     uint64 // orders events due at the same instant by scheduling order
	lat     *rand.Rand
	results []history.Op // per slot: the completion to deliver
	workers []Worker     // per client slot; nil = open on the next op
	opened  []int        // process each client worker was opened for
}

const (
	evComplete uint8 = iota
	evTimeout
	evWake
)

type vevent struct {
	at     int64
	seq    uint64
	slot   int
	ticket uint64
	kind   uint8
}

func newVirtualEngine(ctx context.Context, r *runner) *virtualEngine {
	return &virtualEngine{
		r:       r,
		ctx:     context.WithoutCancel(ctx),
		done:    ctx.Done(),
		lat:     seed.New(r.cfg.Seed, "latency"),
		results: make([]history.Op, r.ctx.slots),
		workers: make([]Worker, r.ctx.n),
		opened:  make([]int, r.ctx.n),
	}
}

func (e *virtualEngine) now() int64 { return e.clock }

func (e *virtualEngine) schedule(at int64, s int, ticket uint64, kind uint8) {
	e.seq++
	e.events.push(vevent{at: at, seq: e.seq, slot: s, ticket: ticket, kind: kind})
}

func (e *virtualEngine) start(s int, op history.Op, ticket uint64) {
	nemesis := s == e.r.ctx.n
	var res history.Op
	w := e.r.cfg.Nemesis
	if !nemesis {
		w = e.client(s, op.Process, &res)
	}
	if w != nil {
		res = invoke(e.ctx, w, op)
		if !nemesis && crashed(res.Type) {
			e.closeClient(s)
		}
	}
	lat := max(e.r.cfg.Latency(e.lat, op), 0)
	limit := e.r.cfg.OpTimeout
	if nemesis {
		limit = e.r.cfg.NemesisTimeout
	}
	if lat > limit {
		e.schedule(e.clock+int64(limit), s, ticket, evTimeout)
		return
	}
	e.results[s] = res
	e.schedule(e.clock+int64(lat), s, ticket, evComplete)
}

// client returns the worker of client slot s for process, opening it if
// needed; if that fails it sets *res to the no-client completion.
func (e *virtualEngine) client(s, process int, res *history.Op) Worker {
	if e.workers[s] != nil && e.opened[s] != process {
		e.closeClient(s) // a new process always gets a fresh client
	}
	if e.workers[s] == nil {
		w, err := openWorker(e.r.cfg.Client, s, process)
		if err != nil {
			*res = noClient(err)
			return nil
		}
		e.workers[s], e.opened[s] = w, process
	}
	return e.workers[s]
}

func (e *virtualEngine) closeClient(s int) {
	if w := e.workers[s]; w != nil {
		e.workers[s] = nil
		if err := w.Close(); err != nil && e.r.cfg.Log != nil {
			e.r.cfg.Log(fmt.Sprintf("closing the worker of thread %d: %v", s, err))
		}
	}
}

func (e *virtualEngine) sleep(s int, until int64, ticket uint64) {
	e.schedule(until, s, ticket, evWake)
}

func (e *virtualEngine) abandon(s int) {
	if s < e.r.ctx.n {
		e.closeClient(s)
	}
}

func (e *virtualEngine) poll() int {
	n := 0
	if !e.r.sum.Cancelled {
		select {
		case <-e.done:
			e.r.sum.Cancelled = true
			n++
		default:
		}
	}
	for len(e.events) > 0 && e.events[0].at <= e.clock && e.r.fatal == nil {
		ev := e.events.pop()
		n++
		switch ev.kind {
		case evComplete:
			res := e.results[ev.slot]
			e.results[ev.slot] = history.Op{}
			e.r.complete(ev.slot, ev.ticket, res, ev.at)
		case evTimeout:
			if e.r.slots[ev.slot].ticket == ev.ticket {
				e.r.timeout(ev.slot, ev.at)
			}
		case evWake:
			e.r.wake(ev.slot, ev.ticket)
		}
	}
	return n
}

// await moves the clock to the next event, or to until if that comes first.
// The events themselves are handled by the next poll.
func (e *virtualEngine) await(until int64) bool {
	next := until
	if len(e.events) > 0 && (until < 0 || e.events[0].at < until) {
		next = e.events[0].at
	}
	e.clock = max(e.clock, next)
	return false
}

func (e *virtualEngine) shutdown() time.Duration {
	for s := range e.workers {
		e.closeClient(s)
	}
	return time.Duration(e.clock)
}

// eventHeap is a binary min-heap of events ordered by (at, seq). It is typed,
// unlike container/heap, so pushing and popping allocates nothing.
type eventHeap []vevent

func (h eventHeap) less(i, j int) bool {
	return h[i].at < h[j].at || (h[i].at == h[j].at && h[i].seq < h[j].seq)
}

func (h *eventHeap) push(ev vevent) {
	*h = append(*h, ev)
	a := *h
	for i := len(a) - 1; i > 0; {
		p := (i - 1) / 2
		if !a.less(i, p) {
			break
		}
		a[i], a[p] = a[p], a[i]
		i = p
	}
}

func (h *eventHeap) pop() vevent {
	a := *h
	top := a[0]
	last := len(a) - 1
	a[0] = a[last]
	a = a[:last]
	for i := 0; ; {
		l, m := 2*i+1, i
		if l < len(a) && a.less(l, m) {
			m = l
		}
		if r := l + 1; r < len(a) && a.less(r, m) {
			m = r
		}
		if m == i {
			break
		}
		a[i], a[m] = a[m], a[i]
		i = m
	}
	*h = a
	return top
}
