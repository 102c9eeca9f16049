//go:build !unix && !windows

package measure

import (
	"runtime"
	"testing"
	"time"
)

// CPU skips the benchmark: this system gives no process CPU time that
// this package reads, and a wall-clock stand-in would be a different
// measurement under the same name.
func CPU(tb testing.TB) time.Duration {
	tb.Skipf("process CPU time is not available on %s", runtime.GOOS)
	return 0
}
