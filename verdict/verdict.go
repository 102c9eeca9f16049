package verdict

import "strings"

// Verdict is the outcome of one scenario or arm. The spellings are a contract
// (plan spec §2.1): reports, results.json and CI read them verbatim.
type Verdict string

// The ten scenario/arm verdicts of §2.1.
const (
	// PassSmoke: no fault active, oracle on the complete history, no anomaly.
	// It proves the harness works, not that the system is robust.
	PassSmoke Verdict = "PASS-smoke"
	// PassHardening: faults landed, the checker consumed the complete history
	// spanning them, no anomaly, and the hardening tier was met.
	PassHardening Verdict = "PASS-hardening"
	// FailReproducible: a violation that recurred on a re-run with the same
	// seed, configuration and fault sequence.
	FailReproducible Verdict = "FAIL-reproducible"
	// FailNondeterministic: a violation an identical re-run did not reproduce.
	FailNondeterministic Verdict = "FAIL-nondeterministic"
	// InconclusiveEnv: a required capability was missing before the run.
	InconclusiveEnv Verdict = "INCONCLUSIVE-env"
	// InconclusiveOracleTooWeak: the history or checker cannot separate pass
	// from fail (missing fault_epoch, timeout markers, node_seen; checker ≠ model).
	InconclusiveOracleTooWeak Verdict = "INCONCLUSIVE-oracle-too-weak"
	// InconclusiveFaultNotProven: a fault was scheduled but its declared landing
	// signal is absent or ambiguous; the oracle's outcome is irrelevant.
	InconclusiveFaultNotProven Verdict = "INCONCLUSIVE-fault-not-proven"
	// PartialSurface: only surface signals back the result (the declared
	// checker did not run); also the cap when arms are aggregated.
	PartialSurface Verdict = "PARTIAL-surface"
	// PartialModel: the checker ran on a named subset (per key, per replica).
	PartialModel Verdict = "PARTIAL-model"
	// NotRun: declared but never attempted this session.
	NotRun Verdict = "NOT-RUN"
)

// Verdicts lists the ten verdicts in the spec's order.
var Verdicts = []Verdict{
	PassSmoke, PassHardening, FailReproducible, FailNondeterministic,
	InconclusiveEnv, InconclusiveOracleTooWeak, InconclusiveFaultNotProven,
	PartialSurface, PartialModel, NotRun,
}

// Known reports whether v is one of the ten verdicts.
func (v Verdict) Known() bool {
	for _, k := range Verdicts {
		if v == k {
			return true
		}
	}
	return false
}

// IsPass reports whether v is PASS-smoke or PASS-hardening.
func (v Verdict) IsPass() bool { return v == PassSmoke || v == PassHardening }

// IsFail reports whether v is one of the two FAIL verdicts.
func (v Verdict) IsFail() bool { return v == FailReproducible || v == FailNondeterministic }

// IsInconclusive reports whether v is one of the three INCONCLUSIVE verdicts.
func (v Verdict) IsInconclusive() bool {
	return v.Known() && strings.HasPrefix(string(v), "INCONCLUSIVE-")
}

// IsPartial reports whether v is PARTIAL-surface or PARTIAL-model.
func (v Verdict) IsPartial() bool { return v == PartialSurface || v == PartialModel }

// SessionVerdict is the headline of a whole session (§2.5). The spellings are
// a contract, like Verdict's.
type SessionVerdict string

// The five session verdicts.
const (
	// Done: at least one evidenced PASS and nothing inconclusive, partial or skipped.
	Done SessionVerdict = "DONE"
	// DoneWithConcerns: evidenced PASSes beside inconclusive, partial or skipped rows.
	DoneWithConcerns SessionVerdict = "DONE_WITH_CONCERNS"
	// Inconclusive: something ran but nothing earned an evidenced PASS or a FAIL.
	Inconclusive SessionVerdict = "INCONCLUSIVE"
	// Fail: a violation was found.
	Fail SessionVerdict = "FAIL"
	// Blocked: nothing ran (plan rejected, SUT unreachable, every capability missing).
	Blocked SessionVerdict = "BLOCKED"
)

// ExitCode is the process exit status the CLI contract assigns to s: 0 DONE,
// 1 FAIL, 2 INCONCLUSIVE or DONE_WITH_CONCERNS, 3 BLOCKED. An unknown value
// maps to 2, never to success.
func (s SessionVerdict) ExitCode() int {
	switch s {
	case Done:
		return 0
	case Fail:
		return 1
	case Blocked:
		return 3
	}
	return 2
}
