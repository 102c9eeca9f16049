package history

import (
	"runtime"
	"runtime/debug"
	"sync"
	"testing"
)

// gcSettings reads GOGC and the memory limit without changing them.
func gcSettings() (percent int, limit int64) {
	percent = debug.SetGCPercent(-1)
	debug.SetGCPercent(percent)
	return percent, debug.SetMemoryLimit(-1)
}

// collectUntil runs collections until the pause's settings are restored (the
// first collection after the last parse restores them, from the runtime's
// cleanup goroutine) and reports whether they were.
func collectUntil(t *testing.T, percent int, limit int64) {
	t.Helper()
	for range 1000 {
		runtime.GC()
		runtime.Gosched()
		gcPause.Lock()
		after := gcPause.after
		gcPause.Unlock()
		if pct, lim := gcSettings(); !after && pct == percent && lim == limit {
			return
		}
	}
	pct, lim := gcSettings()
	t.Fatalf("after the pause and collections: GOGC %d, limit %d; want %d, %d", pct, lim, percent, limit)
}

// TestPauseGC checks when a parse pauses the collector and that the
// settings before it come back, for one parse and for overlapping ones.
func TestPauseGC(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	for _, tc := range []struct {
		name    string
		percent int   // GOGC before
		limit   int64 // memory limit before
		size    int
		paused  bool
	}{
		{"small input", 100, 1 << 62, pauseMinBytes - 1, false},
		{"large input", 100, 1 << 62, pauseMinBytes, true},
		{"other GOGC", 50, 1 << 62, pauseMinBytes, true},
		{"collector off already", -1, 1 << 62, pauseMinBytes, false},
		{"low limit kept", 100, 1 << 24, pauseMinBytes, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			debug.SetGCPercent(tc.percent)
			debug.SetMemoryLimit(tc.limit)
			resume := pauseGC(tc.size)
			pct, lim := gcSettings()
			if paused := pct < 0 && tc.percent >= 0; paused != tc.paused {
				t.Fatalf("paused = %v (GOGC %d), want %v", paused, pct, tc.paused)
			}
			if tc.paused && lim > tc.limit {
				t.Errorf("limit while paused %d, above the limit before %d", lim, tc.limit)
			}
			resume()
			resume() // a second call is harmless
			collectUntil(t, tc.percent, tc.limit)
		})
	}
}

// TestPauseGCShared checks that parses on several goroutines share the
// pause: it ends with the last, whatever the order.
func TestPauseGCShared(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(1 << 62))
	first := pauseGC(pauseMinBytes)
	_, lim1 := gcSettings()
	second := pauseGC(pauseMinBytes)
	if _, lim2 := gcSettings(); lim2 != lim1+pauseBytesPerInput*pauseMinBytes {
		t.Errorf("limit with two parses %d, want %d", lim2, lim1+pauseBytesPerInput*pauseMinBytes)
	}
	first()
	if pct, _ := gcSettings(); pct >= 0 {
		t.Fatalf("the pause ended with the first parse (GOGC %d)", pct)
	}
	second()
	collectUntil(t, 100, 1<<62)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() { pauseGC(pauseMinBytes)() })
	}
	wg.Wait()
	collectUntil(t, 100, 1<<62)
}

// TestPauseGCAfter checks a parse that starts before the collection that
// would restore the settings of the one before: it takes them over, and the
// settings before both come back.
func TestPauseGCAfter(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(1 << 62))
	pauseGC(pauseMinBytes)()
	resume := pauseGC(pauseMinBytes)
	if pct, _ := gcSettings(); pct >= 0 {
		t.Fatalf("the second parse is not paused (GOGC %d)", pct)
	}
	runtime.GC() // the first parse's callback must not end the second's pause
	runtime.GC()
	if pct, _ := gcSettings(); pct >= 0 {
		t.Fatalf("a collection during the second parse ended its pause (GOGC %d)", pct)
	}
	resume()
	collectUntil(t, 100, 1<<62)
}
