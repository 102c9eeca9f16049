package check

import "syscall"

// totalMemory returns the machine's RAM in bytes, as sysinfo(2) reports it.
func totalMemory() (uint64, bool) {
	var si syscall.Sysinfo_t
	if err := syscall.Sysinfo(&si); err == nil && si.Totalram > 0 {
		return uint64(si.Totalram) * uint64(si.Unit), true
	}
	return 0, false
}
