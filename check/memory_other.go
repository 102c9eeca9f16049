//go:build !linux && !darwin && !freebsd && !windows

package check

// totalMemory reports that the machine's RAM is not read on this system,
// so DefaultMemoryBudget falls back to its fixed budget.
func totalMemory() (uint64, bool) { return 0, false }
