package history

import "runtime"

// SplitAlways makes readEDN split every input it can, on at least four
// goroutines, until restore is called: tests compare it with the one-piece
// read on inputs far below the size that splits by default.
func SplitAlways() (restore func()) {
	old, procs := splitMinBytes, runtime.GOMAXPROCS(4)
	splitMinBytes = 0
	return func() { splitMinBytes = old; runtime.GOMAXPROCS(procs) }
}

// SplitNever turns the split off, for the one-piece read to compare with.
func SplitNever() (restore func()) {
	old := splitMinBytes
	splitMinBytes = 1 << 62
	return func() { splitMinBytes = old }
}
