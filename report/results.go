package report

import (
	"github.com/faultline/faultline/verdict"
)

// ResultsSchemaVersion is the version of results.json's shape (docs/results.md).
// Adding a field keeps it; removing a field or changing its meaning bumps it.
const ResultsSchemaVersion = 1

// Results kinds: what the session ran.
const (
	KindPlan   = "plan"
	KindScript = "script"
)

// Results is a session's results.json, and what `run -o json` prints: one
// document, the same shape for a plan and a script. Units is the part
// every consumer can read alike; Scenarios carries the kind's own detail.
type Results struct {
	SchemaVersion  int                    `json:"schema_version"`
	Kind           string                 `json:"kind"`             // KindPlan or KindScript
	Plan           string                 `json:"plan,omitempty"`   // the plan's path (plans)
	Script         string                 `json:"script,omitempty"` // the script's path (scripts)
	Seed           uint64                 `json:"seed"`
	Tier           string                 `json:"tier"`
	SessionDir     string                 `json:"session_dir"`
	SessionVerdict verdict.SessionVerdict `json:"session_verdict"`
	Headline       string                 `json:"headline"`
	// Result is the scripts' checker-level summary (valid, invalid,
	// unknown, error) across scenarios; plans read SessionVerdict only.
	Result   string       `json:"result,omitempty"`
	ExitCode int          `json:"exit_code"`
	Units    []UnitResult `json:"units"`
	// Scenarios is per kind: for a plan each scenario's decision with its
	// arms' ([]verdict.ScenarioResult); for a script each scenario's run
	// (counts, checker result, faults, landing, replay command, decision).
	Scenarios any `json:"scenarios"`
}

// UnitResult is one scenario, arm or arm aggregate: its verdict with the
// evidence, and where its artifacts are.
type UnitResult struct {
	ID      string          `json:"id"`
	Verdict verdict.Verdict `json:"verdict"`
	TierMet verdict.Tier    `json:"tier_met"`
	Reason  string          `json:"reason"`
	// Fix is what to change to earn a PASS, the first of the decision's
	// blockers; "" for a PASS or a FAIL.
	Fix       string           `json:"fix,omitempty"`
	Executed  bool             `json:"executed"`
	Aggregate bool             `json:"aggregate,omitempty"`
	Artifact  string           `json:"artifact,omitempty"` // relative to the session dir
	Decision  verdict.Decision `json:"decision"`
}

// UnitResults turns the report's unit rows into results.json's units.
func UnitResults(rows []Unit) []UnitResult {
	out := make([]UnitResult, 0, len(rows))
	for _, r := range rows {
		reason, fix := "", ""
		if len(r.Decision.Reasons) > 0 {
			reason = r.Decision.Reasons[0]
		}
		if len(r.Decision.Blockers) > 0 {
			fix = r.Decision.Blockers[0].Fix
		}
		out = append(out, UnitResult{ID: r.ID, Verdict: r.Decision.Verdict, TierMet: r.Decision.TierMet, Reason: reason, Fix: fix,
			Executed: r.Executed, Aggregate: r.Aggregate, Artifact: r.Artifact, Decision: r.Decision})
	}
	return out
}
