package verdict

import "time"

// Fact is one yes/no observation with the evidence behind it. The zero value
// means nobody established it: the audits report that as cannot-judge and
// the decision never counts it in a PASS's favour.
type Fact struct {
	Known    bool   `json:"known"`
	Holds    bool   `json:"holds"`
	Evidence string `json:"evidence,omitempty"`
}

// Yes is a fact that was established to hold, with its evidence.
func Yes(evidence string) Fact { return Fact{Known: true, Holds: true, Evidence: evidence} }

// No is a fact that was established not to hold, with its evidence.
func No(evidence string) Fact { return Fact{Known: true, Evidence: evidence} }

// ok reports whether f was established to hold.
func (f Fact) ok() bool { return f.Known && f.Holds }

// Evidence is everything Decide needs about one scenario or arm, measured by
// the run. Zero values are the conservative reading: not attempted, not
// measured, not seen.
type Evidence struct {
	Scenario string `json:"scenario"` // "S1", or an arm "S5/api"
	Claims   Claims `json:"claims"`

	Attempted    bool   `json:"attempted"`
	NotRunReason string `json:"not_run_reason,omitempty"` // why not attempted: time, release-gated, harness missing
	// MissingCapabilities names what the pre-run probe found missing after the
	// operator was told; non-empty means INCONCLUSIVE-env.
	MissingCapabilities []string `json:"missing_capabilities,omitempty"`

	// Interrupted: the run was cancelled (Ctrl-C, a hard stop) before its
	// budget ended. Such a run is never a PASS (see the package doc).
	Interrupted bool `json:"interrupted,omitempty"`

	Faults  []Fault        `json:"faults,omitempty"` // the scheduled faults; none = no fault planned
	Oracle  Oracle         `json:"oracle"`
	Reruns  Reruns         `json:"reruns"`
	History HistoryQuality `json:"history"`
	// Surface says the surface signals were clean: no client errors beyond the
	// fault windows, the system recovered, the final state is plausible.
	Surface Fact `json:"surface"`

	Budgets map[Tier]TierRequirement `json:"budgets,omitempty"` // the plan's declared tiers
	Run     Run                      `json:"run"`
	Load    Load                     `json:"load"`

	Logs     LogScan  `json:"logs"`
	Recovery Recovery `json:"recovery"`
	Baseline Baseline `json:"baseline"`
	Retries  Retries  `json:"retries"`
	// Sensitivity is the checker-sensitivity audit: the recorded history
	// mutated in ways the oracle must catch, and what it said of each.
	Sensitivity Sensitivity `json:"sensitivity"`
	// Surfaces are the §7.M.S surfaces the boundary oracle covers. For an arm,
	// list the whole scenario's surfaces: arms exist to cover them, and
	// AggregateArms catches an arm that did not run.
	Surfaces []string `json:"surfaces,omitempty"`
	Controls Controls `json:"controls"`
}

// Claims describes the claims the scenario falsifies: their §1b categories
// and the traits of their wording that the audits need.
type Claims struct {
	Categories []ClaimCategory `json:"categories,omitempty"`
	// Replication: the claim concerns replication, leadership or membership,
	// so every op must record node_seen (§9).
	Replication bool `json:"replication,omitempty"`
	// Failover: the claim is about surviving failover (§3.2 #4, §1.6: >1 failover).
	Failover bool `json:"failover,omitempty"`
	// AnyQuorumSize: the claim holds "for any quorum size" (§3.2 #10: ≥2 topologies).
	AnyQuorumSize bool `json:"any_quorum_size,omitempty"`
}

// Partition says whether a fault is a network partition and of which shape.
type Partition string

// Partition shapes; the empty value is "not a partition".
const (
	Symmetric  Partition = "symmetric"
	Asymmetric Partition = "asymmetric"
)

