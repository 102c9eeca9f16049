package session

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/faultline/faultline/check"
	"github.com/faultline/faultline/interp"
	"github.com/faultline/faultline/plans"
	"github.com/faultline/faultline/verdict"
)

// unitSpec is what a verdict needs to know of a unit beyond what its run
// measured: the claims it falsifies, its declared tiers, its model and its
// surfaces. A plan unit's come from the plan; a script scenario's from its
// scenario() declaration, so both go through one decision.
type unitSpec struct {
	ID       string
	Claims   verdict.Claims
	Budgets  map[verdict.Tier]verdict.TierRequirement
	Model    string   // the §7.M "Model under test"; "" when none is declared
	Surfaces []string // the §7.M.S surfaces
	Script   bool     // a hand-written scenario: its checker is its claim
}

// planSpec reads unit id's spec from the plan; an arm ("S5/api") takes its
// scenario's claims, tiers and surfaces.
func planSpec(p *plans.Plan, id string) unitSpec {
	sid, _, _ := strings.Cut(id, "/")
	spec := unitSpec{ID: id}
	s := p.Scenario(sid)
	if s == nil {
		return spec
	}
	spec.Claims.Categories = s.Gate.Categories
	var texts []string
	for _, c := range s.Falsifies {
		if cl := p.Claim(c); cl != nil {
			texts = append(texts, cl.Text)
		}
	}
	spec.Claims.Failover, spec.Claims.AnyQuorumSize = claimTraits(strings.Join(texts, "\n"))
	spec.Budgets = map[verdict.Tier]verdict.TierRequirement{}
	for t := range verdict.Tiers() {
		if b := s.Budgets.Tier(t); b != nil && b.NotProvided == nil {
			req := verdict.TierRequirement{Nodes: b.Nodes, Duration: b.Duration, Ops: b.Ops, Seeds: b.Seeds, Repetitions: b.Repetitions}
			if b.Faults != nil {
				req.Faults = *b.Faults
			}
			spec.Budgets[t] = req
		}
	}
	if s.Model != nil {
		spec.Model = s.Model.Model
	}
	if s.Surface != nil {
		spec.Surfaces = s.Surface.Surfaces
	}
	return spec
}

// scriptSpec is a hand-written scenario's spec. Its checker states its
// claim, so it is held to the serious path (§1.3): a checker that cannot
// fail, or one that did not run, never earns a PASS. Its tiers are its
// budgets' floors: the ops that must complete, the faults that must land
// and the seeds it declares. A script budget's duration is a cap on the
// run (a finite workload may end sooner), so it sets no floor.
func scriptSpec(sc *interp.Scenario) unitSpec {
	spec := unitSpec{ID: sc.Name, Script: true, Budgets: map[verdict.Tier]verdict.TierRequirement{}}
	spec.Claims.Categories = []verdict.ClaimCategory{verdict.Safety}
	spec.Claims.Failover, spec.Claims.AnyQuorumSize = claimTraits(sc.Description + "\n" + strings.Join(sc.Falsifies, "\n"))
	for t := range verdict.Tiers() {
		b, ok := sc.Budgets[string(t)]
		if !ok {
			continue
		}
		spec.Budgets[t] = verdict.TierRequirement{Ops: b.MinOps, Faults: b.Faults, Seeds: b.Seeds}
	}
	if len(sc.Budgets) == 0 {
		// No budgets declared: the default budget is a smoke run.
		spec.Budgets[verdict.TierSmoke] = verdict.TierRequirement{}
	}
	return spec
}

var (
	failoverRe = regexp.MustCompile(`(?i)\bfail[- ]?overs?\b|\bleader (?:election|change|loss|failure)s?\b|\bre-?elect\w*`)
	quorumRe   = regexp.MustCompile(`(?i)\bany (?:quorum|cluster|replica(?:tion)?)[- ](?:size|count|factor)\b|\bfor (?:all|every) (?:quorum|cluster) sizes?\b`)
)

// claimTraits reads the wording traits of a claim the weak-oracle audit
// needs (§3.2 #4, #10): is it about surviving failover, and does it hold for
// any quorum size.
func claimTraits(text string) (failover, anyQuorum bool) {
	return failoverRe.MatchString(text), quorumRe.MatchString(text)
}

