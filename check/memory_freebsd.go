package check

import "golang.org/x/sys/unix"

// totalMemory returns the machine's RAM in bytes: sysctl hw.physmem, an
// unsigned long, so 8 bytes on 64-bit kernels and 4 on 32-bit ones.
func totalMemory() (uint64, bool) {
	if n, err := unix.SysctlUint64("hw.physmem"); err == nil && n > 0 {
		return n, true
	}
	n, err := unix.SysctlUint32("hw.physmem")
	return uint64(n), err == nil && n > 0
}
