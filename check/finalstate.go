package check

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/faultline/faultline/history"
)

func init() {
	Register(Spec{
		Name:    "final-state",
		NoModel: "its predicate is a Starlark function",
		Plan:    []string{"final-state-invariant"},
		Oracle:  "final-state",
	})
}

// Predicate judges a final state: ok, and why not when it is not. An error
// means it could not decide.
type Predicate func(state any) (ok bool, why string, err error)

// FinalStateOptions configures FinalState.
type FinalStateOptions struct {
	Predicate   Predicate // required
	Description string    // how the predicate reads in a scenario, for String
	Final       string    // the function of the final dump; default "dump"
}

// FinalState returns a checker that a predicate holds over the final state:
// the value of the last ok :dump (Final). The dump must be taken at
// quiescence: if a client op completed after the dump began and had begun
// before it ended, the verdict is unknown, since the state was still moving.
// Calls to the predicate are serialised, so one from a script may be shared.
func FinalState(o FinalStateOptions) (Checker, error) {
	if o.Predicate == nil {
		return nil, errors.New("final-state needs a predicate")
	}
	if o.Final == "" {
		o.Final = "dump"
	}
	return &finalState{o: o}, nil
}

type finalState struct {
	o  FinalStateOptions
	mu sync.Mutex // serialises predicate calls
}

// Name implements Checker.
func (*finalState) Name() string { return "final-state" }

// String describes the checker as it would be written in a scenario.
func (c *finalState) String() string {
	d := c.o.Description
	if d == "" {
		d = "predicate"
	}
	return fmt.Sprintf("check.final_state(%s, final=%q)", d, c.o.Final)
}

// Check implements Checker.
func (c *finalState) Check(_ context.Context, h []history.Op, _ Env) Result {
	blind := []string{
		"one snapshot: a violation that healed before the dump is not seen",
		"an op that ended :info before the dump may still apply after it",
	}
	ops, err := clientOps(h)
	if err != nil {
		return cannotCheck(c.Name(), err, blind)
	}
	dump, ok := finalDump(ops, c.o.Final)
	if !ok {
		return nothingToCheck(c.Name(), fmt.Sprintf("no ok :%s with the final state", c.o.Final), blind)
	}
	overlapping := 0
	for _, op := range ops {
		if op.inv != dump.inv && op.comp != nil && op.compAt > dump.invAt && op.invAt < dump.compAt {
			overlapping++
		}
	}
	res := Result{Checker: c.Name(), Consumed: Consumed{Ops: 1, Keys: stateKeys(dump.comp.Value)}, BlindSpots: blind,
		Details: map[string]any{"final_op": dump.comp.Index, "overlapping_ops": overlapping}}
	if overlapping > 0 {
		res.Valid = Unknown
		res.Summary = fmt.Sprintf("unknown: the final dump (op %d) was not taken at quiescence: %d client ops completed while it ran", dump.comp.Index, overlapping)
		return res
	}
	c.mu.Lock()
	holds, why, err := c.o.Predicate(dump.comp.Value)
	c.mu.Unlock()
	switch {
	case err != nil:
		res.Valid = Unknown
		res.Summary = "unknown: the predicate failed: " + err.Error()
		res.Details["predicate_error"] = err.Error()
	case holds:
		res.Valid = Valid
		res.Summary = fmt.Sprintf("the final state (op %d) satisfies %s", dump.comp.Index, c.String())
	default:
		res.Valid = Invalid
		res.Summary = fmt.Sprintf("the final state (op %d) violates the invariant", dump.comp.Index)
		if why != "" {
			res.Summary += ": " + why
		}
		res.Explanation = fmt.Sprintf("Final state (op %d): %s\n", dump.comp.Index, truncate(formatValue(dump.comp.Value), 2000))
	}
	return res
}

// stateKeys counts the keys of a map state (0 for anything else).
func stateKeys(v any) int {
	if m, ok := v.(map[string]any); ok {
		return len(m)
	}
	return 0
}
