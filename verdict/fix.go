package verdict

import (
	"fmt"
	"strings"

	"github.com/faultline/faultline/internal/plural"
)

// This file says, for every gate that can withhold a PASS, what a user can
// change to earn it honestly, the way lint says "fix: ...". The texts live
// here, keyed by gate id, rather than beside each judge, so a judge's body
// can change without touching its advice and the advice of every gate can be
// read (and tested for completeness) in one place. A fix never says "turn
// the check off": it names the evidence to produce or the claim to state.
//
// docs/verdicts.md explains each gate at length; DocAnchor links to it.

// Blocker is one gate that withheld a PASS: which gate, why (once, however
// many faults or items share the reason) and what to change.
type Blocker struct {
	// Gate is an audit id ("RF7", "WO6", "SA1") or, for a decision the
	// tree took before any audit, the verdict itself ("INCONCLUSIVE-env").
	Gate   string `json:"gate"`
	Title  string `json:"title,omitempty"`
	Status Status `json:"status,omitempty"` // the audit item's status; "" for a verdict gate
	Reason string `json:"reason"`
	Fix    string `json:"fix"`
}

// Line is the blocker as one line: "RF7 No swallowed errors: reason".
func (b Blocker) Line() string {
	head := b.Gate
	if b.Title != "" {
		head += " " + b.Title
	}
	return head + ": " + b.Reason
}

// DocAnchor is where docs/verdicts.md explains gate: "docs/verdicts.md#rf7".
func DocAnchor(gate string) string { return "docs/verdicts.md#" + strings.ToLower(gate) }

// auditFix is the fix of one audit item, given its open status; it may read
// the evidence through the auditor to name what fell short.
type auditFix func(a *auditor, st Status) string

// fix is what to change to close the open audit item id; "" when id has
// none (TestEveryGateHasAFix keeps that from happening).
func (a *auditor) fix(id string, st Status) string {
	if f := auditFixes[id]; f != nil && st.open() {
		return f(a, st)
	}
	return ""
}

// auditFixes holds a fix for every id in redFlags, weakOracles and
// sensitivityCheck.
var auditFixes = map[string]auditFix{
	"RF1":  (*auditor).fixLoad,
	"RF2":  (*auditor).fixOracleRan,
	"RF3":  (*auditor).fixLanding,
	"RF4":  (*auditor).fixNoop,
	"RF5":  fixMonotonic,
	"RF6":  (*auditor).fixTier,
	"RF7":  (*auditor).fixLogs,
	"RF8":  (*auditor).fixRecovery,
	"RF9":  fixBaseline,
	"RF10": fixSeeds,
	"WO1":  needKinds(static("pair the final-state check with a check of the history: add check.no_lost_ack() or a history checker (check.linearizable, check.set) to check.compose([...])")),
	"WO2":  needKinds(fixSurfaceAlone("logs")),
	"WO3":  needKinds(fixSurfaceAlone("health checks")),
	"WO4":  static("a failover claim needs replica reconciliation (check.replicas) and at least 2 failovers: keep repeat = True and a workload long enough for two kills"),
	"WO5":  needKinds(fixErrorMetrics),
	"WO6":  (*auditor).fixShortRun,
	"WO7":  static(`schedule at least one asymmetric partition beside the symmetric ones: nemesis.partition(spec = "one-way") (plan: "one-way partition")`),
	"WO8":  fixRetries,
	"WO9":  fixMonotonic,
	"WO10": static("run the claim on at least 2 topologies (e.g. 3 and 5 nodes: scenario(nodes = ...) or a second scenario)"),
	"WO11": fixSeeds,
	"WO12": static("test the boundary on more than one surface: add arms for the admin, export, SDK, background and observability paths (§7.M.S)"),
	"WO13": static("a boundary oracle needs both controls: allowed access that must succeed (positive) and forbidden access that must be denied and leave no trace (negative)"),
	"WO14": needKinds(fixFairness),
	"SA1":  (*auditor).fixSensitivity,
}