// Fault is one scheduled fault and what was observed of it. The injector's
// word is necessary but never sufficient: landing is read back from the victim.
type Fault struct {
	Name      string    `json:"name"` // "isolate leader @T+60s for 30s"
	Partition Partition `json:"partition,omitempty"`
	Injector  Fact      `json:"injector"` // the injector reported success
	Victim    Fact      `json:"victim"`   // read back on the victim: counters, qdisc stats, process state
	Client    Fact      `json:"client"`   // what clients saw in the window: errors, timeouts
	// ClientDeclared: the scenario's landing evidence names a client-side
	// signal, so the fault has landed only if Client holds too.
	ClientDeclared bool `json:"client_declared,omitempty"`
	// Held: the effect was still in place when the hold ended (not reverted by
	// an orchestrator, not bypassed by a proxy), read back before healing.
	Held   Fact `json:"held"`
	Healed Fact `json:"healed"` // removal verified on the victim
	// OneShot, when set, says why the fault has no end (file corruption, a
	// script fault with neither stop nor heal): its damage stays by
	// design, so Held and Healed are not judged; its landing still is.
	OneShot string `json:"one_shot,omitempty"`
	// Declared is the scenario's declared landing evidence (evidence.*
	// declarations) as judged over the run. Unknown means none was
	// declared; when known, the fault has landed only if it holds.
	Declared Fact `json:"declared,omitzero"`
}

// landed reports whether the fault's declared landing evidence was seen.
func (f *Fault) landed() bool {
	return f.Injector.ok() && f.Victim.ok() && (!f.ClientDeclared || f.Client.ok()) && (!f.Declared.Known || f.Declared.Holds)
}

// Outcome is the oracle's answer. Its values are the checker's Validity
// strings, so a check.Result converts with Outcome(res.Valid).
type Outcome string

// Oracle outcomes; the empty value means the oracle did not run.
const (
	Valid   Outcome = "valid"
	Invalid Outcome = "invalid"
	Unknown Outcome = "unknown"
)

// OracleKind names one ingredient of the oracle, for the weak-oracle audit
// (§3.2, §4.2). Names outside this list are allowed and count as "other".
type OracleKind string

// Oracle kinds the audits distinguish.
const (
	KindHistory        OracleKind = "history"     // per-op history checker: linearizability, serializability, session, prefix
	KindNoLostAck      OracleKind = "no-lost-ack" // every acked output present in the final state
	KindFinalState     OracleKind = "final-state" // a predicate over the final state
	KindReconciliation OracleKind = "replica-reconciliation"
	KindProperty       OracleKind = "property"   // invariant asserted per step
	KindMetricSLO      OracleKind = "metric-slo" // threshold over a metric window
	KindPerGroup       OracleKind = "per-group"  // fairness formulas per group (§4.2 #14)
	KindLogs           OracleKind = "logs"
	KindHealth         OracleKind = "health"
	KindErrorMetrics   OracleKind = "error-metrics"
)

// Oracle is how the declared oracle (the §7.M checker, or the Oracle field for
// a non-serious scenario) ran. Fill it from check.Result: Outcome from Valid,
// Consumed from Consumed.Ops, Keys from Consumed.Keys. An oracle that reads
// metrics rather than ops counts the ops its metric windows covered.
type Oracle struct {
	Name    string  `json:"name"`              // "linearizable(cas-register)"
	Outcome Outcome `json:"outcome,omitempty"` // "" = did not run
	Summary string  `json:"summary,omitempty"` // the checker's one line
	// Consumed counts the ops the oracle used; Dropped the ops it rightly set
	// aside (definite failures, unknown-outcome reads). Together they should
	// account for every op issued.
	Consumed int64 `json:"consumed"`
	Dropped  int64 `json:"dropped"`
	Keys     int   `json:"keys"`
	// Subset names what the checker covered when it covered only part of the
	// claim: "per key, not cross-key", "per replica, not quorum".
	Subset string `json:"subset,omitempty"`
	// MatchesModel: the checker that ran is the one the model calls for (§4.1).
	MatchesModel Fact         `json:"matches_model"`
	Kinds        []OracleKind `json:"kinds,omitempty"`
	// Misfit, when set, says the violation came only from checkers the
	// model does not call for (monotonic reads over a register without
	// versions): the wrong data model, so no violation of the claim.
	Misfit string `json:"misfit,omitempty"`
}

// ran reports whether the oracle ran at all.
func (o *Oracle) ran() bool { return o.Outcome != "" }

// Reruns records re-runs of a violating run with the same seed, configuration
// and fault sequence.
type Reruns struct {
	Attempted int `json:"attempted"`
	// Reproduced counts the re-runs that found a violation again.
	Reproduced int `json:"reproduced"`
	// Different counts those of them whose violation was not the
	// original's (another anomaly class, check.Signature): the run is
	// reproducibly wrong, but what it shows changed.
	Different int      `json:"different,omitempty"`
	Runs      []string `json:"runs,omitempty"` // each re-run: where it is and what it found
}

