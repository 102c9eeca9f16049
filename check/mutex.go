package check

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/faultline/faultline/history"
	"github.com/faultline/faultline/internal/plural"
)

func init() {
	Register(Spec{
		Name:    "mutual-exclusion",
		NoModel: "faultline check has no flags for the lock's functions and lease (acquire=, release=, lease=)",
		Plan:    []string{"mutual-exclusion"},
		Mutants: []string{"mutual-exclusion"},
	})
}

// MutexOptions configures MutualExclusion.
type MutexOptions struct {
	Acquire []string      // functions that take the lock; default acquire, lock
	Release []string      // functions that give it back; default release, unlock
	Lease   time.Duration // a hold lasts at most this long after its acquire was invoked; 0: until released
}

// MutualExclusion returns the lock/lease exclusion checker (spec §4.1,
// lock×safety): no two processes ever certainly hold the same lock at once.
//
// Ops: acquire and release carry the lock's name in Op.Key (nil is the one
// lock). An ok acquire certainly holds the lock from its completion until the
// same process next invokes a release of it (or the end of the history); with
// a Lease, no later than the acquire's invocation time plus the lease, since a
// lease granted during the call can run out no sooner. A failed or timed-out
// acquire holds nothing certain and is not judged. Two certain holds of one
// lock by different processes that overlap are a violation. Without a lease,
// order is the order of records; with one, op times.
func MutualExclusion(o MutexOptions) (Checker, error) {
	if o.Lease < 0 {
		return nil, fmt.Errorf("mutual exclusion lease must not be negative, got %s", o.Lease)
	}
	if len(o.Acquire) == 0 {
		o.Acquire = []string{"acquire", "lock"}
	}
	if len(o.Release) == 0 {
		o.Release = []string{"release", "unlock"}
	}
	o.Acquire, o.Release = slices.Clone(o.Acquire), slices.Clone(o.Release)
	return mutex{o: o}, nil
}

type mutex struct{ o MutexOptions }

// Name implements Checker.
func (mutex) Name() string { return "mutual-exclusion" }

// String describes the checker as it would be written in a scenario.
func (c mutex) String() string {
	s := fmt.Sprintf("check.mutual_exclusion(acquire=%s, release=%s", quoteList(c.o.Acquire), quoteList(c.o.Release))
	if c.o.Lease > 0 {
		s += fmt.Sprintf(", lease=%q", c.o.Lease)
	}
	return s + ")"
}

// hold is one certain hold of a lock: [start, end) in record positions, or
// in nanoseconds with a lease.
type hold struct {
	process    int
	start, end int64
	acquireIdx int64
}

// Check implements Checker.
func (c mutex) Check(_ context.Context, h []history.Op, _ Env) Result {
	blind := []string{
		"a hold is certain only between the acquire's completion and the next release's invocation: overlaps inside an op's window are not judged",
		"without a lease, a holder that lost its lock silently (expiry, fencing) is taken to still hold it",
	}
	if c.o.Lease > 0 {
		blind[1] = "leases are measured on the recorded op clock; a server clock running slower than the lease assumes is not seen"
	}
	ops, err := clientOps(h)
	if err != nil {
		return cannotCheck(c.Name(), err, blind)
	}
	// releases per lock and process, in order of invocation.
	type lp struct {
		lock    string
		process int
	}
	releases := map[lp][]clientOp{}
	for _, op := range ops {
		if slices.Contains(c.o.Release, op.inv.F) {
			k := lp{elemKey(op.key()), op.inv.Process}
			releases[k] = append(releases[k], op)
		}
	}
	for _, rs := range releases {
		sort.Slice(rs, func(i, j int) bool { return rs[i].invAt < rs[j].invAt })
	}
	holds := map[string][]hold{}
	consumed := 0
	for _, op := range ops {
		switch {
		case slices.Contains(c.o.Release, op.inv.F):
			consumed++
			continue
		case !slices.Contains(c.o.Acquire, op.inv.F):
			continue
		}
		consumed++
		if op.outcome() != history.OK {
			continue
		}
		lock := elemKey(op.key())
		hd := hold{process: op.inv.Process, start: int64(op.compAt), end: math.MaxInt64, acquireIdx: op.comp.Index}
		var rel *clientOp
		rs := releases[lp{lock, op.inv.Process}] // in invocation order
		if i := sort.Search(len(rs), func(i int) bool { return rs[i].invAt > op.compAt }); i < len(rs) {
			rel = &rs[i]
		}
		if rel != nil {
			hd.end = int64(rel.invAt)
		}
		if c.o.Lease > 0 {
			hd.start = op.comp.Time
			hd.end = op.inv.Time + int64(c.o.Lease)
			if rel != nil {
				hd.end = min(hd.end, rel.inv.Time)
			}
		}
		if hd.end > hd.start {
			holds[lock] = append(holds[lock], hd)
		}
	}
	if consumed == 0 {
		return nothingToCheck(c.Name(), fmt.Sprintf("no %s or %s ops", strings.Join(c.o.Acquire, "/"), strings.Join(c.o.Release, "/")), blind)
	}
	var bad []string
	locks := make([]string, 0, len(holds))
	total := 0
	for l := range holds {
		locks = append(locks, l)
	}
	sort.Strings(locks)
	for _, l := range locks {
		hs := holds[l]
		total += len(hs)
		sort.Slice(hs, func(i, j int) bool { return hs[i].start < hs[j].start })
		// Sweep in start order, keeping the hold that ends last (a) and the
		// one that ends last among other processes than a's (b): a hold
		// overlaps an earlier one of another process iff it overlaps one
		// of these two.
		var a, b *hold
		for i := range hs {
			cur := &hs[i]
			for _, p := range []*hold{a, b} {
				if p != nil && p.process != cur.process && p.end > cur.start {
					bad = append(bad, fmt.Sprintf("%s: process %d (acquire op %d) and process %d (acquire op %d) both held it",
						lockName(l), p.process, p.acquireIdx, cur.process, cur.acquireIdx))
					break
				}
			}
			switch {
			case a == nil || cur.end > a.end:
				if a != nil && a.process != cur.process {
					b = a
				}
				a = cur
			case cur.process != a.process && (b == nil || cur.end > b.end):
				b = cur
			}
		}
	}
	res := Result{Checker: c.Name(), Valid: Valid, Consumed: Consumed{Ops: consumed, Keys: len(holds)}, BlindSpots: blind,
		Details: map[string]any{"holds": total, "locks": len(holds), "violations": len(bad)}}
	switch {
	case len(bad) > 0:
		res.Valid = Invalid
		res.Summary = fmt.Sprintf("%d overlapping holds; first: %s", len(bad), bad[0])
		res.Explanation = strings.Join(bad[:min(len(bad), 20)], "\n")
	case total == 0:
		res.Valid = Unknown
		res.Summary = fmt.Sprintf("unknown: %d lock ops but no acquire succeeded, so exclusion was never exercised", consumed)
	default:
		res.Summary = plural.Count(total, "hold") + " of " + plural.Count(len(holds), "lock") + ", never two at once"
	}
	return res
}

// lockName names a lock by its key; ops without a key share "the lock".
func lockName(key string) string {
	if key == elemKey(nil) {
		return "the lock"
	}
	return "lock " + key
}