// needKinds is f for an item that judges the oracle's make-up, which cannot
// be judged at all when the make-up was not recorded: then that is the fix.
func needKinds(f auditFix) auditFix {
	return func(a *auditor, st Status) string {
		if st == CannotJudge && len(a.e.Oracle.Kinds) == 0 {
			return "let the run record what the oracle is made of: a plan's Oracle field in words the oracle vocabulary classifies (docs/plan-vocabulary.md), a script's checkers from check.*"
		}
		return f(a, st)
	}
}

func static(s string) auditFix { return func(*auditor, Status) string { return s } }

func fixMonotonic(a *auditor, st Status) string {
	if st == CannotJudge {
		return `record op times from a monotonic clock and say so: the built-in clients do; for client.starlark or an imported history keep scenario(time = "auto") or "real", whose times never go backwards`
	}
	return "op times went backwards: take invoke and complete times from the controller's monotonic clock (time = \"real\"), not from a node's wall clock"
}

func (a *auditor) fixLoad(Status) string {
	r, l := a.e.Run, a.e.Load
	switch {
	case r.Ops <= 0:
		return "make the workload issue ops: check the generator yields client ops for the whole duration and that the client connects (artifacts/<ID>/history.jsonl shows each op's error)"
	case r.OK <= 0:
		return "make the client's ops succeed on the healthy system: the fail and info ops in artifacts/<ID>/history.jsonl say why (wrong address, port, credentials or protocol)"
	case float64(r.Known()) < MinKnownShare*float64(r.Ops):
		return "give the client's ops a timeout longer than the system takes to answer under faults, and report a definite refusal (connection refused, not leader, a rejected write) as fail, not info (an error raised before the request was sent is a definite fail)"
	case l.Target > 0 && (l.Windows > 0 || r.Duration > 0):
		return fmt.Sprintf("sustain %.1f ops/s in every window (more concurrency, a shorter stagger, nodes with headroom), or state the rate this system sustains in the plan", l.Target)
	}
	return "let the run time the workload: keep invoke and complete times in the history so the load can be measured per window"
}

func (a *auditor) fixOracleRan(Status) string {
	o := &a.e.Oracle
	switch {
	case !o.ran():
		return "give the scenario a checker that reads the history (check.linearizable, check.set, ...; in a plan, the Oracle field) and see artifacts/<ID>/checker.txt for why it did not run"
	case o.Outcome == Unknown:
		return "let the checker decide: spread the ops over more keys (shorter histories per key), fewer concurrent processes, or a shorter run; checker.txt says where it stopped"
	case o.Consumed <= 0:
		return "record ops the checker can read: ok and fail completions whose values the model understands (a read returns the value, a write carries it)"
	case a.e.Run.Ops <= 0:
		return "count the ops issued: keep every invoke line in the history the checker reads"
	}
	return "keep the whole history: an op the checker neither consumed nor dropped means a truncated history (journal not closed, disk full) or a checker skipping ops"
}

// fixLanding is RF3's: the fix of the first kind of landing gap found.
func (a *auditor) fixLanding(Status) string {
	for i := range a.e.Faults {
		if f := &a.e.Faults[i]; !f.landed() {
			return landingFix(f)
		}
	}
	return landingFix(&Fault{})
}

// landingFix says how to prove the landing of f, by the first signal missing.
func landingFix(f *Fault) string {
	switch {
	case !f.Injector.ok() && strings.Contains(f.Injector.Evidence, "never injected: the run was interrupted"):
		return "let the run finish: it was stopped before this fault was due (run it again, and heal with `faultline heal` if a fault was left in place)"
	case !f.Injector.ok() && strings.Contains(f.Injector.Evidence, "never injected"):
		return "give the fault room inside the load: a longer workload (budget duration, --time-limit) or an earlier, denser schedule (start, interval; combined(interval = ...) takes turns between its faults, one per interval)"
	case !f.Injector.ok():
		return "make the injector succeed: its error is quoted above; run on nodes where the fault's tool works (root, iptables, tc) and clear leftovers with `faultline heal`"
	case !f.Victim.ok():
		return "make the fault hit what the system runs on: target the process, port or file the system really uses (pattern, pidfile, port), and give a custom fault a verify that reads its effect back on every victim"
	case f.ClientDeclared && !f.Client.ok():
		return "let clients see the fault: hold it longer than op_timeout on a node the clients talk to, or declare the client-side signal this fault does produce"
	case f.Declared.Known && !f.Declared.Holds:
		return "show the declared landing evidence: hold the fault long enough on the node the evidence is read from, or declare evidence (landing = ...) that this fault produces"
	}
	return "read the fault's effect back from every victim: the built-in faults do; a nemesis.fault needs a verify returning evidence per victim"
}

