package gen

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"github.com/faultline/faultline/history"
	"github.com/faultline/faultline/internal/seed"
)

// Config configures Run.
type Config struct {
	Concurrency    int                                             // client threads, at least 1
	Nodes          []string                                        // client thread i talks to Nodes[i % len(Nodes)]
	Client         WorkerFactory                                   // opens client workers
	Nemesis        Worker                                          // nil = no nemesis thread; never Closed by Run
	OpTimeout      time.Duration                                   // default 5s; a client op still running then completes info
	NemesisTimeout time.Duration                                   // default 2m
	Seed           uint64                                          // root seed
	OpLimit        int64                                           // stop issuing after this many client invocations (0 = none)
	Virtual        bool                                            // simulated, deterministic time
	Latency        func(r *rand.Rand, op history.Op) time.Duration // virtual latency model (default uniform 1-10ms)
	Record         func(op history.Op) error                       // journal sink, called from the loop goroutine in order
	Env            Env                                             // what callback generators call back into (a Starlark thread); Run calls its Start
	Log            func(msg string)                                // gen.log messages and interpreter notes
	Stats          *Stats                                          // live counters; may be nil
}

// Default timeouts.
const (
	DefaultOpTimeout      = 5 * time.Second
	DefaultNemesisTimeout = 2 * time.Minute
)

// pendingRepoll bounds how long real mode waits before asking a pending
// generator again when no completion arrives.
const pendingRepoll = int64(time.Millisecond)

func (c *Config) normalize() error {
	if c.Concurrency < 1 || c.Concurrency > MaxConcurrency {
		return fmt.Errorf("concurrency %d is out of range 1..%d", c.Concurrency, MaxConcurrency)
	}
	if c.Client == nil {
		return errors.New("no client worker factory")
	}
	if c.OpTimeout <= 0 {
		c.OpTimeout = DefaultOpTimeout
	}
	if c.NemesisTimeout <= 0 {
		c.NemesisTimeout = DefaultNemesisTimeout
	}
	if c.Latency == nil {
		c.Latency = uniformLatency
	}
	return nil
}

// uniformLatency is the default virtual latency: uniform in [1ms, 10ms].
func uniformLatency(r *rand.Rand, _ history.Op) time.Duration {
	return time.Millisecond + time.Duration(r.Int64N(int64(9*time.Millisecond)+1))
}

// Stats holds live counters of a run for a status line; all fields are safe to
// read from other goroutines while Run updates them.
type Stats struct {
	Invoked, OK, Fail, Info atomic.Int64 // client ops
	nemesis                 atomic.Pointer[NemesisStatus]
}

// NemesisStatus is the latest nemesis invocation or completion.
type NemesisStatus struct {
	Type  history.Type
	F     string
	Value any
	Time  int64
}

// LastNemesis returns the latest nemesis event, or nil if there was none.
func (s *Stats) LastNemesis() *NemesisStatus { return s.nemesis.Load() }

// Summary describes a finished run. Counts are of client ops; Nemesis counts
// nemesis invocations.
type Summary struct {
	Invoked, OK, Fail, Info int64
	Nemesis                 int64
	Duration                time.Duration // wall time, or simulated time in virtual mode
	NemesisTime             time.Duration // spent in completed nemesis steps (Context.NemesisTime)
	Cancelled               bool          // ctx was cancelled before the generator was done
}

// Run interprets g on a pool of workers until g is exhausted and every op has
// completed, OpLimit is reached, or ctx is cancelled; in the last two cases it
// stops issuing ops, lets outstanding ones finish or time out, and returns.
//
// A single loop goroutine owns the generator. It always handles completions
// before asking for a new op, so no false concurrency appears in the history.
// A client op that ends info (a crash or a timeout) moves its thread to
// process p+Concurrency with a fresh worker. Cancellation is not an error: it
// is reported in Summary.Cancelled. Errors are a generator failure (a
// callback's error, say), a generator that can never proceed, or a Record error.
func Run(ctx context.Context, g Generator, cfg Config) (Summary, error) {
	if err := cfg.normalize(); err != nil {
		return Summary{}, fmt.Errorf("gen: run: %w", err)
	}
	r := &runner{
		cfg:      cfg,
		ctx:      newContext(cfg.Concurrency, cfg.Nemesis != nil, seed.New(cfg.Seed, "generator")),
		gen:      g,
		deadline: math.MaxInt64,
		repoll:   pendingRepoll,
	}
	r.slots = make([]slot, r.ctx.slots)
	r.ctx.Env = cfg.Env
	if cfg.Env != nil {
		// Callbacks (Starlark generator functions, say) draw from the
		// generators' own seeded stream, so the run replays with its seed.
		cfg.Env.Start(r.ctx.Rand)
	}
	if cfg.Virtual {
		// Simulated time only moves on events, so a pending generator simply
		// waits for the next one.
		r.repoll = -1
		r.eng = newVirtualEngine(ctx, r)
	} else {
		r.eng = newRealEngine(ctx, r)
	}
	err := r.run()
	return r.sum, err
}

