package verdict

import (
	"strings"
	"testing"
)

// TestDecideTree walks every branch of the §2.2 decision tree; the gates that
// follow a PASS are in TestDecideGates.
func TestDecideTree(t *testing.T) {
	tests := []struct {
		name   string
		base   func() Evidence
		edit   func(e *Evidence)
		want   Verdict
		reason string
	}{
		{"not attempted", hardening, func(e *Evidence) { e.Attempted = false; e.NotRunReason = "release-gated" }, NotRun, "not attempted: release-gated"},
		{"not attempted without a reason", hardening, func(e *Evidence) { e.Attempted = false }, NotRun, "no reason recorded"},
		{"zero evidence", func() Evidence { return Evidence{} }, func(*Evidence) {}, NotRun, "not attempted"},
		{"not attempted outranks missing capability", hardening, func(e *Evidence) {
			e.Attempted = false
			e.MissingCapabilities = []string{"tc"}
		}, NotRun, ""},
		{"capability missing", hardening, func(e *Evidence) { e.MissingCapabilities = []string{"iptables", "netns"} }, InconclusiveEnv, "iptables, netns"},
		{"capability missing outranks a violation", hardening, func(e *Evidence) {
			e.MissingCapabilities = []string{"tc"}
			e.Oracle.Outcome = Invalid
		}, InconclusiveEnv, ""},

		{"violation reproduced", hardening, func(e *Evidence) {
			e.Oracle.Outcome, e.Oracle.Summary = Invalid, "lost ack of write 17"
			e.Reruns = Reruns{Attempted: 3, Reproduced: 2}
		}, FailReproducible, "reproduced in 2 of 3 re-runs"},
		// Item 12 of issue 27: a re-run that finds another violation says so.
		{"violation again, a different one", hardening, func(e *Evidence) {
			e.Oracle.Outcome = Invalid
			e.Reruns = Reruns{Attempted: 1, Reproduced: 1, Different: 1, Runs: []string{"artifacts/S1-rerun1: a violation again, a different one (G-single; the original: G1c)"}}
		}, FailReproducible, "reproducible: a violation again in 1 of 1 re-runs with the same seed, configuration and fault sequence, a different one"},
		{"same and different violations", hardening, func(e *Evidence) {
			e.Oracle.Outcome = Invalid
			e.Reruns = Reruns{Attempted: 3, Reproduced: 2, Different: 1}
		}, FailReproducible, "reproduced in 1 of 3 re-runs with the same seed, configuration and fault sequence; 1 more found a violation again, a different one"},
		{"violation not reproduced", hardening, func(e *Evidence) {
			e.Oracle.Outcome = Invalid
			e.Reruns = Reruns{Attempted: 5}
		}, FailNondeterministic, "not reproduced in 5 re-runs"},
		{"violation never re-run", hardening, func(e *Evidence) { e.Oracle.Outcome = Invalid }, FailNondeterministic, "not re-run"},
		{"violation outranks an unproven fault", hardening, func(e *Evidence) {
			e.Oracle.Outcome = Invalid
			e.Reruns = Reruns{Attempted: 1, Reproduced: 1}
			e.Faults[0].Victim = No("counter 0")
		}, FailReproducible, "oracle violation"},
		{"violation outranks a weak history", hardening, func(e *Evidence) {
			e.Oracle.Outcome = Invalid
			e.History = HistoryQuality{}
		}, FailNondeterministic, ""},
		{"violation on a non-serious scenario", nonSerious, func(e *Evidence) { e.Oracle.Outcome = Invalid }, FailNondeterministic, ""},
		// A checker for the wrong data model (monotonic reads over a
		// register without versions) is too weak, not a FAIL.
		{"violation only from a checker the model does not call for", hardening, func(e *Evidence) {
			e.Oracle.Outcome = Invalid
			e.Oracle.Misfit = "monotonic-reads found the violation, but model register calls for linearizable"
			e.Reruns = Reruns{Attempted: 1, Reproduced: 1}
		}, InconclusiveOracleTooWeak, "the checker does not fit the model: monotonic-reads"},

		{"injector failed", hardening, func(e *Evidence) { e.Faults[1].Injector = No("iptables: exit 4") }, InconclusiveFaultNotProven, "majority partition: injector did not report success: iptables: exit 4"},
		{"victim signal absent", hardening, func(e *Evidence) { e.Faults[0].Victim = No("DROP counter stayed 0") }, InconclusiveFaultNotProven, "no victim-side signal: DROP counter stayed 0"},
		{"victim signal never checked", hardening, func(e *Evidence) { e.Faults[0].Victim = Fact{} }, InconclusiveFaultNotProven, "no victim-side signal: not checked"},
		{"declared client signal absent", hardening, func(e *Evidence) { e.Faults[0].Client = No("no client errors") }, InconclusiveFaultNotProven, "declared client-side signal absent"},
		{"undeclared client signal absent", hardening, func(e *Evidence) {
			for i := range e.Faults {
				e.Faults[i].Client, e.Faults[i].ClientDeclared = Fact{}, false
			}
		}, PassHardening, ""},
		{"oracle outcome irrelevant when a fault is unproven", hardening, func(e *Evidence) {
			e.Faults[0].Victim = No("0")
			e.Oracle.Outcome = Unknown
		}, InconclusiveFaultNotProven, ""},

		{"non-serious, no fault", nonSerious, func(e *Evidence) { e.Faults = nil; e.Recovery = Recovery{} }, PassSmoke, "§7.M not applicable"},
		{"non-serious, faults landed, oracle passed", nonSerious, func(*Evidence) {}, PassHardening, "(oracle valid); every fault landed"},
		{"non-serious, faults landed, oracle did not run", nonSerious, func(e *Evidence) { e.Oracle.Outcome = "" }, PartialSurface, "(oracle not run); faults landed but the oracle did not pass"},
		{"non-serious needs no history fields", nonSerious, func(e *Evidence) { e.History.FaultEpoch = Fact{} }, PassHardening, ""},

		{"checker did not run, surface clean", hardening, func(e *Evidence) { e.Oracle.Outcome = "" }, PartialSurface, "surface signals clean"},
		{"checker did not run, surface dirty", hardening, func(e *Evidence) {
			e.Oracle.Outcome = ""
			e.Surface = No("5xx errors after heal")
		}, InconclusiveOracleTooWeak, "5xx errors after heal"},
		{"checker did not run, surface unmeasured", hardening, func(e *Evidence) {
			e.Oracle.Outcome = ""
			e.Surface = Fact{}
		}, InconclusiveOracleTooWeak, "surface signals clean: not established"},
		{"checker undecided", hardening, func(e *Evidence) { e.Oracle.Outcome, e.Oracle.Summary = Unknown, "search budget exhausted" }, InconclusiveOracleTooWeak, "could not decide: search budget exhausted"},
		{"vacuous history", hardening, func(e *Evidence) {
			e.Oracle.Consumed, e.Oracle.Dropped = 0, e.Run.Ops
			e.Oracle.Summary = "valid: nothing took effect"
		}, InconclusiveOracleTooWeak, "no op in it took effect: a vacuous history proves nothing"},
		{"checker is not the model's", hardening, func(e *Evidence) { e.Oracle.MatchesModel = No("set checker on a register") }, InconclusiveOracleTooWeak, "set checker on a register"},
		{"serious oracle with no applicable mutant", hardening, func(e *Evidence) {
			e.Sensitivity = Sensitivity{Ran: true, Skipped: "no ok read of a written key"}
		}, InconclusiveOracleTooWeak, "never shown able to fail (SA1): no ok read of a written key"},
		{"serious oracle one of whose parts no mutant fits", hardening, func(e *Evidence) {
			e.Sensitivity.Unfit = []string{"no-lost-ack: no final read"}
		}, InconclusiveOracleTooWeak, "no-lost-ack: no final read"},
		{"non-serious oracle with no applicable mutant still passes", nonSerious, func(e *Evidence) {
			e.Sensitivity = Sensitivity{Ran: true, Skipped: "metric oracle"}
		}, PassHardening, ""},
		{"checker accepts a wrong history", hardening, func(e *Evidence) { e.Sensitivity.Escaped = []string{"stale-read at op 12: stats on a register"} }, InconclusiveOracleTooWeak, "escaped mutant: stale-read at op 12"},
		{"sensitivity escape on a smoke run", smoke, func(e *Evidence) { e.Sensitivity.Escaped = []string{"phantom-read at op 3"} }, InconclusiveOracleTooWeak, "accepted 1 of 6 histories mutated"},
		{"answered ops untimed", hardening, func(e *Evidence) { e.History.Timestamps = No("312 ok ops without time") }, InconclusiveOracleTooWeak, "312 ok ops"},
		{"timeout markers missing", hardening, func(e *Evidence) { e.History.TimeoutMarkers = Fact{} }, InconclusiveOracleTooWeak, "timeout markers recorded: not established"},
		{"wall-clock history", hardening, func(e *Evidence) { e.History.Monotonic = No("per-client wall clocks") }, InconclusiveOracleTooWeak, "per-client wall clocks"},
		{"fault_epoch missing while faults overlapped", hardening, func(e *Evidence) { e.History.FaultEpoch = No("null everywhere") }, InconclusiveOracleTooWeak, "fault_epoch"},
		{"fault_epoch not needed without faults", smoke, func(e *Evidence) { e.History.FaultEpoch = Fact{} }, PassSmoke, ""},
		{"node_seen missing for a replication claim", hardening, func(e *Evidence) {
			e.Claims.Replication = true
			e.History.NodeSeen = Fact{}
		}, InconclusiveOracleTooWeak, "node_seen"},
		{"node_seen missing for a failover claim", hardening, func(e *Evidence) {
			e.Claims.Failover = true
			e.History.NodeSeen = No("no node field")
		}, InconclusiveOracleTooWeak, "node_seen"},
		{"node_seen missing for a membership claim", hardening, func(e *Evidence) {
			e.Claims.Categories = []ClaimCategory{Membership}
			e.History.NodeSeen = Fact{}
		}, InconclusiveOracleTooWeak, "node_seen"},
		{"node_seen not needed otherwise", hardening, func(e *Evidence) { e.History.NodeSeen = Fact{} }, PassHardening, ""},

		{"named subset", hardening, func(e *Evidence) { e.Oracle.Subset = "per key, not cross-key" }, PartialModel, "subset: per key, not cross-key"},
		{"history prefix", hardening, func(e *Evidence) { e.History.Complete = No("journal truncated at 14:02") }, PartialModel, "history prefix only (history complete: no: journal truncated at 14:02)"},
		{"ops not covered", hardening, func(e *Evidence) { e.Oracle.Consumed = 15_000 }, PartialModel, "16000 of 21000 issued ops"},

		{"serious, faults landed", hardening, func(*Evidence) {}, PassHardening, "every fault landed"},
		{"serious, no fault planned", smoke, func(*Evidence) {}, PassSmoke, "no fault planned"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := tt.base()
			tt.edit(&e)
			d := Decide(e)
			if d.Verdict != tt.want {
				t.Fatalf("verdict %s, want %s; reasons:\n  %s", d.Verdict, tt.want, strings.Join(d.Reasons, "\n  "))
			}
			reasonsContain(t, d, tt.reason)
			if len(d.Reasons) == 0 || d.Reasons[0] == "" {
				t.Error("no one-line reason")
			}
			if d.Oracle == "" || d.Landing == "" {
				t.Errorf("missing evidence: oracle %q, landing %q", d.Oracle, d.Landing)
			}
			if len(d.Audits) != len(redFlags)+len(weakOracles)+1 {
				t.Errorf("%d audit items, want %d", len(d.Audits), len(redFlags)+len(weakOracles)+1)
			}
		})
	}
}