// evidenceOf turns what a run measured into the verdict's evidence. Facts
// the run cannot establish stay unknown, so the audits say cannot-judge.
func evidenceOf(spec unitSpec, r *interp.Result, nodes int) verdict.Evidence {
	e := verdict.Evidence{Scenario: spec.ID, Attempted: true, Claims: spec.Claims, Budgets: spec.Budgets, Surfaces: spec.Surfaces}
	e.Run = verdict.Run{Nodes: nodes, Topologies: 1, Duration: r.Summary.Duration, Ops: r.Summary.Invoked, OK: r.Summary.OK,
		Unknown: max(0, r.Summary.Invoked-r.Summary.OK-r.Summary.Fail), Seeds: 1, Repetitions: 1, Scale: r.Scale}
	consumed, dropped, keys := oracleCounts(r.Check)
	e.Oracle = verdict.Oracle{Name: r.Check.Checker, Outcome: verdict.Outcome(r.Check.Valid), Summary: violation(r.Check).Summary,
		Consumed: consumed, Dropped: dropped, Keys: keys}
	e.Faults = faultsOf(r)
	e.Interrupted = r.Interrupted
	e.Recovery = recoveryOf(r.Ops, r.Faults, nodes)
	e.Oracle.MatchesModel, e.Oracle.Kinds = matchesModel(spec.Model, r.Check)
	if spec.Script {
		e.Oracle.MatchesModel = scriptOracleFits(r.Check)
	}
	e.Oracle.Misfit = misfitViolation(spec.Model, r.Check)
	e.Load.NeverOK = neverOK(r.Check)
	if p, n, ok := check.Controls(r.Check); ok {
		e.Controls = verdict.Controls{Positive: p, Negative: n}
	}
	clock := "Go's monotonic clock"
	if r.Virtual {
		clock = "the simulated clock of the run"
	}
	complete := verdict.Yes("the journal closed cleanly with every op of the run")
	if r.Interrupted {
		complete = verdict.No("the run was interrupted: the journal holds only what was recorded before")
	}
	e.History = verdict.HistoryQuality{
		Complete:       complete,
		Timestamps:     verdict.Yes("every invocation and completion carries its time"),
		Monotonic:      verdict.Yes("times come from " + clock),
		TimeoutMarkers: verdict.Yes("unknown outcomes are recorded as info with no output"),
		FaultEpoch:     verdict.Yes("every op carries fault_epoch"),
		NodeSeen:       verdict.No("ops record the node their client is bound to, not the node that served them"),
	}
	return e
}

// leaves walks a checker result tree and returns its leaf results.
func leaves(r check.Result) []check.Result {
	if len(r.Children) == 0 {
		return []check.Result{r}
	}
	var out []check.Result
	for _, c := range r.Children {
		out = append(out, leaves(c)...)
	}
	return out
}

// loadOnly are checkers that count the load and can never find an anomaly.
var loadOnly = map[string]bool{"stats": true}

// scriptOracleFits: a script's checker is its claim, so it fits unless
// nothing in it could ever find an anomaly.
func scriptOracleFits(r check.Result) verdict.Fact {
	var names []string
	for _, l := range leaves(r) {
		if !loadOnly[l.Checker] {
			return verdict.Yes("the scenario's checker states its claim: " + l.Checker + " ran")
		}
		names = append(names, l.Checker)
	}
	return verdict.No("only " + strings.Join(names, ", ") + " ran: it counts outcomes and can never find an anomaly")
}

// misfitViolation names the checkers behind a violation when every one of
// them is a history checker the model does not call for (monotonic reads
// over a register without versions): their "invalid" is the wrong data
// model, not an anomaly of the system. "" when the violation stands.
func misfitViolation(model string, r check.Result) string {
	want := check.CalledFor(model)
	if len(want) == 0 || r.Valid != check.Invalid {
		return ""
	}
	var misfits []string
	for _, l := range leaves(r) {
		if l.Valid != check.Invalid {
			continue
		}
		if !historyKind(l.Checker) || slices.Contains(want, l.Checker) {
			return ""
		}
		misfits = append(misfits, l.Checker)
	}
	if len(misfits) == 0 {
		return ""
	}
	return fmt.Sprintf("%s found the violation, but model %s calls for %s", strings.Join(misfits, ", "), model, strings.Join(want, " or "))
}

// historyKind reports whether a checker reads per-op histories (§4.2 #1,
// #7, #8), as it registered.
func historyKind(checker string) bool {
	return check.OracleKind(checker) == string(verdict.KindHistory)
}

// neverOK lists the functions the stats checker saw never complete ok.
func neverOK(r check.Result) []string {
	var out []string
	for _, l := range leaves(r) {
		if fs, ok := l.Details["never_ok"].([]string); ok {
			out = append(out, fs...)
		}
	}
	return out
}

// oracleCounts reads what the history checker consumed and what it rightly
// set aside (failed ops, reads of unknown outcome), so the audit can match
// them against the ops issued. Without a history checker it is the oracle's
// own count with nothing set aside.
func oracleCounts(res check.Result) (consumed, dropped int64, keys int) {
	for _, l := range leaves(res) {
		if l.Checker != "linearizable" {
			continue
		}
		for _, k := range []string{"failed_ops_dropped", "unknown_reads_dropped"} {
			if n, ok := l.Details[k].(int); ok {
				dropped += int64(n)
			}
		}
		return int64(l.Consumed.Ops), dropped, l.Consumed.Keys
	}
	return int64(res.Consumed.Ops), 0, res.Consumed.Keys
}

// matchesModel says whether a checker the model calls for actually ran
// (§4.1), and what kinds of oracle ran.
func matchesModel(model string, res check.Result) (verdict.Fact, []verdict.OracleKind) {
	var ran []string
	for _, l := range leaves(res) {
		ran = append(ran, l.Checker)
	}
	var kinds []verdict.OracleKind
	for _, c := range ran {
		if k := check.OracleKind(c); k != "" {
			kinds = append(kinds, verdict.OracleKind(k))
		}
	}
	want := check.CalledFor(model)
	if len(want) == 0 {
		return verdict.Fact{}, kinds
	}
	for _, c := range ran {
		for _, w := range want {
			if c == w {
				return verdict.Yes(fmt.Sprintf("model %s calls for %s, and %s ran", model, strings.Join(want, " or "), c)), kinds
			}
		}
	}
	return verdict.No(fmt.Sprintf("model %s calls for %s; ran: %s", model, strings.Join(want, " or "), strings.Join(ran, ", "))), kinds
}
