package interp

import (
	"cmp"
	"slices"
	"time"

	"github.com/faultline/faultline/nemesis"
)

// UnitKind says what a reduction unit holds.
type UnitKind uint8

const (
	// UnitOps is the client invocations of one time slice.
	UnitOps UnitKind = iota
	// UnitFault is one or more faults with the events that end them.
	UnitFault
	// UnitNemesis is a nemesis event that neither opens nor ends a fault
	// (a heal with nothing open, a stop whose start was dropped).
	UnitNemesis
	// UnitPhase is a phase boundary.
	UnitPhase
)

// Unit is a group of schedule events that reduction keeps or drops together,
// so no candidate starts a partition it never stops.
type Unit struct {
	Kind UnitKind
	// Faults names the fault categories a UnitFault opens (start-partition,
	// kill, ...), for a Keep rule that needs one of each; for UnitNemesis it is
	// the event's f.
	Faults []string
	Events []Event // in schedule order
}

// ReductionSlices is how many time slices ReductionUnits cuts the client
// invocations into. Calling ReductionUnits again on one unit's events splits
// that span finer, for a second pass.
const ReductionSlices = 32

// ReductionUnits groups events (in schedule order, as ReadSchedule returns
// them) into units for delta debugging: each fault with the event that ends
// it (a heal that ends several open faults joins them into one unit), client
// invocations by time slice (ReductionSlices equal spans), and each phase
// boundary alone. Failed nemesis events did nothing, so they are left out.
// Units come in the order of their first event.
func ReductionUnits(events []Event) []Unit {
	var (
		units []Unit
		dead  []bool             // units merged into another
		open  = map[string]int{} // open fault -> its unit
		slice = map[int64]int{}  // client time slice -> its unit
	)
	first, width := sliceGrid(events)
	add := func(u Unit) int {
		units = append(units, u)
		dead = append(dead, false)
		return len(units) - 1
	}
	for _, e := range events {
		switch {
		case e.Phase != "":
			add(Unit{Kind: UnitPhase, Events: []Event{e}})
		case !e.IsNemesis():
			k := int64(e.T-first) / width
			if i, ok := slice[k]; ok {
				units[i].Events = append(units[i].Events, e)
			} else {
				slice[k] = add(Unit{Kind: UnitOps, Events: []Event{e}})
			}
		case e.Failed:
		case e.F == "heal" && len(open) > 0:
			into := -1
			for _, i := range open {
				if into < 0 || i < into {
					into = i
				}
			}
			for f, i := range open {
				if i != into {
					units[into].Faults = append(units[into].Faults, units[i].Faults...)
					units[into].Events = append(units[into].Events, units[i].Events...)
					dead[i] = true
				}
				delete(open, f)
			}
			units[into].Events = append(units[into].Events, e)
			slices.SortStableFunc(units[into].Events, scheduleOrder)
			slices.Sort(units[into].Faults)
		default:
			if nemesis.OpensWindow(e.F) {
				if _, already := open[e.F]; !already {
					open[e.F] = add(Unit{Kind: UnitFault, Faults: []string{e.F}, Events: []Event{e}})
					continue
				}
			}
			if f, ok := closes(open, e.F); ok {
				i := open[f]
				units[i].Events = append(units[i].Events, e)
				delete(open, f)
				continue
			}
			add(Unit{Kind: UnitNemesis, Faults: []string{e.F}, Events: []Event{e}})
		}
	}
	out := units[:0]
	for i, u := range units {
		if !dead[i] {
			out = append(out, u)
		}
	}
	return out
}

// closes returns the open fault that an event of function f ends.
func closes(open map[string]int, f string) (string, bool) {
	for start := range open {
		if end, _ := nemesis.EndOf(start); end == f {
			return start, true
		}
	}
	return "", false
}

// sliceGrid returns the start and width of the ReductionSlices equal time
// slices that cover the client invocations of events.
func sliceGrid(events []Event) (first time.Duration, width int64) {
	last, seen := time.Duration(0), false
	for _, e := range events {
		if e.Phase != "" || e.IsNemesis() {
			continue
		}
		if !seen || e.T < first {
			first = e.T
		}
		last, seen = max(last, e.T), true
	}
	return first, int64(last-first)/ReductionSlices + 1
}

// Flatten returns the events of units as one schedule, ordered by time and,
// for equal times, by Seq (so events of one thread keep their order).
func Flatten(units []Unit) []Event {
	n := 0
	for _, u := range units {
		n += len(u.Events)
	}
	out := make([]Event, 0, n)
	for _, u := range units {
		out = append(out, u.Events...)
	}
	slices.SortStableFunc(out, scheduleOrder)
	return out
}

// scheduleOrder orders events by time, then by Seq.
func scheduleOrder(a, b Event) int {
	if c := cmp.Compare(a.T, b.T); c != 0 {
		return c
	}
	return cmp.Compare(a.Seq, b.Seq)
}