func (a *auditor) fixNoop(Status) string {
	for i := range a.e.Faults {
		f := &a.e.Faults[i]
		if !f.Victim.ok() {
			return landingFix(f)
		}
		if !f.Held.ok() {
			return "keep the fault in place until its heal: a supervisor restarting a killed or paused process, or something else removing the rule, reverted it; stop that or shorten the hold"
		}
	}
	return "read the effect back on the victim and again before the heal: a custom fault's verify must show it still in place"
}

// fixTier names the shortfall of the tier a PASS would claim: what to run
// longer, faster or on more seeds.
func (a *auditor) fixTier(Status) string {
	r, ok := a.e.Budgets[a.claimed]
	if !ok {
		return fmt.Sprintf("declare a %s budget: scenario(budgets = {%q: budget(duration = \"30s\", min_ops = 1000)}) (plan: `- **%s budget:** ...`)", a.claimed, string(a.claimed), tierTitle(a.claimed))
	}
	return tierFix(a.claimed, r, a.e.measured())
}

// tierFix says, dimension by dimension, how to meet tier t's floors r from
// what the run measured.
func tierFix(t Tier, r TierRequirement, m Measured) string {
	var do []string
	if m.Ops < ScaledFloor(r.Ops, m.Scale) {
		do = append(do, fmt.Sprintf("complete ≥%s ops (%d did): a longer workload or more concurrency", FloorText(r.Ops, m.Scale), m.Ops))
	}
	if m.Duration < r.Duration {
		do = append(do, fmt.Sprintf("run the workload ≥%s (ran %s)", r.Duration, m.Duration))
	}
	if m.Nodes < r.Nodes {
		do = append(do, fmt.Sprintf("run on ≥%d nodes (%d)", r.Nodes, m.Nodes))
	}
	if m.Faults < r.Faults {
		do = append(do, fmt.Sprintf("land ≥%d faults (%d landed)", r.Faults, m.Faults))
	}
	if m.Seeds < r.Seeds {
		do = append(do, fmt.Sprintf("run %d seeds (%d ran)", r.Seeds, m.Seeds))
	}
	if m.Repetitions < r.Repetitions {
		do = append(do, fmt.Sprintf("repeat %d times (%d)", r.Repetitions, m.Repetitions))
	}
	if len(do) == 0 {
		return fmt.Sprintf("meet every weaker tier first: tiers are cumulative, so the %s tier counts only when the ones below it are met", t)
	}
	s := fmt.Sprintf("for the %s tier %s", t, strings.Join(do, ", "))
	if t != TierSmoke {
		s += "; or claim a weaker tier the run meets (--tier)"
	}
	return s
}

