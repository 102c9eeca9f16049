package check

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/faultline/faultline/builtins/check/txn"
	"github.com/faultline/faultline/history"
)

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
	known := txn.Models()
	for _, m := range o.ConsistencyModels {
		if !slices.Contains(known, m) {
			return nil, fmt.Errorf("unknown consistency model %q; models: %s", m, strings.Join(known, ", "))
		}
	}
	to := txn.Options{Workload: txn.Workload(o.Workload), ConsistencyModels: o.ConsistencyModels, Anomalies: o.Anomalies,
		CycleSearchBudget: o.CycleSearchBudget, WritesFollowReads: o.WritesFollowReads}
	if err := txn.ValidateOptions(to); err != nil {
		return nil, err
	}
	return &transactional{o: to}, nil
}

// Name implements Checker.
func (t *transactional) Name() string { return "transactional" }

func (t *transactional) String() string {
	if len(t.o.Anomalies) > 0 {
		return fmt.Sprintf("check.transactional(workload=%q, consistency_models=%q, anomalies=%q)", t.o.Workload, t.models(), t.o.Anomalies)
	}
	return fmt.Sprintf("check.transactional(workload=%q, consistency_models=%q)", t.o.Workload, t.models())
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
		res.Valid = Unknown
		res.Summary = "cannot check: " + err.Error()
		res.Details, res.Input = map[string]any{"input_error": err.Error()}, err
		return res
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
