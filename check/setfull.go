package check

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/faultline/faultline/history"
)

func init() {
	Register(Spec{
		Name:    "set-full",
		Models:  []string{"set-full"},
		New:     plain(func() Checker { return SetFull(SetFullOptions{}) }),
		Mutants: []string{"set"},
	})
}

// SetFullOptions configures SetFull.
type SetFullOptions struct {
	// Linearizable makes stale reads invalid: a read that began after an element
	// was known to exist yet missed it, though a later read saw it again.
	Linearizable bool
}

// SetFull returns Jepsen's set-full checker, which follows every element
// through every read (ops as for Set). An element becomes known when its add
// completes ok or a read first shows it; each read that begins after that
// point should show it. Judged by the last such read it is stable (present) or
// lost (absent); with no such read it is never-read. Reads that missed a known
// element that a later read showed are stale. Elements no add attempted, or
// whose adds all failed, are unexpected; a read that holds an element twice
// is duplicated. An :info add that no read shows is never known, so it is
// never lost. Valid when nothing is lost, unexpected or duplicated (nor
// stale, if linearizable); unknown when no element is stable or lost.
func SetFull(o SetFullOptions) Checker { return setFull{o: o} }

type setFull struct{ o SetFullOptions }

// Name implements Checker.
func (setFull) Name() string { return "set-full" }

// String describes the checker as it would be written in a scenario.
func (c setFull) String() string {
	if c.o.Linearizable {
		return "check.set_full(linearizable=True)"
	}
	return "check.set_full()"
}

var setFullBlind = []string{
	"an element is judged only by reads that began after it was known to exist",
	"an :info add no read ever shows is indistinguishable from one that never happened",
}

// Check implements Checker.
func (c setFull) Check(_ context.Context, h []history.Op, _ Env) Result {
	s, err := splitSet(h)
	if err != nil {
		return cannotCheck(c.Name(), err, setFullBlind)
	}
	if s.consumed.Ops == 0 {
		return nothingToCheck(c.Name(), "no :add or :read ops", setFullBlind)
	}
	// seenIn lists, per element, the reads (positions in s.reads) that show it.
	seenIn := map[string][]int{}
	var unexpected []any
	for i, els := range s.contents {
		for _, e := range els {
			k := elemKey(e)
			if _, ok := s.adds[k]; !ok {
				if _, dup := seenIn[k]; !dup {
					unexpected = append(unexpected, e)
				}
			}
			if l := seenIn[k]; len(l) == 0 || l[len(l)-1] != i {
				seenIn[k] = append(l, i)
			}
		}
	}
	var dups []any // every element some read holds twice, each once
	dupReads, firstDup := 0, -1
	dupSeen := map[string]bool{}
	for i, d := range s.dups {
		if len(d) == 0 {
			continue
		}
		dupReads++
		if firstDup < 0 {
			firstDup = i
		}
		for _, e := range d {
			if k := elemKey(e); !dupSeen[k] {
				dupSeen[k] = true
				dups = append(dups, e)
			}
		}
	}
	var stable, lost, neverRead, stale []any
	staleReads := 0
	for _, k := range s.order {
		a := s.adds[k]
		known := math.MaxInt
		if a.op.outcome() == history.OK {
			known = a.op.compAt
		}
		for _, ri := range seenIn[k] {
			known = min(known, s.reads[ri].compAt)
		}
		if known == math.MaxInt {
			continue // an unconfirmed :info add: it may never have happened
		}
		seen := map[int]bool{}
		for _, ri := range seenIn[k] {
			seen[ri] = true
		}
		last, missed, elemStale := -1, 0, 0
		for ri, r := range s.reads {
			if r.invAt <= known {
				continue
			}
			if seen[ri] {
				elemStale += missed
				missed = 0
			} else {
				missed++
			}
			last = ri
		}
		switch {
		case last < 0:
			neverRead = append(neverRead, a.value)
		case seen[last]:
			stable = append(stable, a.value)
		default:
			lost = append(lost, a.value)
		}
		if elemStale > 0 {
			stale = append(stale, a.value)
			staleReads += elemStale
		}
	}
	res := Result{
		Checker:    c.Name(),
		Valid:      Valid,
		Consumed:   s.consumed,
		BlindSpots: setFullBlind,
		Details: map[string]any{
			"attempt_count": len(s.adds), "stable_count": len(stable), "lost_count": len(lost),
			"never_read_count": len(neverRead), "stale_count": len(stale), "stale_reads": staleReads,
			"unexpected_count": len(unexpected), "duplicated_count": len(dups), "duplicated_reads": dupReads,
			"lost": lost, "stale": stale, "unexpected": unexpected, "duplicated": dups,
		},
	}
	res.Summary = fmt.Sprintf("%d attempted, %d stable, %d lost, %d never read, %d stale, %d unexpected, %d duplicated",
		len(s.adds), len(stable), len(lost), len(neverRead), len(stale), len(unexpected), len(dups))
	var b strings.Builder
	if len(lost) > 0 {
		fmt.Fprintf(&b, "Lost: %d elements known to exist are missing from the last read after that: %s\n", len(lost), sample(lost, 20))
	}
	if len(unexpected) > 0 {
		fmt.Fprintf(&b, "Unexpected: reads show %d elements nobody added (or whose add failed): %s\n", len(unexpected), sample(unexpected, 20))
	}
	if dupReads > 0 {
		fmt.Fprintf(&b, "Duplicated: %d reads hold an element more than once (first: op %d); a set holds each once: %s\n",
			dupReads, s.reads[firstDup].comp.Index, sample(dups, 20))
	}
	if c.o.Linearizable && len(stale) > 0 {
		fmt.Fprintf(&b, "Stale: %d reads missed an element already known to exist that a later read showed (elements %s)\n", staleReads, sample(stale, 20))
	}
	switch {
	case b.Len() > 0:
		res.markInvalid()
	case len(stable) == 0:
		res.Valid = Unknown
		res.Summary = "unknown: no element was both known and read afterwards: " + res.Summary
	}
	if len(neverRead) > 0 {
		fmt.Fprintf(&b, "Never read: %d elements had no read begin after they were known: %s\n", len(neverRead), sample(neverRead, 10))
	}
	res.Explanation = b.String()
	return res
}