func tierTitle(t Tier) string {
	s := string(t)
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func (a *auditor) fixLogs(Status) string {
	l := &a.e.Logs
	switch {
	case !l.Scanned:
		return LogsFix
	case l.Matches > 0:
		return "read the quoted lines: a real server error is a bug to fix in the system; a line this fault is expected to cause is declared expected (db log_expected = [...] or system_logs(expected = [...])), never silenced by switching the logger off"
	case len(l.Unread) > 0:
		return "make each declared path the file the system writes on every node (as the node sees it), and let the system log at least a line at startup"
	case l.Files == 0:
		return "point the declared logs at files that exist on the nodes (paths as the node sees them); none of them matched a file. " + LogsFix
	}
	return "make the declared logs hold the system's output: the files were found but empty (is the server logging elsewhere, or to stdout?)"
}

func (a *auditor) fixRecovery(Status) string {
	for i := range a.e.Faults {
		if h := a.e.Faults[i].Healed; !h.ok() {
			return "make the heal verifiable and succeed: a custom fault's stop must undo its effect and its verify must show it gone; run `faultline heal` if one was left in place"
		}
	}
	r := &a.e.Recovery
	switch {
	case !r.Measured:
		return "leave load running after the last heal: lengthen the workload or end the fault schedule earlier (repeat = False, or fewer cycles) so the quiet tail can be compared with the pre-fault load"
	case r.Nodes <= 0 || r.Baseline <= 0 || r.AnsweredBefore <= 0 || r.LatencyBefore <= 0:
		return "let the load run before the first fault (nemesis start later than the first ops, e.g. start = \"5s\") so there is a baseline to recover to"
	}
	return "the system did not return to its pre-fault behaviour after the heal: that is behaviour to fix, or, if it recovers slowly, leave it a longer quiet tail after the last heal"
}

func fixBaseline(a *auditor, st Status) string {
	if st == CannotJudge {
		return "record the harness version of the run and of its baseline, so the comparison can be shown to be like for like"
	}
	return "re-run the baseline with this harness version: a comparison across harness versions measures the harness"
}

func fixSeeds(a *auditor, _ Status) string {
	return fmt.Sprintf("run at least %d seeds at the hardening tier: budget(..., seeds = %d) in its budget (plan: seeds in the hardening budget); each seed is its own run", MinSeeds, MinSeeds)
}

func fixSurfaceAlone(what string) auditFix {
	return static("add a checker that reads the client history (check.linearizable, check.set, check.no_lost_ack) beside the " + what + ": surface signals alone cannot see a wrong answer")
}

func fixErrorMetrics(a *auditor, st Status) string {
	if !a.hasKind(KindHistory) {
		return "pair the error metrics with a client history checker: the system may swallow errors its metrics never count"
	}
	return "record unknown outcomes as info ops (no value) so the history marks timeouts the metrics may hide"
}

func (a *auditor) fixShortRun(st Status) string {
	r := a.e.Budgets[a.claimed]
	if st == CannotJudge || (r.Duration <= 0 && r.Ops <= 0) {
		return fmt.Sprintf("give the %s budget a duration or an op count (budget(duration = ..., min_ops = ...); plan: `- **%s budget:** 30 s, ≥1k ops`)", a.claimed, tierTitle(a.claimed))
	}
	return fmt.Sprintf("run the %s tier's duration and op count with ops that complete: %s; raise the workload's duration or rate, or run the tier the budget can meet with --tier", a.claimed, a.shortText(r))
}

// shortText names WO6's shortfall in words the budget uses.
func (a *auditor) shortText(r TierRequirement) string {
	var s []string
	if r.Duration > 0 && a.e.Run.Duration < r.Duration {
		s = append(s, fmt.Sprintf("ran %s of %s", a.e.Run.Duration, r.Duration))
	}
	ops := r.Ops
	if ops == 0 && a.claimed == TierHardening && a.e.serious() {
		ops = MinHistoryOps
	}
	if n := a.e.checkedOps(); ops > 0 && n < ops {
		s = append(s, fmt.Sprintf("%s checked of %d", plural.Count(int(n), "op"), ops))
	}
	return orDefault(strings.Join(s, ", "), "short of the budget")
}

func fixRetries(a *auditor, st Status) string {
	if st == CannotJudge {
		return `say how the client resends requests: client.starlark(..., retries = "never: one request per op"), and hidden_retries = True if a resend can take effect unseen`
	}
	return "make every attempt visible: turn the client's internal retries off so each attempt is an op, or record the wire with a tap or a server-side audit"
}

func fixFairness(*auditor, Status) string {
	return "judge fairness per group: check.fairness with the groups (worst_group_p99 / aggregate_p99 <= t), not the aggregate p99"
}

func (a *auditor) fixSensitivity(st Status) string {
	s := &a.e.Sensitivity
	switch {
	case !s.Ran:
		return "let the sensitivity audit run on the passing history: it needs the recorded history (artifacts/<ID>/history.jsonl) and a checker it can re-run"
	case len(s.Escaped) > 0:
		return "use a checker that can fail on this model (a register needs check.linearizable, not stats or monotonic reads), and make reads record the value they saw"
	}
	return "give the workload ops a wrong history can be made from: reads whose values the checker compares (a write-only or stats-only run can never fail)"
}

// verdictFixes holds, for every verdict that is neither a PASS nor a FAIL,
// what to change to earn a PASS; the FAILs have one too, since they can be
// made clearer (a re-run) though not passed by anything but a fix in the
// system.
var verdictFixes = map[Verdict]func(e *Evidence, reasons []string) string{
	NotRun:                     fixNotRun,
	InconclusiveEnv:            fixEnv,
	InconclusiveOracleTooWeak:  func(e *Evidence, _ []string) string { return weakFix(e) },
	InconclusiveFaultNotProven: func(e *Evidence, _ []string) string { return landingFix(firstUnlanded(e)) },
	PartialSurface:             fixPartialSurface,
	PartialModel:               fixPartialModel,
	FailNondeterministic: func(*Evidence, []string) string {
		return "re-run it with the same seed (--reruns 3, or `faultline replay SESSION`) to learn whether it reproduces; a violation is fixed in the system, not in the test"
	},
	FailReproducible: func(*Evidence, []string) string {
		return "the system violated the claim: fix it, then replay the schedule (`faultline replay SESSION`; `faultline reduce SESSION` shrinks it first)"
	},
}

// VerdictFix is what to change, given the decision's evidence and reasons,
// to turn verdict v into a PASS; "" for a PASS.
func VerdictFix(v Verdict, e *Evidence, reasons []string) string {
	f := verdictFixes[v]
	if f == nil {
		return ""
	}
	if e == nil {
		e = &Evidence{}
	}
	return f(e, reasons)
}

func fixNotRun(e *Evidence, reasons []string) string {
	why := e.NotRunReason
	if why == "" && len(reasons) > 0 {
		why = reasons[0]
	}
	switch {
	case strings.Contains(why, "could not be compiled"), strings.Contains(why, "does not load"):
		return "fix the scenario where the error above points (`faultline lint PLAN` names file and line), then run it again"
	case strings.Contains(why, "interrupted"):
		return "run the session again and let it finish (interrupting it leaves the later scenarios not run)"
	case strings.Contains(why, "run failed"):
		return "fix the error above (the session log has the whole message) and run the scenario again"
	}
	return "run the scenario: it was declared but not attempted (not selected with --scenario, skipped with --skip, or out of time)"
}

func fixEnv(e *Evidence, _ []string) string {
	caps := orDefault(strings.Join(e.MissingCapabilities, ", "), "the missing capability")
	return "provide " + caps + " on the nodes (root, the tool installed, the kernel feature enabled) or run on nodes that have it; the capability matrix shows how each was probed"
}

func firstUnlanded(e *Evidence) *Fault {
	for i := range e.Faults {
		if !e.Faults[i].landed() {
			return &e.Faults[i]
		}
	}
	return &Fault{}
}

// weakFix is INCONCLUSIVE-oracle-too-weak's fix, by the first condition of
// the decision tree that produced it.
func weakFix(e *Evidence) string {
	o := &e.Oracle
	switch {
	case o.Outcome == Invalid && o.Misfit != "":
		return "use the checker the model calls for (" + o.Misfit + "); a checker for another model cannot witness a violation of this claim"
	case e.Interrupted:
		return "let the run finish its budget: an interrupted run's checker judged only a prefix"
	case sensitivityDecided(e):
		return (&auditor{e: e}).fixSensitivity(Failed)
	case !o.ran():
		return "make the declared checker run (checker.txt says why it did not); surface signals alone cannot separate pass from fail"
	case o.Outcome == Unknown:
		return (&auditor{e: e}).fixOracleRan(Failed)
	case o.Outcome == Valid && o.Consumed <= 0:
		return "make ops take effect: a history in which every op failed or timed out is valid and proves nothing; check the client against the healthy system first"
	}
	return historyFix(e)
}

// sensitivityDecided reports whether the checker-sensitivity audit (SA1)
// is what made the decision tree call the oracle too weak.
func sensitivityDecided(e *Evidence) bool {
	o, s := &e.Oracle, &e.Sensitivity
	return o.Outcome == Valid && !e.Interrupted && (len(s.Escaped) > 0 || (e.serious() && s.Ran && (s.Checked == 0 || len(s.Unfit) > 0)))
}

// historyFix names the first history field a checker needs that is missing.
func historyFix(e *Evidence) string {
	h := &e.History
	switch {
	case !e.Oracle.MatchesModel.ok():
		return "use the checker the model and claim call for (a register's safety claim: check.linearizable); the plan's §7.M Checker must match its Model"
	case !h.Timestamps.ok():
		return "give every answered op its invoke and complete times (the built-in clients do; an imported history must keep them)"
	case !h.TimeoutMarkers.ok():
		return "record an op whose outcome is unknown as info without a value, not as ok or fail"
	case !h.Monotonic.ok():
		return fixMonotonic(nil, CannotJudge)
	case !h.FaultEpoch.ok():
		return "let the run stamp ops in fault windows with fault_epoch: schedule the faults through the scenario's nemesis, not outside it"
	case !h.NodeSeen.ok():
		return "record the node that served each op (op node) for a replication, failover or membership claim"
	}
	return "record what the checker needs to separate pass from fail (the reasons above name it)"
}

func fixPartialSurface(e *Evidence, reasons []string) string {
	if !e.Oracle.ran() {
		return "make the declared §7.M checker run: only surface signals back this result (checker.txt says why it did not run)"
	}
	return "close the open gates listed: each says what to change"
}

func fixPartialModel(e *Evidence, _ []string) string {
	switch {
	case e.Interrupted:
		return "let the run finish its budget: the checker covered only the prefix recorded before the interruption"
	case e.Oracle.Subset != "":
		return "check the whole claim, not a subset (" + e.Oracle.Subset + "): a checker over every key and replica the claim covers"
	case !e.History.Complete.ok():
		return "keep the whole history: the journal must close cleanly and span every fault window (a killed controller or full disk cuts it)"
	}
	return "close the open gates listed: each says what to change"
}

// blockers lists the gates that withheld a PASS from d, each once, most
// decisive first, with what to change; none for a PASS. gated says d's
// verdict came from §2.3's gates on a PASS of the tree, so the open audit
// items are why; otherwise the tree's verdict is.
func blockers(d *Decision, a *auditor, gated bool) []Blocker {
	switch {
	case d.Verdict.IsPass(), d.Verdict.IsFail():
		return nil
	case gated:
		return gateBlockers(d, a)
	case d.Verdict == InconclusiveFaultNotProven:
		return faultBlockers(d, a.e)
	}
	b := Blocker{Gate: string(d.Verdict), Reason: collapse(d.Reasons), Fix: VerdictFix(d.Verdict, a.e, d.Reasons)}
	if d.Verdict == InconclusiveOracleTooWeak && sensitivityDecided(a.e) {
		b.Gate, b.Title = sensitivityCheck.id, sensitivityCheck.title
	}
	return []Blocker{b}
}

// gateBlockers are the open audit items behind a gated downgrade: the
// weak-oracle items first when they stopped PASS-hardening, then the red
// flags; failed items before unjudged ones, each list in report order.
func gateBlockers(d *Decision, a *auditor) []Blocker {
	rf := d.Audits[:len(redFlags)]
	wo := d.Audits[len(redFlags) : len(redFlags)+len(weakOracles)]
	var groups [][]AuditItem
	if strings.HasPrefix(firstOf(d.Reasons), "weak oracle") {
		groups = append(groups, wo)
	}
	groups = append(groups, rf)
	var out []Blocker
	for _, items := range groups {
		for _, want := range []Status{Failed, CannotJudge} {
			for _, it := range items {
				if it.Status == want {
					out = append(out, Blocker{Gate: it.ID, Title: it.Title, Status: it.Status, Reason: it.Evidence, Fix: it.Fix})
				}
			}
		}
	}
	return out
}

// faultBlockers groups the unproven faults by what is missing, so six faults
// missing the same signal make one blocker naming six faults, not six.
func faultBlockers(d *Decision, e *Evidence) []Blocker {
	var order []string
	names := map[string][]string{}
	first := map[string]*Fault{}
	for i := range e.Faults {
		f := &e.Faults[i]
		if f.landed() {
			continue
		}
		gap := landingGap(f)
		if _, ok := names[gap]; !ok {
			order = append(order, gap)
			first[gap] = f
		}
		names[gap] = append(names[gap], f.Name)
	}
	if len(order) == 0 {
		return []Blocker{{Gate: string(d.Verdict), Reason: collapse(d.Reasons), Fix: landingFix(&Fault{})}}
	}
	out := make([]Blocker, 0, len(order))
	for _, gap := range order {
		ns := names[gap]
		reason := fmt.Sprintf("fault not proven: %s: %s", strings.Join(ns, ", "), gap)
		if len(ns) > 1 {
			reason = fmt.Sprintf("%d faults not proven (%s): %s", len(ns), strings.Join(ns, ", "), gap)
		}
		out = append(out, Blocker{Gate: string(d.Verdict), Reason: reason, Fix: landingFix(first[gap])})
	}
	return out
}

// collapse joins reasons into one text, writing a reason that recurs once
// with its count.
func collapse(reasons []string) string {
	var order []string
	n := map[string]int{}
	for _, r := range reasons {
		r = strings.Join(strings.Fields(r), " ")
		if n[r] == 0 {
			order = append(order, r)
		}
		n[r]++
	}
	for i, r := range order {
		if n[r] > 1 {
			order[i] = fmt.Sprintf("%s (×%d)", r, n[r])
		}
	}
	return strings.Join(order, "; ")
}

func firstOf(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}

// armBlockers are an aggregate's blockers: each arm's that did not pass,
// named by arm; none when the aggregate passed or failed.
func armBlockers(v Verdict, arms []Decision) []Blocker {
	if v.IsPass() || v.IsFail() {
		return nil
	}
	var out []Blocker
	for i := range arms {
		d := &arms[i]
		if d.evidencedPass() {
			continue
		}
		bs := d.Blockers
		if d.Verdict.IsPass() {
			bs = []Blocker{{Gate: string(d.Verdict), Reason: "passed without cited oracle or landing evidence",
				Fix: "let the arm's checker run on its history and its faults show their landing, so the PASS cites both"}}
		}
		if len(bs) == 0 {
			bs = []Blocker{{Gate: string(d.Verdict), Reason: collapse(d.Reasons), Fix: VerdictFix(d.Verdict, d.Evidence, d.Reasons)}}
		}
		for _, b := range bs {
			b.Reason = "arm " + d.Scenario + ": " + b.Reason
			out = append(out, b)
		}
	}
	return out
}

// OtherReasons are d's reasons the blockers do not already say: for a PASS
// or a FAIL every reason; after a gate's downgrade the reasons that follow
// its summary line (the tier met, the PASS it stopped); for an aggregate its
// summary line. A tree verdict's reasons are all in its blockers.
func (d *Decision) OtherReasons() []string {
	switch {
	case len(d.Blockers) == 0:
		return d.Reasons
	case len(d.Reasons) == 0:
		return nil
	case strings.HasPrefix(d.Reasons[0], "red flag open"), strings.HasPrefix(d.Reasons[0], "weak oracle stops"):
		return d.Reasons[1:]
	case strings.HasPrefix(d.Reasons[0], "capped at"):
		return d.Reasons[:1]
	}
	return nil
}
