package history

// SetLeanValues turns the op-value fast path on or off for a test and
// returns a function that restores the previous setting.
func SetLeanValues(on bool) (restore func()) {
	was := leanValues
	leanValues = on
	return func() { leanValues = was }
}

// SetSplitMin sets the smallest EDN input read in two halves at once and
// returns a function that restores the previous setting.
func SetSplitMin(n int) (restore func()) {
	was := splitMin
	splitMin = n
	return func() { splitMin = was }
}
