package history

// SetLeanValues turns the op-value fast path on or off for a test and
// returns a function that restores the previous setting.
func SetLeanValues(on bool) (restore func()) {
	was := leanValues
	leanValues = on
	return func() { leanValues = was }
}
