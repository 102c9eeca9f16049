package verdict

import (
	"fmt"
	"slices"
	"strings"

	"github.com/faultline/faultline/internal/plural"
)

// weakOracles are the fourteen weak-oracle checks of §3.2, in report order.
// Pass means the weakness is absent. On a serious scenario any open item
// stops PASS-hardening.
var weakOracles = []check{
	{id: "WO1", title: "Final state only", judge: (*auditor).finalStateOnly},
	{id: "WO2", title: "Logs only", judge: (*auditor).logsOnly, surfaceOnly: true},
	{id: "WO3", title: "Health checks only", judge: (*auditor).healthOnly, surfaceOnly: true},
	{id: "WO4", title: "Single failover", judge: (*auditor).singleFailover},
	{id: "WO5", title: "No-error metrics alone", judge: (*auditor).errorMetricsAlone, surfaceOnly: true},
	{id: "WO6", title: "Short runs not justified by tier", judge: (*auditor).shortRun},
	{id: "WO7", title: "Symmetric partitions only", judge: (*auditor).symmetricOnly},
	{id: "WO8", title: "Client library hides retries", judge: (*auditor).hiddenRetries},
	{id: "WO9", title: "Wall-clock timestamps", judge: (*auditor).wallClock},
	{id: "WO10", title: "One topology for an any-quorum-size claim", judge: (*auditor).oneTopology},
	{id: "WO11", title: "One PRNG seed for a statistical claim", judge: (*auditor).oneSeed},
	{id: "WO12", title: "Single surface for a boundary claim", judge: (*auditor).singleSurface, surfaceOnly: true},
	{id: "WO13", title: "Positive controls only", judge: (*auditor).positiveOnly},
	{id: "WO14", title: "Aggregate-p99-only fairness", judge: (*auditor).aggregateOnly},
}

// surfaceKinds are oracle ingredients that read only surface signals.
var surfaceKinds = []OracleKind{KindLogs, KindHealth, KindErrorMetrics}

func (a *auditor) hasKind(ks ...OracleKind) bool { return containsAny(a.e.Oracle.Kinds, ks...) }

// onlySurface reports whether every oracle ingredient reads surface signals.
func (a *auditor) onlySurface() bool {
	for _, k := range a.e.Oracle.Kinds {
		if !slices.Contains(surfaceKinds, k) {
			return false
		}
	}
	return true
}

// kinds returns the oracle's ingredients for evidence, or ok=false when they
// were not recorded, which leaves the composition items unjudged.
func (a *auditor) kinds() (string, bool) {
	if len(a.e.Oracle.Kinds) == 0 {
		return "the oracle's kinds were not recorded", false
	}
	return "oracle: " + kindsText(a.e.Oracle.Kinds), true
}

func (a *auditor) finalStateOnly() (Status, string) {
	ev, ok := a.kinds()
	switch {
	case !ok:
		return CannotJudge, ev
	case a.hasKind(KindFinalState) && !a.hasKind(KindHistory, KindNoLostAck):
		return Failed, ev + "; a final-state check alone misses lost acks: pair it with no-lost-ack or a history checker"
	}
	return Pass, ev
}

func (a *auditor) logsOnly() (Status, string) { return a.surfaceAlone(KindLogs) }

func (a *auditor) healthOnly() (Status, string) { return a.surfaceAlone(KindHealth) }

// surfaceAlone fails when k is used and nothing but surface signals joins it.
func (a *auditor) surfaceAlone(k OracleKind) (Status, string) {
	ev, ok := a.kinds()
	switch {
	case !ok:
		return CannotJudge, ev
	case a.hasKind(k) && a.onlySurface():
		return Failed, ev + "; only surface signals back the result"
	}
	return Pass, ev
}

// errorMetricsAlone: error metrics need a client history with timeout markers
// beside them, since the SUT may swallow errors.
func (a *auditor) errorMetricsAlone() (Status, string) {
	ev, ok := a.kinds()
	switch {
	case !ok:
		return CannotJudge, ev
	case !a.hasKind(KindErrorMetrics):
		return Pass, ev
	case !a.hasKind(KindHistory):
		return Failed, ev + "; no-error metrics without a client history: the SUT may swallow errors"
	}
	s, tev := judgeFact(a.e.History.TimeoutMarkers, "timeout markers recorded")
	return s, ev + "; " + tev
}

// singleFailover: a failover claim needs repeated failovers and replica
// reconciliation. Landed faults stand in for failovers observed.
func (a *auditor) singleFailover() (Status, string) {
	if !a.e.Claims.Failover {
		return NA, "the claim is not about failover"
	}
	n := a.e.landedFaults()
	ev := plural.Count(n, "fault") + " landed"
	if !a.hasKind(KindReconciliation) {
		return Failed, ev + "; no replica reconciliation in the oracle"
	}
	if n < 2 {
		return Failed, ev + " with replica reconciliation; a failover claim needs ≥2 failovers"
	}
	return Pass, ev + " with replica reconciliation"
}

