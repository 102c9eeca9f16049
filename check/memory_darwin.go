package check

import "golang.org/x/sys/unix"

// totalMemory returns the machine's RAM in bytes: sysctl hw.memsize, a
// 64-bit count on every Mac.
func totalMemory() (uint64, bool) {
	n, err := unix.SysctlUint64("hw.memsize")
	return n, err == nil && n > 0
}