// engine is how ops are executed and time passes: real goroutines and wall
// time, or synchronous calls and simulated time.
type engine interface {
	now() int64
	// start begins executing the invocation op on slot.
	start(slot int, op history.Op, ticket uint64)
	// sleep idles slot until the given time.
	sleep(slot int, until int64, ticket uint64)
	// poll handles every event already due (completions, timeouts, wake-ups,
	// cancellation) without blocking and reports how many it handled.
	poll() int
	// await blocks until an event arrives or until (if >= 0) is reached. It
	// reports whether it handled an event.
	await(until int64) bool
	// abandon gives up on the op running on slot after its timeout.
	abandon(slot int)
	// shutdown stops the workers and reports how long the run took.
	shutdown() time.Duration
}

type slotState uint8

const (
	idle slotState = iota
	running
	sleeping
)

// slot is the loop's view of one thread.
type slot struct {
	state    slotState
	ticket   uint64     // identifies the op or sleep in progress
	inv      history.Op // the invocation in progress
	deadline int64      // when the op times out or the sleep ends
}

type runner struct {
	cfg   Config
	ctx   *Context
	gen   Generator
	eng   engine
	slots []slot

	outstanding int    // slots running or sleeping
	epoch       int    // nemesis completions so far
	ticket      uint64 // last ticket issued
	lastTime    int64  // time of the last recorded op (keeps the journal monotonic)
	deadline    int64  // no busy slot's deadline is earlier than this
	repoll      int64  // how long to wait on a pending generator; -1 = until the next event
	sum         Summary

	exhausted, limited bool  // why issuing stopped, besides cancellation and errors
	genErr             error // the generator failed: stop issuing, drain, return it
	fatal              error // recording failed: abandon everything, return it
}

func (r *runner) stopping() bool {
	return r.exhausted || r.limited || r.sum.Cancelled || r.genErr != nil
}

func (r *runner) run() (err error) {
	defer func() {
		// Never let a panicking generator or sink take the caller down.
		if p := recover(); p != nil {
			err = fmt.Errorf("gen: run: panic in the interpreter loop: %v", p)
		}
		r.sum.Duration = r.eng.shutdown()
		r.sum.NemesisTime = r.ctx.NemesisTime()
		if c := time.Duration(r.ctx.covered); r.exhausted && c > r.sum.Duration {
			// The last op fell due after the time limit: the schedule
			// covered the whole limit though nothing was recorded at its end.
			r.sum.Duration = c
		}
	}()
	woken := false
	for {
		r.eng.poll()
		if r.fatal != nil {
			return r.fatal
		}
		if r.stopping() {
			if !woken {
				r.wakeSleepers()
				woken = true
			}
			if r.outstanding == 0 {
				break
			}
			r.eng.await(-1)
			continue
		}
		now := r.eng.now()
		r.ctx.Time = now
		op, next, st := step(r.ctx, r.gen)
		if r.checkGen() {
			continue
		}
		switch st {
		case Exhausted:
			r.gen, r.exhausted = nil, true
		case Pending:
			r.gen = next
			if r.outstanding == 0 {
				r.genErr = errors.New("generator is pending with no operation in flight, so it can never proceed")
				continue
			}
			if r.repoll < 0 {
				r.eng.await(-1)
			} else {
				r.eng.await(now + r.repoll)
			}
		case Ready:
			if op.Time > now {
				// Wait for its time; if anything happens meanwhile, ask again,
				// since the generator may now answer differently.
				if r.eng.await(op.Time) || r.eng.poll() > 0 || r.fatal != nil || r.stopping() || r.eng.now() < op.Time {
					continue
				}
			}
			r.gen = next
			r.dispatch(op)
		}
	}
	if r.genErr != nil {
		return fmt.Errorf("gen: generator: %w", r.genErr)
	}
	return nil
}

// checkGen moves a failure recorded on the context into genErr and reports
// whether there was one.
func (r *runner) checkGen() bool {
	if r.ctx.err == nil {
		return false
	}
	if r.genErr == nil {
		r.genErr = r.ctx.err
	}
	return true
}

