// Package check holds faultline's history checkers: linearizability through
// porcupine, Elle-style transactional checks, per-function stats, compose, and
// the oracle catalogue (set, set-full, counter, bank, unique-ids, queue,
// total-queue, no-lost-ack, monotonic reads, read-your-writes, exactly-once,
// final-state, replica reconciliation, SLO, fairness, bounded recovery,
// tenant boundary, mutual exclusion, prefix order and replay equivalence;
// each documents the op shapes it reads). Every checker reports one of three
// verdicts and says what it looked at and what it cannot see, so a green
// result nobody earned can be refused upstream.
//
// Linearizability models:
//
//   - register: read (or get) returns the value, write (or put) sets it.
//   - cas-register: adds cas with value [from to]; an ok cas found from and set to.
//   - multi-register: txn whose value is a list of [:read k v] / [:write k v]
//     micro-ops ("r"/"w" also accepted) over named registers, applied atomically.
//   - kv: a cas-register plus string append, per key; the key is Op.Key, or the
//     first element of a Jepsen independent tuple [k v] when Op.Key is nil.
//     Keys are checked independently (porcupine partitions).
//
// How outcomes are read: an ok op constrains the search; a fail op did not
// happen and is dropped; an info op, or one that never completed, may take
// effect at any time after its invocation (it returns at infinity) and its
// result is not checked, so an unknown read constrains nothing and is dropped.
// Real-time order is the order of records in the history, not their clocks.
// Values compare with history.Equal (1 equals 1.0, :x equals "x"). A read of nil
// is a read of the initial value, since stores show an absent key as nil. In
// kv, nil and "" are one value: stores answer "" for an absent key and an
// append to an absent key starts from "", which is what the porcupine kv corpus
// expects.
package check

import (
	"context"
	"time"

	"github.com/faultline/faultline/history"
)

// Validity is a checker's verdict.
type Validity string

// The three verdicts. Unknown means the checker could not decide (timeout,
// nothing to check, malformed input); it is never a pass.
const (
	Valid   Validity = "valid"
	Invalid Validity = "invalid"
	Unknown Validity = "unknown"
)

// Merge combines two verdicts so that the worse one wins: invalid beats
// unknown, which beats valid. Anything unrecognised counts as unknown.
func Merge(a, b Validity) Validity {
	switch {
	case a == Invalid || b == Invalid:
		return Invalid
	case a == Valid && b == Valid:
		return Valid
	}
	return Unknown
}

// Consumed is what a checker actually looked at: client operations it used and
// the distinct keys (partitions) they touched. Audits use it to refuse a
// verdict built on too little evidence.
type Consumed struct {
	Ops  int `json:"ops"`
	Keys int `json:"keys"`
}

// Result is one checker's verdict with the evidence a person needs to trust it.
type Result struct {
	Checker     string         `json:"checker"`               // "linearizable", "stats", "compose"
	Valid       Validity       `json:"valid"`                 // the verdict
	Summary     string         `json:"summary"`               // one line a person reads first
	Explanation string         `json:"explanation,omitempty"` // multi-line text for a failure or unknown
	Consumed    Consumed       `json:"consumed"`              // what the checker actually looked at
	BlindSpots  []string       `json:"blind_spots,omitempty"` // what this checker cannot see
	Details     map[string]any `json:"details,omitempty"`     // JSON-able specifics
	Artifacts   []string       `json:"artifacts,omitempty"`   // files written, relative to Env.OutDir
	Children    []Result       `json:"children,omitempty"`    // for compose
	// Ops are the history indexes (Op.Index) of the ops an invalid verdict
	// rests on, so a report can place the anomaly in the run: when, on
	// which node, under which faults. Empty when the checker names none.
	Ops []int64 `json:"ops,omitempty"`
	// Input is why the history itself cannot be used by this checker (an
	// unpaired completion, a value appended twice), nil when it can; a
	// *history.OpError in its chain names the op. Details["input_error"]
	// carries its text in JSON.
	Input error `json:"-"`
}

// Env is what the caller provides to a check run.
type Env struct {
	OutDir  string        // where artifacts go; "" writes no files
	Timeout time.Duration // search budget; 0 means no limit
	// MemoryBudget is the heap, in bytes, Run lets the check grow the
	// process to; 0 means DefaultMemoryBudget.
	MemoryBudget uint64
}

// Checker judges a history. Check never panics on bad input: a history it
// cannot interpret yields an Unknown result that says why.
type Checker interface {
	Name() string
	Check(ctx context.Context, h []history.Op, env Env) Result
}

// nothingToCheck is the result every checker returns when it consumed no client
// ops: a verdict over zero evidence is no verdict.
func nothingToCheck(name, why string, blind []string) Result {
	return Result{
		Checker:    name,
		Valid:      Unknown,
		Summary:    "nothing to check: " + why,
		BlindSpots: blind,
	}
}
