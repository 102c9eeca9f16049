package measure

import (
	"syscall"
	"testing"
	"time"
)

// CPU returns the CPU time the process has used so far, user and system,
// all goroutines and the collector included, from GetProcessTimes.
func CPU(tb testing.TB) time.Duration {
	self, err := syscall.GetCurrentProcess() // a pseudo-handle: nothing to close
	if err != nil {
		tb.Fatalf("GetCurrentProcess: %v", err)
	}
	var creation, exit, kernel, user syscall.Filetime
	if err := syscall.GetProcessTimes(self, &creation, &exit, &kernel, &user); err != nil {
		tb.Fatalf("GetProcessTimes: %v", err)
	}
	return filetimeDuration(kernel) + filetimeDuration(user)
}

// filetimeDuration reads a FILETIME that holds a duration, in 100 ns
// units. Filetime.Nanoseconds would not do: it treats the value as a date
// and subtracts the 1601-to-1970 offset.
func filetimeDuration(ft syscall.Filetime) time.Duration {
	return time.Duration(uint64(ft.HighDateTime)<<32|uint64(ft.LowDateTime)) * 100
}
