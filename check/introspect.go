package check

import "slices"

// Children returns the checkers a compose runs, in the order its Result lists
// their results, or nil for any other checker. The sensitivity audit walks
// it to judge each mutant against the one oracle whose claim it breaks.
func Children(c Checker) []Checker {
	if cc, ok := c.(*composite); ok {
		return slices.Clone(cc.cs)
	}
	return nil
}

// OptionsOf returns a copy of the options c was built with, for the checkers
// whose claim depends on them: NoLostAckOptions, SLOOptions, FairnessOptions,
// RecoveryOptions, BankOptions, ExactlyOnceOptions, ReplicasOptions,
// MutexOptions, PrefixOrderOptions, ReplayOptions, BoundaryOptions or
// SessionOptions (monotonic-reads, read-your-writes); nil for any other
// checker. A mutant that
// must break such a claim (a latency past the declared bound, a write
// missing from the declared final dump) needs the declared values.
func OptionsOf(c Checker) any {
	switch x := c.(type) {
	case noLostAck:
		o := x.o
		o.Writes = slices.Clone(o.Writes)
		return o
	case slo:
		o := x.o
		o.F = slices.Clone(o.F)
		return o
	case fairness:
		o := x.o
		o.F = slices.Clone(o.F)
		return o
	case recovery:
		o := x.o
		o.After, o.F = slices.Clone(o.After), slices.Clone(o.F)
		return o
	case bank:
		o := x.o
		o.Accounts = slices.Clone(o.Accounts)
		return o
	case exactlyOnce:
		o := x.o
		o.Writes = slices.Clone(o.Writes)
		return o
	case replicas:
		return x.o
	case mutex:
		o := x.o
		o.Acquire, o.Release = slices.Clone(o.Acquire), slices.Clone(o.Release)
		return o
	case prefixOrder:
		o := x.o
		o.Produce, o.Views = slices.Clone(o.Produce), slices.Clone(o.Views)
		return o
	case replay:
		return x.o
	case boundary:
		o := x.o
		o.Reads = slices.Clone(o.Reads)
		return o
	case monotonicReads:
		return x.o
	case readYourWrites:
		return x.o
	}
	return nil
}

// OpensFault reports whether the nemesis function f starts a fault that a
// later op ends (kill, pause, start-partition, ...): the faults Recovery
// measures when RecoveryOptions.After is nil.
func OpensFault(f string) bool { return opensFault(f) }