// HistoryQuality says whether the recorded history carries what a checker
// needs to separate pass from fail (§9 "weak history").
type HistoryQuality struct {
	Complete       Fact `json:"complete"`        // journal closed cleanly; spans every fault window
	Timestamps     Fact `json:"timestamps"`      // every answered op has invoke and complete times
	Monotonic      Fact `json:"monotonic"`       // times from a monotonic clock, never backwards
	TimeoutMarkers Fact `json:"timeout_markers"` // unknown outcomes are marked, with no output
	FaultEpoch     Fact `json:"fault_epoch"`     // ops overlapping a fault window carry fault_epoch
	NodeSeen       Fact `json:"node_seen"`       // ops record the node that served them
}

// Run is what the run measured about itself, for tier gating and audits.
type Run struct {
	Nodes      int           `json:"nodes"`
	Topologies int           `json:"topologies"` // distinct cluster topologies run
	Duration   time.Duration `json:"duration"`   // workload time, summed over seeds and repetitions
	Ops        int64         `json:"ops"`        // client ops issued (invocations)
	OK         int64         `json:"ok"`         // client ops that completed ok
	// Unknown counts the client ops issued whose outcome is unknown: they
	// ended info (a timeout, a lost connection) or never completed. Such an
	// op may or may not have happened, so it is no load and counts toward no
	// op floor. Older evidence without it reads as every outcome known.
	Unknown     int64 `json:"unknown,omitempty"`
	Seeds       int   `json:"seeds"` // distinct seeds run
	Repetitions int   `json:"repetitions"`
	// Scale is how many times slower than the controller the nodes ran, as
	// budgets allow for it (capped); op floors are divided by it. 0 or 1:
	// as fast as the controller.
	Scale float64 `json:"scale,omitempty"`
}

// Known is how many client ops issued had a known outcome: ok or fail.
func (r Run) Known() int64 { return max(0, r.Ops-max(0, r.Unknown)) }

// MinKnownShare is the least share of issued ops that must have a known
// outcome for the run's load to count. Faults make some ops time out (a
// partitioned minority, a killed leader until failover), but a run most of
// whose ops got no answer measured the client's timeouts, not the system.
const MinKnownShare = 0.5

// Load is the throughput the run sustained against the plan's expectation.
type Load struct {
	// Target is the sustained rate the plan asks for (Workload rate or Exit
	// criteria floor), in ops/s; 0 means the plan states none.
	Target float64 `json:"target"`
	// Lowest is the lowest throughput of any measurement window of the load
	// phase, in ops/s; meaningful only when Windows > 0.
	Lowest  float64 `json:"lowest"`
	Windows int     `json:"windows"`
	// NeverOK names the functions that never completed ok (check.stats):
	// load evidence, never an anomaly.
	NeverOK []string `json:"never_ok,omitempty"`
}

// LogScan is the result of reading the SUT's logs for red flag #7: every
// declared log file accounted for (read, or named in Unread with why), the
// lines that matched an alarm counted and the first few quoted.
type LogScan struct {
	// Scanned: the suite declared where its logs are and they were looked
	// for (or the in-process system's op errors were read, Source
	// "history"). False: nothing says where the logs are.
	Scanned bool  `json:"scanned"`
	Files   int   `json:"files"` // log files read
	Lines   int64 `json:"lines"` // lines read, over all files
	// Matches counts every line an alarm matched that no expected pattern
	// excuses; Samples quotes the first few, "file:line: text [alarm `p`]".
	Matches int      `json:"matches"`
	Samples []string `json:"samples,omitempty"`
	// ByAlarm counts Matches per alarm pattern.
	ByAlarm map[string]int `json:"by_alarm,omitempty"`
	// Excused counts lines an alarm matched that an expected pattern
	// excused; ExcusedSample quotes the first.
	Excused       int    `json:"excused,omitempty"`
	ExcusedSample string `json:"excused_sample,omitempty"`
	// Unread names each declared log that was missing, empty or
	// unreadable, with why: a log not read is not clean.
	Unread []string `json:"unread,omitempty"`
	// Alarms says what was grepped for, in words ("20 default alarms ...").
	Alarms string `json:"alarms,omitempty"`
	// None is the suite's reason its system has no logs faultline can
	// reach: the audit is n/a with it.
	None string `json:"none,omitempty"`
	// Source is "history" when the errors an in-process system returned
	// were read in place of log files (it has none).
	Source string `json:"source,omitempty"`
}