// TestDecideGates covers §2.3: budget tier, weak-oracle audit (serious only),
// red flags, in that order.
func TestDecideGates(t *testing.T) {
	tests := []struct {
		name     string
		base     func() Evidence
		edit     func(e *Evidence)
		want     Verdict
		wantTier Tier
		reason   string
	}{
		{"hardening met", hardening, func(*Evidence) {}, PassHardening, TierHardening, "tier met: hardening"},
		{"release met carries the annotation", hardening, func(e *Evidence) {
			e.Budgets[TierRelease] = TierRequirement{Duration: e.Run.Duration, Seeds: 3}
		}, PassHardening, TierRelease, "release annotation"},
		{"only smoke met caps at PASS-smoke", hardening, func(e *Evidence) { e.Run.Seeds = 1 }, PassSmoke, TierSmoke, "capped at PASS-smoke"},
		{"no tier met is an open red flag", hardening, func(e *Evidence) { e.Run.Nodes = 1 }, PartialSurface, TierNone, "RF6 Duration met the claimed tier fail"},
		{"no tier declared is an open red flag", smoke, func(e *Evidence) { e.Budgets = nil }, PartialSurface, TierNone, "no budget tier declared"},
		{"smoke PASS stands at smoke", smoke, func(*Evidence) {}, PassSmoke, TierSmoke, "tier met: smoke"},
		// Item 8 of issue 27: a run whose ops mostly ended info reaches no
		// PASS on op count, however many were issued.
		{"mostly info reaches no PASS", smoke, func(e *Evidence) {
			e.Run.Ops, e.Run.OK, e.Run.Unknown = 3481, 70, 3411
			e.Oracle.Consumed, e.Oracle.Dropped = 2332, 1149
		}, PartialSurface, TierNone, "70 of 3481 ops had a known outcome"},

		{"one seed at a one-seed hardening tier", hardening, func(e *Evidence) {
			e.Budgets[TierHardening] = TierRequirement{Faults: 2, Seeds: 1}
			e.Run.Seeds = 1
		}, PartialModel, TierHardening, "WO11 One PRNG seed"},
		{"final state only", hardening, func(e *Evidence) { e.Oracle.Kinds = []OracleKind{KindFinalState} }, PartialModel, TierHardening, "WO1 Final state only fail"},
		{"oracle kinds unrecorded", hardening, func(e *Evidence) { e.Oracle.Kinds = nil }, PartialModel, TierHardening, "WO1 Final state only cannot-judge"},
		{"logs only", hardening, func(e *Evidence) { e.Oracle.Kinds = []OracleKind{KindLogs} }, PartialSurface, TierHardening, "WO2 Logs only fail"},
		{"surface and model weaknesses together", hardening, func(e *Evidence) {
			e.Oracle.Kinds = []OracleKind{KindHealth}
			e.Claims.Failover = true
		}, PartialSurface, TierHardening, "WO3 Health checks only fail"},
		{"weak oracle outranks red flags", hardening, func(e *Evidence) {
			e.Oracle.Kinds = []OracleKind{KindFinalState}
			e.Logs.Matches = 2
		}, PartialModel, TierHardening, "WO1"},
		{"weak oracle does not gate PASS-smoke", smoke, func(e *Evidence) { e.Oracle.Kinds = nil }, PassSmoke, TierSmoke, ""},
		{"weak oracle does not gate a non-serious PASS-hardening", nonSerious, func(e *Evidence) { e.Oracle.Kinds = nil }, PassHardening, TierHardening, ""},

		{"swallowed errors in the logs", hardening, func(e *Evidence) {
			e.Logs.Matches, e.Logs.Samples = 1, []string{"n2.log:88: panic: nil map"}
		}, PartialSurface, TierHardening, "RF7 No swallowed errors fail"},
		{"logs not grepped", smoke, func(e *Evidence) { e.Logs = LogScan{} }, PartialSurface, TierSmoke, "RF7 No swallowed errors cannot-judge"},
		{"up but serving next to nothing", hardening, func(e *Evidence) { e.Recovery.After = 20 }, PartialSurface, TierHardening, "serving next to nothing"},
		{"non-serious one-seed hardening", nonSerious, func(e *Evidence) {
			e.Budgets[TierHardening] = TierRequirement{Faults: 2, Seeds: 1}
			e.Run.Seeds = 1
		}, PartialSurface, TierHardening, "RF10 Replicated fail"},
		{"non-serious oracle undecided", nonSerious, func(e *Evidence) { e.Oracle.Outcome = Unknown }, PartialSurface, TierHardening, "RF2 Oracle ran every cycle fail"},
		{"non-serious vacuous history", nonSerious, func(e *Evidence) { e.Oracle.Consumed, e.Oracle.Dropped = 0, e.Run.Ops }, PartialSurface, TierNone, "RF2 Oracle ran every cycle fail"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := tt.base()
			tt.edit(&e)
			d := Decide(e)
			if d.Verdict != tt.want || d.TierMet != tt.wantTier {
				t.Fatalf("verdict %s at tier %s, want %s at %s; reasons:\n  %s", d.Verdict, d.TierMet, tt.want, tt.wantTier, strings.Join(d.Reasons, "\n  "))
			}
			reasonsContain(t, d, tt.reason)
		})
	}
}

