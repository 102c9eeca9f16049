package gen

import (
	"math/bits"

	"github.com/faultline/faultline/history"
)

// Clients restricts g to client threads. Updates reach g only for events of
// client processes.
func Clients(g Generator) Generator { return &onGen{sel: selClients, g: g} }

// Nemesis restricts g to the nemesis thread. Updates reach g only for nemesis
// events.
func Nemesis(g Generator) Generator { return &onGen{sel: selNemesis, g: g} }

// OnThreads restricts g to the threads for which pred is true (pred gets a
// client thread number or NemesisThread). pred is called once per thread per
// run and must be deterministic.
func OnThreads(pred func(thread int) bool, g Generator) Generator {
	return onThreads(&threadPred{fn: func(_ *Context, t int) (bool, error) { return pred(t), nil }}, g)
}

// OnThreadsContext is OnThreads for a pred that needs the run's context (its
// Env, say) or can fail: an error from pred fails the run.
func OnThreadsContext(pred func(ctx *Context, thread int) (bool, error), g Generator) Generator {
	return onThreads(&threadPred{fn: pred}, g)
}

func onThreads(p *threadPred, g Generator) Generator {
	return &onGen{sel: selPred, pred: p, g: g}
}

// threadPred is a thread predicate; its identity keys the per-run cache of
// its answers (Context.preds), so it is allocated once per OnThreads call.
type threadPred struct {
	fn func(ctx *Context, thread int) (bool, error)
}

type selector uint8

const (
	selClients selector = iota
	selNemesis
	selPred
)

type onGen struct {
	sel  selector
	pred *threadPred
	g    Generator
}

// mask returns the (absolute) set of slots the selector admits.
func (o *onGen) mask(ctx *Context) []uint64 {
	switch o.sel {
	case selClients:
		return ctx.clientMask
	case selNemesis:
		return ctx.nemesisMask
	}
	if m, ok := ctx.preds[o.pred]; ok {
		return m
	}
	m := make([]uint64, len(ctx.allMask))
	for s := 0; s < ctx.slots; s++ {
		ok, err := o.pred.fn(ctx, ctx.threadOf(s))
		if err != nil {
			ctx.Fail(err)
			break
		}
		if ok {
			setBit(m, s)
		}
	}
	if ctx.preds == nil {
		ctx.preds = map[*threadPred][]uint64{}
	}
	ctx.preds[o.pred] = m
	return m
}

func (o *onGen) Op(ctx *Context) (history.Op, Generator, Status) {
	saved := ctx.narrow(o.mask(ctx))
	op, next, st := step(ctx, o.g)
	ctx.leave(saved)
	if st == Exhausted {
		return op, nil, st
	}
	if same(next, o.g) {
		return op, o, st
	}
	return op, &onGen{sel: o.sel, pred: o.pred, g: next}, st
}

func (o *onGen) Update(ctx *Context, ev history.Op) Generator {
	m := o.mask(ctx)
	if s, ok := ctx.slotOfProcess(ev.Process); !ok || !hasBit(m, s) {
		return o
	}
	saved := ctx.narrow(m)
	next := tell(ctx, o.g, ev)
	ctx.leave(saved)
	if same(next, o.g) {
		return o
	}
	return &onGen{sel: o.sel, pred: o.pred, g: next}
}

// EachThread gives every allowed thread its own copy of g, each asked with
// only that thread allowed. The soonest op among the free threads wins. An
// event goes to the copy of the thread that ran it.
func EachThread(g Generator) Generator { return &eachThreadGen{fresh: g} }

type eachThreadGen struct {
	fresh Generator
	// per slot: nil = not started (use fresh), spent = exhausted, else state.
	// nil slice = no thread started yet.
	states []Generator
}

// spent marks an exhausted per-thread copy (nil already means "not started").
var spent Generator = &opGen{}

func (e *eachThreadGen) state(slot int) Generator {
	if slot >= len(e.states) || e.states[slot] == nil {
		return e.fresh
	}
	if e.states[slot] == spent {
		return nil
	}
	return e.states[slot]
}

func (e *eachThreadGen) Op(ctx *Context) (history.Op, Generator, Status) {
	var (
		best     history.Op
		bestSlot = -1
		bestNext Generator
		live     bool // some allowed thread is not exhausted
		succ     = cow{orig: e.states, n: ctx.slots}
	)
	for s := range eachBit(ctx.allowed) {
		g := e.state(s)
		if g == nil {
			continue
		}
		if !hasBit(ctx.free, s) {
			live = true
			continue
		}
		saved := ctx.only(s)
		op, next, st := step(ctx, g)
		ctx.leave(saved)
		switch st {
		case Ready:
			live = true
			if soonest(bestSlot >= 0, &best, &op) {
				best, bestSlot, bestNext = op, s, next
			}
		case Pending:
			live = true
			succ.keep(s, g, next)
		case Exhausted:
			succ.set(s, spent)
		}
	}
	if bestSlot < 0 && !live {
		return history.Op{}, nil, Exhausted
	}
	if bestSlot >= 0 {
		if bestNext == nil {
			bestNext = spent
		}
		succ.keep(bestSlot, e.state(bestSlot), bestNext)
	}
	var next Generator = e
	if succ.gens != nil {
		next = &eachThreadGen{fresh: e.fresh, states: succ.gens}
	}
	if bestSlot < 0 {
		return history.Op{}, next, Pending
	}
	return best, next, Ready
}

