package gen

import (
	"iter"
	"math/bits"
	"math/rand/v2"
	"time"

	"github.com/faultline/faultline/history"
)

// Context is what a generator sees when asked for an op or told of an event:
// the time, the seeded random stream, and the worker threads it may use.
//
// Threads live in slots: client thread t is slot t and the nemesis, when there
// is one, is slot Concurrency. Sets of slots are bitsets. Routing combinators
// (Clients, OnThreads, Reserve, EachThread, ...) narrow the allowed set for the
// duration of a child call and restore it afterwards; the narrowed sets live in
// a per-run scratch stack, so restriction costs no allocation.
//
// A Context belongs to one run loop and is not safe for concurrent use.
type Context struct {
	// Time is the current time in nanoseconds since the run started.
	Time int64
	// Rand is the run's generator stream (seed.New(root, "generator")).
	Rand *rand.Rand
	// Env is the run's Config.Env, which callback generators call back
	// into; nil when the run has none.
	Env Env

	n       int      // client threads
	slots   int      // n, plus one if there is a nemesis
	free    []uint64 // slots whose worker is idle
	process []int    // current process of each slot
	cursor  int      // slot where the next free-process search starts
	allowed []uint64 // slots the generator being asked may use

	allMask, clientMask, nemesisMask []uint64

	arena [][]uint64 // scratch bitsets for narrowed allowed sets, one per depth
	depth int

	preds map[*threadPred][]uint64 // OnThreads predicate results for this run
	err   error

	// covered is the latest time limit a generator ended at because its next
	// op fell due after it: the schedule ran to that instant even though no
	// op was recorded there, so the run's duration counts up to it.
	covered int64
	// nemesisTime is how long the nemesis thread has spent running its
	// completed steps (NemesisTime).
	nemesisTime int64
}

// NemesisTime is the total time the nemesis thread has spent running its
// completed steps. A fault schedule treats it as time that did not pass,
// so that steps slow to apply (on emulated nodes, say) keep the spacing
// the schedule gave them (see Alongside and nemesis.Package.Within).
func (c *Context) NemesisTime() time.Duration { return time.Duration(c.nemesisTime) }

// coveredUntil notes that a time-limited generator's schedule reached t.
func (c *Context) coveredUntil(t int64) {
	if t > c.covered {
		c.covered = t
	}
}

// newContext returns a context with every thread free and allowed, thread t
// running process t and the nemesis (if any) process history.NemesisProcess.
func newContext(concurrency int, nemesis bool, r *rand.Rand) *Context {
	slots := concurrency
	if nemesis {
		slots++
	}
	words := (slots + 63) / 64
	c := &Context{
		Rand:        r,
		n:           concurrency,
		slots:       slots,
		free:        make([]uint64, words),
		process:     make([]int, slots),
		allMask:     make([]uint64, words),
		clientMask:  make([]uint64, words),
		nemesisMask: make([]uint64, words),
	}
	for s := 0; s < slots; s++ {
		setBit(c.allMask, s)
		setBit(c.free, s)
		c.process[s] = s
		if s < concurrency {
			setBit(c.clientMask, s)
		}
	}
	if nemesis {
		setBit(c.nemesisMask, concurrency)
		c.process[concurrency] = history.NemesisProcess
	}
	c.allowed = c.allMask
	return c
}

// Concurrency is the number of client threads of the run.
func (c *Context) Concurrency() int { return c.n }

// AllThreads yields the threads the generator may use, clients in order and
// then the nemesis.
func (c *Context) AllThreads() iter.Seq[int] {
	return func(yield func(int) bool) {
		for s := range eachBit(c.allowed) {
			if !yield(c.threadOf(s)) {
				return
			}
		}
	}
}

// FreeThreads yields the threads the generator may use that are idle.
func (c *Context) FreeThreads() iter.Seq[int] {
	return func(yield func(int) bool) {
		for i, w := range c.allowed {
			w &= c.free[i]
			for w != 0 {
				s := i*64 + bits.TrailingZeros64(w)
				w &= w - 1
				if !yield(c.threadOf(s)) {
					return
				}
			}
		}
	}
}

// Allowed reports whether the generator may use thread.
func (c *Context) Allowed(thread int) bool {
	s, ok := c.slotOf(thread)
	return ok && hasBit(c.allowed, s)
}

// IsFree reports whether thread is allowed and idle.
func (c *Context) IsFree(thread int) bool {
	s, ok := c.slotOf(thread)
	return ok && hasBit(c.allowed, s) && hasBit(c.free, s)
}

// NumThreads is the number of threads the generator may use.
func (c *Context) NumThreads() int { return popcount(c.allowed) }

// AllFree reports whether every thread the generator may use is idle.
func (c *Context) AllFree() bool {
	for i, w := range c.allowed {
		if w&^c.free[i] != 0 {
			return false
		}
	}
	return true
}

// SomeFreeProcess returns the process of an idle allowed thread, or false if
// every allowed thread is busy. Threads are offered round robin, starting after
// the one that was last given an op, so load (and with it the node each thread
// talks to) spreads evenly even when few ops are in flight.
func (c *Context) SomeFreeProcess() (int, bool) {
	s, ok := c.someFreeSlot()
	if !ok {
		return 0, false
	}
	return c.process[s], true
}