// TestDecideEvidenceCells pins the report's two evidence cells (§2.3
// "Evidence": every row cites oracle execution and landing evidence).
func TestDecideEvidenceCells(t *testing.T) {
	d := Decide(smoke())
	if d.Landing != "n/a — no fault (PASS-smoke)" {
		t.Errorf("smoke landing %q", d.Landing)
	}
	if want := "linearizable(cas-register): valid; consumed 2400 of 2500 issued ops (100 dropped), 8 keys: linearizable"; d.Oracle != want {
		t.Errorf("oracle cell %q, want %q", d.Oracle, want)
	}
	e := hardening()
	e.Faults[1].Victim = No("counter 0")
	d = Decide(e)
	if !strings.Contains(d.Landing, "isolate leader: injector: iptables rule installed, victim: DROP counter 0→412, client: 37 client timeouts") ||
		!strings.Contains(d.Landing, "majority partition: NOT PROVEN: no victim-side signal: counter 0") {
		t.Errorf("landing cell %q", d.Landing)
	}
	e.Attempted = false
	if d = Decide(e); d.Landing != "n/a — scenario did not run" || d.Oracle != "oracle did not run" {
		t.Errorf("not-run cells %q / %q", d.Oracle, d.Landing)
	}
}

// TestDecideEveryVerdict checks the tests above reach all ten verdicts: a
// verdict no path produces is a hole in the tree or in the tests.
func TestDecideEveryVerdict(t *testing.T) {
	edits := map[Verdict]func(e *Evidence){
		PassSmoke:                  func(e *Evidence) { e.Run.Seeds = 1 },
		PassHardening:              func(*Evidence) {},
		FailReproducible:           func(e *Evidence) { e.Oracle.Outcome, e.Reruns = Invalid, Reruns{Attempted: 1, Reproduced: 1} },
		FailNondeterministic:       func(e *Evidence) { e.Oracle.Outcome = Invalid },
		InconclusiveEnv:            func(e *Evidence) { e.MissingCapabilities = []string{"tc"} },
		InconclusiveOracleTooWeak:  func(e *Evidence) { e.History.TimeoutMarkers = Fact{} },
		InconclusiveFaultNotProven: func(e *Evidence) { e.Faults[0].Injector = Fact{} },
		PartialSurface:             func(e *Evidence) { e.Oracle.Outcome = "" },
		PartialModel:               func(e *Evidence) { e.Oracle.Subset = "per replica" },
		NotRun:                     func(e *Evidence) { e.Attempted = false },
	}
	for _, v := range Verdicts {
		edit, ok := edits[v]
		if !ok {
			t.Errorf("no path to %s", v)
			continue
		}
		e := hardening()
		edit(&e)
		if got := Decide(e).Verdict; got != v {
			t.Errorf("path to %s gave %s", v, got)
		}
	}
}

// TestDecideDoesNotMutate checks Decide leaves the caller's evidence alone.
func TestDecideDoesNotMutate(t *testing.T) {
	e := hardening()
	before := len(e.Budgets)
	_ = Decide(e)
	if len(e.Budgets) != before || e.Faults[0].Name != "isolate leader" {
		t.Error("Decide changed its input")
	}
}

// TestDecisionCarriesItsEvidence: a stored verdict carries the evidence it
// was decided from, and deciding that evidence again gives the same verdict.
func TestDecisionCarriesItsEvidence(t *testing.T) {
	for _, base := range []func() Evidence{hardening, smoke, nonSerious} {
		d := Decide(base())
		if d.Evidence == nil {
			t.Fatal("no evidence stored")
		}
		again := Decide(*d.Evidence)
		if again.Verdict != d.Verdict || strings.Join(again.Reasons, "\n") != strings.Join(d.Reasons, "\n") {
			t.Errorf("%s: recomputed %s %v, stored %s %v", d.Scenario, again.Verdict, again.Reasons, d.Verdict, d.Reasons)
		}
	}
}