// MaxLogSamples bounds the matching lines a LogScan quotes; the rest are
// counted.
const MaxLogSamples = 5

// Add folds o (another seed run's scan) into l: counts add up, quotes up to
// MaxLogSamples, every unread log is kept, and the scan counts as made only
// if both were.
func (l *LogScan) Add(o LogScan) {
	l.Scanned = l.Scanned && o.Scanned
	l.Files += o.Files
	l.Lines += o.Lines
	l.Matches += o.Matches
	for _, s := range o.Samples {
		if len(l.Samples) < MaxLogSamples {
			l.Samples = append(l.Samples, s)
		}
	}
	for k, n := range o.ByAlarm {
		if l.ByAlarm == nil {
			l.ByAlarm = map[string]int{}
		}
		l.ByAlarm[k] += n
	}
	l.Excused += o.Excused
	if l.ExcusedSample == "" {
		l.ExcusedSample = o.ExcusedSample
	}
	l.Unread = append(l.Unread, o.Unread...)
	if l.Alarms == "" {
		l.Alarms = o.Alarms
	}
	if l.None == "" {
		l.None = o.None
	}
	if l.Source == "" {
		l.Source = o.Source
	}
}

// Sensitivity is what the checker said of histories mutated to be wrong
// (a stale or never-written read, a lost acknowledged write, swapped or
// duplicated effects). A checker that accepts one cannot tell pass from
// fail on this workload.
type Sensitivity struct {
	Ran     bool     `json:"ran"`
	Checked int      `json:"checked"` // mutants the checker decided on
	Caught  int      `json:"caught"`  // rejected, as it must
	Escaped []string `json:"escaped,omitempty"`
	Kinds   []string `json:"kinds,omitempty"`
	Skipped string   `json:"skipped,omitempty"` // why no mutant was checked
	// Unfit names each oracle no mutant fits on this history, with why: an
	// oracle never shown able to fail.
	Unfit []string `json:"unfit,omitempty"`
}

// Recovery measures whether the system came back to nominal after the last
// heal (§3.1 #8), not merely "up but degraded". It is judged by what the
// system did (which nodes answered, how many of its answers were ok, how
// fast it answered them) rather than by how fast the controller drove it:
// closed-loop clients on a busy controller issue fewer ops per second
// whatever the system's health, so throughput is only a coarse floor that
// catches a system serving next to nothing.
//
// The "after" figures come from the quiescent second half of the stretch
// between the last heal and the end of the load: the first half is the
// system's settling (a restarted node catching up, a resumed leader
// stepping down), which recovery is allowed to take.
type Recovery struct {
	Measured bool    `json:"measured"`
	Baseline float64 `json:"baseline"` // ok ops/s before the first fault
	After    float64 `json:"after"`    // ok ops/s after the last heal, once quiescent
	NodesUp  int     `json:"nodes_up"` // nodes whose clients got ok answers once quiescent
	Nodes    int     `json:"nodes"`
	// AnsweredBefore and AnsweredAfter are the share of client completions
	// that were answered (ok, or refused for a reason of the data such as a
	// compare-and-swap whose value did not match), against errors and
	// timeouts, before the first fault and once quiescent after the last
	// heal. A share is a property of the answers, not of their rate, so a
	// busy controller does not move it; errors and timeouts left behind by
	// a fault do.
	AnsweredBefore float64 `json:"answered_before"`
	AnsweredAfter  float64 `json:"answered_after"`
	// LatencyBefore and LatencyAfter are the median latency of ok ops in
	// the same two windows.
	LatencyBefore time.Duration `json:"latency_before_ns"`
	LatencyAfter  time.Duration `json:"latency_after_ns"`
	// Floor is the fraction of Baseline throughput below which the system
	// counts as serving next to nothing; 0 means DefaultRecoveryFloor.
	Floor float64 `json:"floor,omitempty"`
	// BeforeWindow and AfterWindow are the two stretches compared, in ns
	// since the run started, so a plot can show what was judged.
	BeforeWindow [2]int64 `json:"before_window_ns,omitzero"`
	AfterWindow  [2]int64 `json:"after_window_ns,omitzero"`
}