// shortRun: the run reached the claimed tier's duration and op count. A
// history-checked hardening run whose tier sets no op count needs
// MinHistoryOps (§1.6 default).
func (a *auditor) shortRun() (Status, string) {
	r, run := a.e.Budgets[a.claimed], a.e.Run
	ops := r.Ops
	if ops == 0 && a.claimed == TierHardening && a.e.serious() {
		ops = MinHistoryOps
	}
	if r.Duration <= 0 && ops <= 0 {
		return CannotJudge, fmt.Sprintf("the %s tier declares neither duration nor op count to justify %s and %d ops", a.claimed, run.Duration, run.Ops)
	}
	st, ev := Pass, make([]string, 0, 2)
	if r.Duration > 0 {
		ev = append(ev, fmt.Sprintf("ran %s of %s", run.Duration, r.Duration))
		if run.Duration < r.Duration {
			st = Failed
		}
	}
	if ops > 0 {
		checked := a.e.checkedOps()
		ev = append(ev, fmt.Sprintf("checked %d ops with a known outcome, %d needed (%d of %d issued had one)", checked, ops, run.Known(), run.Ops))
		if checked < ops {
			st = Failed
			if run.Unknown > 0 {
				ev = append(ev, fmt.Sprintf("%d ended info or never completed and count toward no floor (fix: run longer, or make fewer ops time out: a longer client timeout, and definite refusals reported as fail)", run.Unknown))
			}
		}
	}
	return st, fmt.Sprintf("%s tier: %s", a.claimed, strings.Join(ev, ", "))
}

// symmetricOnly: when partitions are in play, at least one asymmetric one landed.
func (a *auditor) symmetricOnly() (Status, string) {
	parts, asym := 0, 0
	for i := range a.e.Faults {
		f := &a.e.Faults[i]
		if f.Partition == "" {
			continue
		}
		parts++
		if f.Partition == Asymmetric && f.landed() {
			asym++
		}
	}
	if parts == 0 {
		return NA, "no partition scheduled"
	}
	ev := fmt.Sprintf("%s landed of %s scheduled", plural.Count(asym, "asymmetric partition"), plural.Count(parts, "partition"))
	if asym > 0 {
		return Pass, ev
	}
	return Failed, ev + "; need ≥1 asymmetric"
}

// hiddenRetries: retries the client hides must be seen by a tap or audit.
func (a *auditor) hiddenRetries() (Status, string) {
	r := &a.e.Retries
	switch {
	case !r.Known:
		return CannotJudge, "whether the client retries internally was not established" + suffix(r.Evidence)
	case !r.Hidden:
		return NA, orDefault(r.Evidence, "the client hides no retries")
	case r.Tapped:
		return Pass, "hidden retries captured by a tap or server-side audit" + suffix(r.Evidence)
	}
	return Failed, "the client retries out of the history's sight and nothing taps the wire" + suffix(r.Evidence)
}

func (a *auditor) wallClock() (Status, string) {
	return judgeFact(a.e.History.Monotonic, "history times monotonic")
}

func (a *auditor) oneTopology() (Status, string) {
	n := a.e.Run.Topologies
	switch {
	case !a.e.Claims.AnyQuorumSize:
		return NA, "the claim is not about any quorum size"
	case n <= 0:
		return CannotJudge, "topologies run were not counted"
	case n >= 2:
		return Pass, fmt.Sprintf("%d topologies run", n)
	}
	return Failed, "1 topology run; an any-quorum-size claim needs ≥2"
}

func (a *auditor) oneSeed() (Status, string) {
	return a.seeds("the hardening PASS is a sampled claim")
}

func (a *auditor) singleSurface() (Status, string) {
	n := len(a.e.Surfaces)
	switch {
	case !containsAny(a.e.Claims.Categories, Boundary):
		return NA, "no boundary claim"
	case n == 0:
		return CannotJudge, "the boundary claim's surfaces were not recorded"
	case n >= 2:
		return Pass, fmt.Sprintf("%d surfaces: %v", n, a.e.Surfaces)
	}
	return Failed, fmt.Sprintf("single surface %q; cover admin, export, SDK, background and observability paths too", a.e.Surfaces[0])
}

func (a *auditor) positiveOnly() (Status, string) {
	c := a.e.Controls
	ev := fmt.Sprintf("%d positive, %d negative controls fired", c.Positive, c.Negative)
	switch {
	case !containsAny(a.e.Claims.Categories, Boundary):
		return NA, "no boundary claim"
	case c.Positive > 0 && c.Negative > 0:
		return Pass, ev
	}
	return Failed, ev + "; a boundary oracle needs both"
}

func (a *auditor) aggregateOnly() (Status, string) {
	ev, ok := a.kinds()
	switch {
	case !containsAny(a.e.Claims.Categories, Fairness):
		return NA, "no fairness claim"
	case !ok:
		return CannotJudge, ev
	case a.hasKind(KindPerGroup):
		return Pass, ev
	}
	return Failed, ev + "; fairness needs per-group formulas, not the aggregate p99"
}
