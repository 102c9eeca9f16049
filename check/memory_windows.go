package check

import (
	"unsafe"

	"golang.org/x/sys/windows"
)

// globalMemoryStatusEx is kernel32's GlobalMemoryStatusEx, which
// golang.org/x/sys/windows does not wrap.
var globalMemoryStatusEx = windows.NewLazySystemDLL("kernel32.dll").NewProc("GlobalMemoryStatusEx")

// memoryStatusEx is the Win32 MEMORYSTATUSEX structure.
type memoryStatusEx struct {
	length               uint32
	memoryLoad           uint32
	totalPhys            uint64
	availPhys            uint64
	totalPageFile        uint64
	availPageFile        uint64
	totalVirtual         uint64
	availVirtual         uint64
	availExtendedVirtual uint64
}

// totalMemory returns the machine's RAM in bytes, ullTotalPhys of
// GlobalMemoryStatusEx.
func totalMemory() (uint64, bool) {
	if globalMemoryStatusEx.Find() != nil {
		return 0, false
	}
	ms := memoryStatusEx{length: uint32(unsafe.Sizeof(memoryStatusEx{}))}
	if r, _, _ := globalMemoryStatusEx.Call(uintptr(unsafe.Pointer(&ms))); r == 0 {
		return 0, false
	}
	return ms.totalPhys, ms.totalPhys > 0
}