func (e *eachThreadGen) Update(ctx *Context, ev history.Op) Generator {
	s, ok := ctx.slotOfProcess(ev.Process)
	if !ok || !hasBit(ctx.allowed, s) {
		return e
	}
	g := e.state(s)
	if g == nil {
		return e
	}
	saved := ctx.only(s)
	next := tell(ctx, g, ev)
	ctx.leave(saved)
	if same(next, g) {
		return e
	}
	if next == nil {
		next = spent
	}
	succ := cow{orig: e.states, n: ctx.slots}
	succ.set(s, next)
	return &eachThreadGen{fresh: e.fresh, states: succ.gens}
}

// ReserveGroup dedicates Threads client threads to Gen (see Reserve).
type ReserveGroup struct {
	Threads int
	Gen     Generator
}

// Reserve splits the allowed client threads, in order, into groups: the first
// groups[0].Threads run groups[0].Gen, the next groups[1].Threads run
// groups[1].Gen, and the remaining threads (and the nemesis, if allowed) run
// dflt. A negative thread count counts as zero. The soonest op of any group
// wins; events go to the group of their thread. It is exhausted when every
// group is.
func Reserve(groups []ReserveGroup, dflt Generator) Generator {
	r := &reserveGen{sizes: make([]int, len(groups)), gens: make([]Generator, len(groups)+1)}
	for i, gr := range groups {
		r.sizes[i] = max(gr.Threads, 0)
		r.gens[i] = gr.Gen
	}
	r.gens[len(groups)] = dflt
	return r
}

type reserveGen struct {
	sizes []int       // threads per group; the default group takes the rest
	gens  []Generator // one per group, default last
}

// groupMask fills buf with the slots of group k: allowed client slots whose
// rank among allowed client slots falls in the group's range; the default
// group also gets the nemesis if it is allowed.
func (r *reserveGen) groupMask(ctx *Context, k int, buf []uint64) {
	lo, hi := 0, 0
	for i := 0; i <= k && i < len(r.sizes); i++ {
		lo, hi = hi, hi+r.sizes[i]
	}
	dflt := k == len(r.sizes)
	if dflt {
		lo, hi = hi, ctx.slots
	}
	rank := 0
	for s := range eachBit(ctx.allowed) {
		if s >= ctx.n {
			if dflt {
				setBit(buf, s)
			}
			continue
		}
		if rank >= lo && rank < hi {
			setBit(buf, s)
		}
		rank++
	}
}

// groupOf returns the group of slot s, or -1 if it is not allowed.
func (r *reserveGen) groupOf(ctx *Context, s int) int {
	if !hasBit(ctx.allowed, s) {
		return -1
	}
	if s >= ctx.n {
		return len(r.sizes)
	}
	rank := 0
	for i := 0; i < s/64; i++ {
		rank += bits.OnesCount64(ctx.allowed[i])
	}
	rank += bits.OnesCount64(ctx.allowed[s/64] & (1<<(s%64) - 1))
	for k, n := range r.sizes {
		if rank < n {
			return k
		}
		rank -= n
	}
	return len(r.sizes)
}

func (r *reserveGen) Op(ctx *Context) (history.Op, Generator, Status) {
	var (
		best     history.Op
		bestK    = -1
		bestNext Generator
		pending  bool
		succ     = cow{orig: r.gens, n: len(r.gens)}
	)
	for k, g := range r.gens {
		if g == nil {
			continue
		}
		buf := ctx.scratch()
		r.groupMask(ctx, k, buf)
		saved := ctx.enter(buf)
		op, next, st := step(ctx, g)
		ctx.leave(saved)
		switch st {
		case Ready:
			if soonest(bestK >= 0, &best, &op) {
				best, bestK, bestNext = op, k, next
			}
		case Pending:
			pending = true
			succ.keep(k, g, next)
		case Exhausted:
			succ.set(k, nil)
		}
	}
	if bestK < 0 && !pending {
		return history.Op{}, nil, Exhausted
	}
	if bestK >= 0 {
		succ.keep(bestK, r.gens[bestK], bestNext)
	}
	var next Generator = r
	if succ.gens != nil {
		next = &reserveGen{sizes: r.sizes, gens: succ.gens}
	}
	if bestK < 0 {
		return history.Op{}, next, Pending
	}
	return best, next, Ready
}

func (r *reserveGen) Update(ctx *Context, ev history.Op) Generator {
	s, ok := ctx.slotOfProcess(ev.Process)
	if !ok {
		return r
	}
	k := r.groupOf(ctx, s)
	if k < 0 || r.gens[k] == nil {
		return r
	}
	buf := ctx.scratch()
	r.groupMask(ctx, k, buf)
	saved := ctx.enter(buf)
	next := tell(ctx, r.gens[k], ev)
	ctx.leave(saved)
	if same(next, r.gens[k]) {
		return r
	}
	succ := cow{orig: r.gens, n: len(r.gens)}
	succ.set(k, next)
	return &reserveGen{sizes: r.sizes, gens: succ.gens}
}
