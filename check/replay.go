package check

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/faultline/faultline/history"
)

func init() {
	Register(Spec{
		Name:    "replay-equivalence",
		NoModel: "faultline check has no flags for the replay and the final read (replay=, final=)",
		Plan:    []string{"replay-equivalence"},
		Mutants: []string{"replay-equivalence"},
	})
}

// ReplayOptions configures ReplayEquivalence.
type ReplayOptions struct {
	Replay string // the function whose ok value is the state rebuilt by replaying from a snapshot; default "replay"
	Final  string // the function whose ok value is the live state; default "dump"
}

// ReplayEquivalence returns the replay-equivalence checker (spec §4.2 #3):
// the state rebuilt by replaying the log from snapshot A equals the live
// state B it should reproduce.
//
// Ops: the last ok Final op (the live state B) and the last ok Replay op
// (the system's rebuild of B from A plus the log) of each key (nil is the
// whole state; a keyed pair compares one partition) must both exist, after
// the run's writes, and be equal under history.Equal; maps are compared
// entry by entry so the explanation names each key that differs. The compare
// is exact: a lenient one is this oracle's typical false pass.
func ReplayEquivalence(o ReplayOptions) (Checker, error) {
	if o.Replay == "" {
		o.Replay = "replay"
	}
	if o.Final == "" {
		o.Final = "dump"
	}
	if o.Replay == o.Final {
		return nil, fmt.Errorf("replay equivalence compares two different reads; replay and final are both %q", o.Replay)
	}
	return replay{o: o}, nil
}

type replay struct{ o ReplayOptions }

// Name implements Checker.
func (replay) Name() string { return "replay-equivalence" }

// String describes the checker as it would be written in a scenario.
func (c replay) String() string {
	return fmt.Sprintf("check.replay_equivalence(replay=%q, final=%q)", c.o.Replay, c.o.Final)
}

// Check implements Checker.
func (c replay) Check(_ context.Context, h []history.Op, _ Env) Result {
	blind := []string{
		"judges the states the history records: the snapshot and the replay are the system's own, so a replay path that shares the bug agrees with it",
		"compares the last live read with the last replay of each key: divergence that heals before them is not seen",
	}
	ops, err := clientOps(h)
	if err != nil {
		return cannotCheck(c.Name(), err, blind)
	}
	live, rebuilt := map[string]clientOp{}, map[string]clientOp{}
	for _, op := range ops {
		if op.outcome() != history.OK {
			continue
		}
		switch op.inv.F {
		case c.o.Final:
			live[elemKey(op.key())] = op
		case c.o.Replay:
			rebuilt[elemKey(op.key())] = op
		}
	}
	if len(rebuilt) == 0 {
		return nothingToCheck(c.Name(), fmt.Sprintf("no ok :%s op: the history holds no state rebuilt by replay", c.o.Replay), blind)
	}
	keys := make([]string, 0, len(rebuilt))
	for k := range rebuilt {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var bad, unpaired []string
	for _, k := range keys {
		r := rebuilt[k]
		l, ok := live[k]
		if !ok {
			unpaired = append(unpaired, k)
			continue
		}
		bad = append(bad, stateDiff(k, l.comp.Value, r.comp.Value)...)
	}
	res := Result{Checker: c.Name(), Valid: Valid, Consumed: Consumed{Ops: 2*len(keys) - len(unpaired), Keys: len(keys)}, BlindSpots: blind,
		Details: map[string]any{"compared": len(keys) - len(unpaired), "differences": len(bad), "unpaired": len(unpaired)}}
	switch {
	case len(bad) > 0:
		res.Valid = Invalid
		res.Summary = fmt.Sprintf("the replayed state differs from the live state in %d places; first: %s", len(bad), bad[0])
		res.Explanation = strings.Join(bad[:min(len(bad), 20)], "\n")
	case len(unpaired) > 0:
		res.Valid = Unknown
		res.Summary = fmt.Sprintf("unknown: no ok :%s to compare the replay of %s with", c.o.Final, strings.Join(unpaired, ", "))
	default:
		res.Summary = fmt.Sprintf("the replayed state equals the live state (%d compared)", len(keys))
	}
	return res
}

// stateDiff lists how the replayed state r differs from the live state l of
// key k: entry by entry for maps, as a whole otherwise.
func stateDiff(k string, l, r any) []string {
	lm, lok := l.(map[string]any)
	rm, rok := r.(map[string]any)
	if !lok || !rok {
		if history.Equal(l, r) {
			return nil
		}
		return []string{fmt.Sprintf("key %s: live %v, replayed %v", k, l, r)}
	}
	names := map[string]bool{}
	for n := range lm {
		names[n] = true
	}
	for n := range rm {
		names[n] = true
	}
	var out []string
	for _, n := range sortedKeys(names) {
		lv, inL := lm[n]
		rv, inR := rm[n]
		switch {
		case !inR:
			out = append(out, fmt.Sprintf("key %s: %q is live (%v) but missing from the replay", k, n, lv))
		case !inL:
			out = append(out, fmt.Sprintf("key %s: %q is in the replay (%v) but not live", k, n, rv))
		case !history.Equal(lv, rv):
			out = append(out, fmt.Sprintf("key %s: %q is live %v, replayed %v", k, n, lv, rv))
		}
	}
	return out
}