// ProcessOf returns the current process of thread, or false if there is no
// such thread.
func (c *Context) ProcessOf(thread int) (int, bool) {
	s, ok := c.slotOf(thread)
	if !ok {
		return 0, false
	}
	return c.process[s], true
}

// ThreadOf returns the thread that runs (or ran) process: a crashed client
// process p is replaced by p+Concurrency on the same thread, so the thread is
// p mod Concurrency.
func (c *Context) ThreadOf(process int) (int, bool) {
	s, ok := c.slotOfProcess(process)
	if !ok {
		return 0, false
	}
	return c.threadOf(s), true
}

// Fail records an error that makes the run stop issuing ops; Run returns it.
// The first error wins. Generators call it instead of panicking, then report
// Exhausted.
func (c *Context) Fail(err error) {
	if c.err == nil && err != nil {
		c.err = err
	}
}

// Err returns the error recorded by Fail, if any.
func (c *Context) Err() error { return c.err }

func (c *Context) threadOf(slot int) int {
	if slot == c.n {
		return NemesisThread
	}
	return slot
}

func (c *Context) slotOf(thread int) (int, bool) {
	switch {
	case thread == NemesisThread && c.slots > c.n:
		return c.n, true
	case thread >= 0 && thread < c.n:
		return thread, true
	}
	return 0, false
}

func (c *Context) slotOfProcess(process int) (int, bool) {
	switch {
	case process == history.NemesisProcess:
		return c.slotOf(NemesisThread)
	case process >= 0 && c.n > 0:
		return process % c.n, true
	}
	return 0, false
}

// someFreeSlot finds the first allowed idle slot at or after the cursor,
// wrapping around.
func (c *Context) someFreeSlot() (int, bool) {
	words := len(c.allowed)
	if words == 0 {
		return 0, false
	}
	start := c.cursor
	if start >= c.slots {
		start = 0
	}
	wi := start / 64
	// First word: only bits at or above the cursor.
	if w := c.allowed[wi] & c.free[wi] & (^uint64(0) << (start % 64)); w != 0 {
		return wi*64 + bits.TrailingZeros64(w), true
	}
	for k := 1; k <= words; k++ {
		i := (wi + k) % words
		if w := c.allowed[i] & c.free[i]; w != 0 {
			return i*64 + bits.TrailingZeros64(w), true
		}
	}
	return 0, false
}

// markBusy and markFree track which workers are idle; the loop calls them.
func (c *Context) markBusy(slot int) {
	clearBit(c.free, slot)
	c.cursor = slot + 1
}

func (c *Context) markFree(slot int) { setBit(c.free, slot) }

// scratch returns a zeroed bitset for the next restriction depth. Fill it and
// pass it to enter before calling a child.
func (c *Context) scratch() []uint64 {
	if c.depth == len(c.arena) {
		c.arena = append(c.arena, make([]uint64, len(c.allMask)))
	}
	buf := c.arena[c.depth]
	clear(buf)
	return buf
}

// enter makes buf (from scratch) the allowed set and returns the previous one
// for leave.
func (c *Context) enter(buf []uint64) []uint64 {
	saved := c.allowed
	c.allowed = buf
	c.depth++
	return saved
}

// leave restores the allowed set saved by enter or narrow.
func (c *Context) leave(saved []uint64) {
	c.allowed = saved
	c.depth--
}

// narrow intersects the allowed set with mask until the matching leave.
func (c *Context) narrow(mask []uint64) []uint64 {
	buf := c.scratch()
	for i := range buf {
		buf[i] = c.allowed[i] & mask[i]
	}
	return c.enter(buf)
}

// only restricts the allowed set to the single slot until the matching leave.
func (c *Context) only(slot int) []uint64 {
	buf := c.scratch()
	setBit(buf, slot)
	return c.enter(buf)
}

// fill turns a template into an invocation on some free allowed process, due
// no earlier than now. It reports Exhausted when no thread is allowed at all
// (say, nemesis ops in a run without a nemesis), since no thread will ever be.
func (c *Context) fill(op history.Op) (history.Op, Status) {
	s, ok := c.someFreeSlot()
	if !ok {
		if isEmpty(c.allowed) {
			return history.Op{}, Exhausted
		}
		return history.Op{}, Pending
	}
	op.Process = c.process[s]
	if op.Type == "" {
		op.Type = history.Invoke
	}
	if op.Time < c.Time {
		op.Time = c.Time
	}
	return op, Ready
}

func setBit(b []uint64, i int)      { b[i/64] |= 1 << (i % 64) }
func clearBit(b []uint64, i int)    { b[i/64] &^= 1 << (i % 64) }
func hasBit(b []uint64, i int) bool { return b[i/64]&(1<<(i%64)) != 0 }
func isEmpty(b []uint64) bool       { return popcount(b) == 0 }
func popcount(b []uint64) (n int) {
	for _, w := range b {
		n += bits.OnesCount64(w)
	}
	return n
}

// eachBit yields the indexes of the set bits of b in increasing order.
func eachBit(b []uint64) iter.Seq[int] {
	return func(yield func(int) bool) {
		for i, w := range b {
			for w != 0 {
				if !yield(i*64 + bits.TrailingZeros64(w)) {
					return
				}
				w &= w - 1
			}
		}
	}
}