// DefaultRecoveryFloor is the share of pre-fault throughput below which the
// system is not back, when the plan sets no floor [executor choice: the spec
// names no number; a controller whose CPU is busy drives closed-loop clients
// at well under 80% of their earlier rate with a perfectly healthy system
// (issue 11 item 14), so throughput is only a coarse floor; a node left
// serving nothing is caught by NodesUp, errors by the answered share].
const DefaultRecoveryFloor = 0.25

// DefaultAnsweredFloor is the fraction of the pre-fault answered share the
// after-heal share must reach [executor choice: a healthy system answers
// nearly every op, so 80% leaves room for a stray timeout on a busy machine,
// while one node of three answering every op with an error takes a third of
// the answers away].
const DefaultAnsweredFloor = 0.8

// DefaultLatencyFactor and DefaultLatencyGrace bound the after-heal median
// latency of ok ops: at most Factor times the pre-fault median plus Grace
// [executor choice: a millisecond median moves by a few times on a busy
// machine's scheduler alone (the grace is about one scheduling quantum),
// while a node still catching up answers tens of times slower].
const (
	DefaultLatencyFactor = 5
	DefaultLatencyGrace  = 10 * time.Millisecond
)

// Baseline describes a comparison against an earlier run (§3.1 #9).
type Baseline struct {
	Used            bool   `json:"used"` // the oracle compares against a baseline run
	Harness         string `json:"harness,omitempty"`
	BaselineHarness string `json:"baseline_harness,omitempty"`
}

// Retries says whether the client library retries out of the history's sight
// (§3.2 #8) and whether anything outside the client saw the real requests.
type Retries struct {
	Known    bool   `json:"known"`  // the client's retry behaviour was established
	Hidden   bool   `json:"hidden"` // it retries internally, invisible to the history
	Tapped   bool   `json:"tapped"` // a network tap or server-side audit recorded the requests
	Evidence string `json:"evidence,omitempty"`
}

// Controls counts the boundary oracle's control checks that fired (§1.7).
type Controls struct {
	Positive int `json:"positive"` // allowed access that succeeded
	Negative int `json:"negative"` // forbidden access that was denied and left no trace
}

// serious reports whether the scenario is SERIOUS (§1.3).
func (e *Evidence) serious() bool { return Serious(e.Claims.Categories) }

// ran reports whether the scenario got past the pre-run probe and executed.
func (e *Evidence) ran() bool { return e.Attempted && len(e.MissingCapabilities) == 0 }

// landedFaults counts the scheduled faults whose landing evidence was seen.
func (e *Evidence) landedFaults() int {
	n := 0
	for i := range e.Faults {
		if e.Faults[i].landed() {
			n++
		}
	}
	return n
}

// faultActive reports whether faults were scheduled and every one landed.
func (e *Evidence) faultActive() bool {
	return len(e.Faults) > 0 && e.landedFaults() == len(e.Faults)
}

// measured is the run's tier measurement; faults are the ones that landed,
// ops the ones the oracle consumed (an op the checker never saw is no
// evidence, however many were issued).
func (e *Evidence) measured() Measured {
	r := e.Run
	return Measured{Nodes: r.Nodes, Duration: r.Duration, Ops: e.checkedOps(), Faults: e.landedFaults(), Seeds: r.Seeds, Repetitions: r.Repetitions, Scale: r.Scale}
}

// checkedOps is how many ops count toward an op floor: ops the oracle
// consumed (an op it never saw is no evidence, however many were issued)
// whose outcome is known (ok or fail: an info op may or may not have
// happened, so it is no load). Which consumed ops ended info is not
// recorded, so every unknown op is taken to be among them: the count may
// fall short, never run over. None when the oracle did not run.
func (e *Evidence) checkedOps() int64 {
	o, r := &e.Oracle, e.Run
	if !o.ran() {
		return 0
	}
	consumed := o.Consumed
	if r.Ops > 0 {
		consumed = min(consumed, r.Ops)
	}
	return max(0, consumed-max(0, r.Unknown))
}