// dispatch starts a ready op: records and invokes it, sleeps, or logs.
func (r *runner) dispatch(op history.Op) {
	switch op.Type {
	case TypeLog:
		if r.cfg.Log != nil {
			r.cfg.Log(fmt.Sprint(op.Value))
		}
		return
	case history.Invoke, TypeSleep:
	default:
		r.genErr = fmt.Errorf("generator emitted an op of type %q", op.Type)
		return
	}
	s, ok := r.ctx.slotOfProcess(op.Process)
	if !ok || r.ctx.process[s] != op.Process || !hasBit(r.ctx.free, s) {
		r.genErr = fmt.Errorf("generator emitted an op for process %d, which is not an idle process of this run", op.Process)
		return
	}
	sl := &r.slots[s]
	now := r.eng.now()
	r.ctx.markBusy(s)
	r.outstanding++
	r.ticket++
	sl.ticket = r.ticket
	if op.Type == TypeSleep {
		d, _ := op.Value.(int64)
		sl.state, sl.deadline = sleeping, now+max(d, 0)
		r.noteDeadline(sl.deadline)
		r.eng.sleep(s, sl.deadline, sl.ticket)
		return
	}
	op.Time = max(now, r.lastTime)
	r.lastTime = op.Time
	op.Node = r.nodeOf(s)
	op.FaultEpoch = r.epoch
	nemesis := op.Process == history.NemesisProcess
	timeout := r.cfg.OpTimeout
	if nemesis {
		timeout = r.cfg.NemesisTimeout
	}
	sl.state, sl.inv, sl.deadline = running, op, op.Time+int64(timeout)
	r.noteDeadline(sl.deadline)
	if !r.record(op) {
		return
	}
	if nemesis {
		r.sum.Nemesis++
		r.noteNemesis(op)
	} else {
		r.sum.Invoked++
		if st := r.cfg.Stats; st != nil {
			st.Invoked.Add(1)
		}
		if r.cfg.OpLimit > 0 && r.sum.Invoked >= r.cfg.OpLimit {
			r.limited = true
		}
	}
	r.ctx.Time = op.Time
	r.gen = tell(r.ctx, r.gen, op)
	r.checkGen()
	r.eng.start(s, op, sl.ticket)
}

// complete records the completion of the op identified by ticket on slot s.
// A completion whose op already timed out is dropped.
func (r *runner) complete(s int, ticket uint64, comp history.Op, at int64) {
	sl := &r.slots[s]
	if sl.state != running || sl.ticket != ticket || r.fatal != nil {
		return
	}
	inv := &sl.inv
	nemesis := inv.Process == history.NemesisProcess
	comp.Process, comp.Node, comp.Index = inv.Process, inv.Node, 0
	comp.Time = max(at, r.lastTime)
	r.lastTime = comp.Time
	if comp.F == "" {
		comp.F = inv.F
	}
	if comp.Key == nil {
		comp.Key = inv.Key
	}
	switch {
	case comp.Type == history.OK || comp.Type == history.Fail || comp.Type == history.Info:
	case comp.Type == "" && nemesis:
		comp.Type = history.Info // Jepsen's convention for nemesis completions
	default:
		if comp.Error == nil {
			comp.Error = fmt.Sprintf("worker returned completion type %q", comp.Type)
		}
		comp.Type = history.Info
	}
	comp.FaultEpoch = r.epoch
	if nemesis {
		r.ctx.nemesisTime += comp.Time - inv.Time
	}
	sl.state, sl.inv = idle, history.Op{}
	r.ctx.markFree(s)
	r.outstanding--
	if nemesis {
		r.epoch++
		r.noteNemesis(comp)
	} else {
		r.countCompletion(comp.Type)
		if comp.Type == history.Info {
			r.ctx.process[s] += r.ctx.n
		}
	}
	if !r.record(comp) {
		return
	}
	r.ctx.Time = comp.Time
	r.gen = tell(r.ctx, r.gen, comp)
	r.checkGen()
}

// timeout completes the op running on slot s as info, abandoning its worker.
func (r *runner) timeout(s int, at int64) {
	sl := &r.slots[s]
	if sl.state != running {
		return
	}
	r.eng.abandon(s)
	r.complete(s, sl.ticket, history.Op{Type: history.Info, Error: "timeout"}, at)
}

// wake ends the sleep identified by ticket on slot s.
func (r *runner) wake(s int, ticket uint64) {
	sl := &r.slots[s]
	if sl.state != sleeping || sl.ticket != ticket {
		return
	}
	sl.state = idle
	r.ctx.markFree(s)
	r.outstanding--
}

// wakeSleepers ends every sleep early once the run is stopping: sleeps record
// nothing, so there is no reason to wait for them.
func (r *runner) wakeSleepers() {
	for s := range r.slots {
		r.wake(s, r.slots[s].ticket)
	}
}

func (r *runner) noteDeadline(d int64) { r.deadline = min(r.deadline, d) }

func (r *runner) nodeOf(s int) string {
	if s >= r.ctx.n || len(r.cfg.Nodes) == 0 {
		return ""
	}
	return r.cfg.Nodes[s%len(r.cfg.Nodes)]
}

func (r *runner) record(op history.Op) bool {
	if r.cfg.Record == nil {
		return true
	}
	if err := r.cfg.Record(op); err != nil {
		r.fatal = fmt.Errorf("gen: recording op: %w", err)
		return false
	}
	return true
}

func (r *runner) countCompletion(t history.Type) {
	st := r.cfg.Stats
	switch t {
	case history.OK:
		r.sum.OK++
		if st != nil {
			st.OK.Add(1)
		}
	case history.Fail:
		r.sum.Fail++
		if st != nil {
			st.Fail.Add(1)
		}
	default:
		r.sum.Info++
		if st != nil {
			st.Info.Add(1)
		}
	}
}

func (r *runner) noteNemesis(op history.Op) {
	if r.cfg.Stats != nil {
		r.cfg.Stats.nemesis.Store(&NemesisStatus{Type: op.Type, F: op.F, Value: op.Value, Time: op.Time})
	}
}
