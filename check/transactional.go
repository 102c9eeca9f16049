package check

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/faultline/faultline/check/txn"
	"github.com/faultline/faultline/history"
)

func init() {
	Register(Spec{
		Name:   "transactional",
		Models: TransactionalWorkloads,
		New: func(o Options) (Checker, error) {
			t := o.Transactional
			t.Workload, t.Init, t.HasInit = o.Model, o.Init, o.HasInit
			return Transactional(t)
		},
		Plan:            []string{"strict-serializable", "serializable", "snapshot-isolation", "repeatable-read", "read-committed", "elle"},
		Oracle:          "history",
		ModelsUnderTest: []string{"map", "session"},
		Mutants:         []string{"list-append", "rw-register"},
	})
}

// TransactionalOptions configures Transactional.
type TransactionalOptions struct {
	Workload          string   // "list-append" or "rw-register"
	ConsistencyModels []string // default: strict-serializable unless Anomalies are named; see txn.Models
	// Anomalies are anomaly names (G1c, G-single, ...) that fail the check
	// besides those the models forbid; Elle's :anomalies.
	Anomalies []string
	// CycleSearchBudget bounds the cycle search per component (0: the
	// default); Elle's :cycle-search-timeout.
	CycleSearchBudget time.Duration
	// WritesFollowReads (rw-register): a txn that read a key then wrote it
	// wrote after the version it read; Elle's :wfr-keys?.
	WritesFollowReads bool
	// SequentialKeys and LinearizableKeys (rw-register): infer version
	// orders from process order or real-time order, assuming each key is
	// sequentially consistent or linearizable; Elle's :sequential-keys? and
	// :linearizable-keys?.
	SequentialKeys, LinearizableKeys bool
	// TransactionOrder (rw-register): a known commit order, from the history
	// index of a transaction's completion to its position; Elle's
	// :transaction-order.
	TransactionOrder map[int64]int
	// Init, when HasInit: the initial state, known. For rw-register one
	// value for every key or a map from key (EDN without a keyword's colon)
	// to value, a read of which is no garbage read; for list-append only nil
	// or [] (every key starts empty, so an element nobody appended is a
	// garbage read). See txn.Options.Init.
	Init    any
	HasInit bool
}

// TransactionalWorkloads are the model names Transactional accepts.
var TransactionalWorkloads = []string{string(txn.ListAppend), string(txn.RWRegister)}

// transactional is the Elle-class checker for list-append and rw-register
// histories.
type transactional struct{ o txn.Options }

// Transactional returns a checker that looks for the isolation anomalies the
// chosen consistency models forbid (Elle's approach: dependency cycles and
// non-cycle anomalies inferred from reads).
func Transactional(o TransactionalOptions) (Checker, error) {
	if !slices.Contains(TransactionalWorkloads, o.Workload) {
		return nil, fmt.Errorf("unknown transactional workload %q; workloads: %s", o.Workload, strings.Join(TransactionalWorkloads, ", "))
	}
	// ValidateOptions knows the models and their aliases (PL-2, ...).
	to := txn.Options{Workload: txn.Workload(o.Workload), ConsistencyModels: o.ConsistencyModels, Anomalies: o.Anomalies,
		CycleSearchBudget: o.CycleSearchBudget, WritesFollowReads: o.WritesFollowReads,
		SequentialKeys: o.SequentialKeys, LinearizableKeys: o.LinearizableKeys, TransactionOrder: o.TransactionOrder,
		Init: o.Init, HasInit: o.HasInit}
	if err := txn.ValidateOptions(to); err != nil {
		return nil, err
	}
	return &transactional{o: to}, nil
}

// Name implements Checker.
func (t *transactional) Name() string { return "transactional" }

func (t *transactional) String() string {
	s := fmt.Sprintf("check.transactional(workload=%q, consistency_models=%q", t.o.Workload, t.models())
	if len(t.o.Anomalies) > 0 {
		s += fmt.Sprintf(", anomalies=%q", t.o.Anomalies)
	}
	// The version-order assumptions change what a check can find, so they
	// show where the checker is named.
	for _, b := range []struct {
		set  bool
		name string
	}{{t.o.WritesFollowReads, "wfr_keys"}, {t.o.SequentialKeys, "sequential_keys"}, {t.o.LinearizableKeys, "linearizable_keys"}} {
		if b.set {
			s += ", " + b.name + "=True"
		}
	}
	if len(t.o.TransactionOrder) > 0 {
		s += fmt.Sprintf(", transaction_order=<%d txns>", len(t.o.TransactionOrder))
	}
	if t.o.HasInit {
		s += ", init=" + history.FormatEDN(t.o.Init)
	}
	return s + ")"
}

func (t *transactional) models() []string {
	if len(t.o.ConsistencyModels) == 0 && len(t.o.Anomalies) == 0 {
		return []string{"strict-serializable"}
	}
	return t.o.ConsistencyModels
}

// Check implements Checker.
func (t *transactional) Check(ctx context.Context, h []history.Op, env Env) Result {
	res := Result{Checker: t.Name(), BlindSpots: []string{
		"only anomalies inferable from reads: a write nobody read constrains nothing",
		"predicate (range) anomalies are not modelled",
	}}
	if t.o.Workload == txn.RWRegister {
		res.BlindSpots = append(res.BlindSpots, "rw-register infers fewer version orders than list-append, so it finds fewer cycles")
	}
	if env.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, env.Timeout)
		defer cancel()
	}
	r, err := txn.Check(ctx, h, t.o)
	if err != nil {
		return cannotCheck(t.Name(), err, res.BlindSpots)
	}
	res.Valid = Validity(r.Valid)
	res.Summary = r.Summary
	res.Explanation = r.Explanation
	res.Consumed = Consumed{Ops: r.Txns, Keys: r.Keys}
	res.Details = map[string]any{"workload": string(t.o.Workload), "consistency_models": t.models(), "named_anomalies": t.o.Anomalies,
		"cases":         r.Anomalies,
		"anomaly_types": r.AnomalyTypes, "counts": r.Counts, "not": r.Not, "also_not": r.AlsoNot}
	if len(r.Incomplete) > 0 {
		res.Details["incomplete"] = r.Incomplete
	}
	if res.Valid == Invalid {
		res.Ops = anomalyOps(r)
	}
	if env.OutDir != "" && res.Valid != Valid {
		dir := filepath.Join(env.OutDir, "elle")
		files, err := txn.WriteArtifacts(dir, r)
		for _, f := range files {
			if rel, rerr := filepath.Rel(env.OutDir, f); rerr == nil {
				f = rel
			}
			res.Artifacts = append(res.Artifacts, f)
		}
		if err != nil {
			res.BlindSpots = append(res.BlindSpots, "artifacts not written: "+err.Error())
		}
	}
	return res
}

// maxAnomalyOps bounds the ops an invalid transactional result names: the
// report places each in time, and a few cases of each type say enough.
const maxAnomalyOps = 20

// anomalyOps lists the transactions of r's forbidden anomalies, first case
// of each type first, without repeats, at most maxAnomalyOps.
func anomalyOps(r *txn.Result) []int64 {
	var out []int64
	seen := map[int]bool{}
	for round := 0; len(out) < maxAnomalyOps; round++ {
		more := false
		for _, typ := range r.AnomalyTypes {
			cases := r.Anomalies[typ]
			if round >= len(cases) {
				continue
			}
			more = true
			for _, i := range cases[round].Ops {
				if !seen[i] && len(out) < maxAnomalyOps {
					seen[i] = true
					out = append(out, int64(i))
				}
			}
		}
		if !more {
			break
		}
	}
	return out
}
