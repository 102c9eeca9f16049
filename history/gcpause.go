package history

import (
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// A parse of a large history pauses the collector. Nearly everything a
// parse allocates is the history it returns, so a collection during it
// frees almost nothing, yet marks the growing history (half a million ops
// and more) and slows the parse with write barriers while it runs. Measured
// on a million list-append transactions read and checked: the parse's CPU
// time fell by a quarter to a third; the peak heap of a fresh process grew
// by 1% (no collection at all, 914 MB), and that of one reading history
// after history fell from over 1.1 GB to the same 914 MB.
//
// The pause is a soft memory limit instead of GOGC: while paused, the
// process may grow to pauseBytesPerInput bytes per input byte (about twice
// what a parsed history holds per byte of EDN or JSONL), or to the heap
// goal GOGC had set if that is more; past it the runtime collects as usual.
// So a pause never collects earlier than GOGC would, and where it lets the
// heap grow further, that is by what the history being read needs.
//
// When the last parse ends the collector is not resumed at once: its pacer
// would measure the heap against the last collection's, from before the
// parse, and start a collection straight away, marking the history the
// check is about to use. Instead the heap may grow to what GOGC allows from
// the heap as it is (twice it, with GOGC=100), as if the parse had ended
// with a collection; the next collection, when the heap gets there, puts
// GOGC and the memory limit back as they were before.

// pauseMinBytes is the input size from which a parse pauses the collector;
// below it a parse sees few collections anyway.
const pauseMinBytes = 8 << 20

// pauseBytesPerInput bounds the heap growth a paused parse is allowed, per
// byte of input.
const pauseBytesPerInput = 4

// gcPause is the pause's state; parses on several goroutines share one
// pause, which ends with the last of them.
var gcPause struct {
	sync.Mutex
	holders int   // parses in progress that paused
	percent int   // GOGC to restore
	limit   int64 // the memory limit to restore
	cur     int64 // the memory limit in force while paused
	// after says the last parse ended and the settings come back at the
	// next collection; epoch tells a collection's callback whether a later
	// pause took over since it was set up.
	after bool
	epoch int
}

// pauseGC pauses the collector for the parse of size bytes of input and
// returns the function that ends the pause. It does nothing for a small
// input or when the collector is off already (GOGC=off).
func pauseGC(size int) (resume func()) {
	if size < pauseMinBytes {
		return func() {}
	}
	grow := min(int64(size), math.MaxInt64/pauseBytesPerInput) * pauseBytesPerInput
	gcPause.Lock()
	defer gcPause.Unlock()
	if gcPause.holders == 0 {
		collectGarbageFirst(size)
	}
	switch {
	case gcPause.holders == 0 && gcPause.after:
		// Still off from the last parse: its saved settings stand, and its
		// limit is the goal in force.
		gcPause.after = false
		gcPause.epoch++
		gcPause.cur = min(gcPause.limit, max(gcPause.cur, grow))
	case gcPause.holders == 0:
		pct := debug.SetGCPercent(-1)
		if pct < 0 {
			debug.SetGCPercent(pct)
			return func() {}
		}
		gcPause.percent = pct
		gcPause.limit = debug.SetMemoryLimit(-1) // a negative limit reads it
		gcPause.cur = min(gcPause.limit, max(heapGoal(), grow))
	default:
		gcPause.cur = min(gcPause.limit, satAdd(gcPause.cur, grow))
	}
	debug.SetMemoryLimit(gcPause.cur)
	gcPause.holders++
	var once sync.Once
	return func() { once.Do(resumeGC) }
}

// resumeGC ends one parse's share of the pause. The last lets the heap grow
// by GOGC percent from here, and has the next collection restore the settings.
func resumeGC() {
	gcPause.Lock()
	defer gcPause.Unlock()
	if gcPause.holders--; gcPause.holders > 0 {
		return
	}
	heap := memoryInUse()
	if gcPause.percent == 0 || heap <= 0 {
		restoreGC()
		return
	}
	gcPause.cur = min(gcPause.limit, satAdd(heap, heap/100*int64(min(gcPause.percent, 1<<20))))
	debug.SetMemoryLimit(gcPause.cur)
	gcPause.after = true
	gcPause.epoch++
	// The callback runs once a collection has found the marker unreachable,
	// which it is from the start. It is not guaranteed to run; if it does
	// not, the next parse's pause takes over the settings it would restore.
	runtime.AddCleanup(new(gcMarker), collected, gcPause.epoch)
}

// gcMarker is what resumeGC waits to see collected: large enough and with a
// pointer, so that it is not batched with other objects in one allocation.
type gcMarker struct {
	_ *gcMarker
	_ [2]int64
}

// collected is the first collection after the last parse ended: the
// settings before the pause come back, unless a later pause took over.
func collected(epoch int) {
	gcPause.Lock()
	defer gcPause.Unlock()
	if gcPause.after && gcPause.epoch == epoch {
		restoreGC()
	}
}

// restoreGC puts GOGC and the memory limit back as they were before the pause.
func restoreGC() {
	gcPause.after = false
	debug.SetMemoryLimit(gcPause.limit)
	debug.SetGCPercent(gcPause.percent)
}

// collectGarbageFirst collects before a pause when the heap already holds
// more than the input is large: a previous history and its check, say, dead
// or not. The pause would otherwise carry whatever of it is dead, and the
// peak heap would be the sum; GOGC's pacing cannot tell either, as it counts
// what the last collection found live. The collection costs what is truly
// live; a fresh process (what faultline check is) holds nothing and pays
// nothing.
func collectGarbageFirst(size int) {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	if s[0].Value.Uint64() > uint64(size) {
		runtime.GC()
	}
}

// heapGoal is the heap size at which GOGC would have the next collection done.
func heapGoal() int64 {
	s := []metrics.Sample{{Name: "/gc/heap/goal:bytes"}}
	metrics.Read(s)
	return int64(min(s[0].Value.Uint64(), math.MaxInt64))
}

// memoryInUse is the memory the runtime's memory limit is compared with:
// everything it maps, less what it has returned to the system.
func memoryInUse() int64 {
	s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64() - s[1].Value.Uint64())
}

// satAdd adds non-negative a and b, saturating at the largest int64.
func satAdd(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}
