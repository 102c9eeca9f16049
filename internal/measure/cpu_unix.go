//go:build unix

package measure

import (
	"syscall"
	"testing"
	"time"
)

// CPU returns the CPU time the process has used so far, user and system,
// all goroutines and the collector included.
func CPU(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatalf("getrusage: %v", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
