package check

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/faultline/faultline/history"
)

func init() {
	Register(Spec{Name: "unique-ids", Models: []string{"unique-ids"}, New: plain(UniqueIDs), Mutants: []string{"unique-ids"}})
}

// UniqueIDs returns Jepsen's unique-ids checker. Ops: :generate, whose ok
// value is the id handed out. No id may be acknowledged twice. It reports how
// many generates were attempted and acknowledged, the duplicates, and the
// range of integer ids.
func UniqueIDs() Checker { return uniqueIDs{} }

type uniqueIDs struct{}

// Name implements Checker.
func (uniqueIDs) Name() string { return "unique-ids" }

// String describes the checker as it would be written in a scenario.
func (uniqueIDs) String() string { return "check.unique_ids()" }

// Check implements Checker.
func (c uniqueIDs) Check(_ context.Context, h []history.Op, _ Env) Result {
	blind := []string{
		"only acknowledged ids are compared: an id handed out by an :info generate is never seen",
		"uniqueness only: ids need not be ordered or dense",
	}
	ops, err := clientOps(h)
	if err != nil {
		return cannotCheck(c.Name(), err, blind)
	}
	counts := map[string]int{}
	values := map[string]any{}
	attempted, acked := 0, 0
	var lo, hi int64
	haveRange := false
	for _, op := range ops {
		if op.inv.F != "generate" {
			continue
		}
		attempted++
		if op.outcome() != history.OK {
			continue
		}
		acked++
		k := elemKey(op.comp.Value)
		if counts[k]++; counts[k] == 1 {
			values[k] = op.comp.Value
		}
		if n, ok := asInt(op.comp.Value); ok {
			if !haveRange {
				lo, hi, haveRange = n, n, true
			}
			lo, hi = min(lo, n), max(hi, n)
		}
	}
	if attempted == 0 {
		return nothingToCheck(c.Name(), "no :generate ops", blind)
	}
	dups := map[string]int{}
	var dupKeys []string
	for k, n := range counts {
		if n > 1 {
			dups[k] = n
			dupKeys = append(dupKeys, k)
		}
	}
	sort.Strings(dupKeys)
	res := Result{
		Checker:    c.Name(),
		Valid:      Valid,
		Consumed:   Consumed{Ops: attempted},
		BlindSpots: blind,
		Details: map[string]any{"attempted_count": attempted, "acknowledged_count": acked,
			"duplicated_count": len(dups), "duplicated": dups},
	}
	if haveRange {
		res.Details["range"] = []int64{lo, hi}
	}
	res.Summary = fmt.Sprintf("%d attempted, %d acknowledged, %d duplicated", attempted, acked, len(dups))
	switch {
	case acked == 0:
		res.Valid = Unknown
		res.Summary = "unknown: no generate was acknowledged: " + res.Summary
	case len(dups) > 0:
		res.markInvalid()
		var b strings.Builder
		fmt.Fprintf(&b, "%d ids were handed out more than once (id x times):\n", len(dups))
		for i, k := range dupKeys {
			if i == 20 {
				fmt.Fprintf(&b, "... %d more\n", len(dupKeys)-20)
				break
			}
			fmt.Fprintf(&b, "  %s x%d\n", formatValue(values[k]), dups[k])
		}
		res.Explanation = b.String()
	}
	return res
}
