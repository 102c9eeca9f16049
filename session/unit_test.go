package session

import (
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/check"
	"github.com/faultline/faultline/gen"
	"github.com/faultline/faultline/interp"
	"github.com/faultline/faultline/verdict"
)

func TestSeedsFor(t *testing.T) {
	spec := unitSpec{Budgets: map[verdict.Tier]verdict.TierRequirement{
		verdict.TierSmoke: {}, verdict.TierHardening: {Seeds: 3},
	}}
	for _, tt := range []struct {
		tier string
		want int
	}{{"smoke", 1}, {"hardening", 3}, {"release", 1}} {
		if got := seedsFor(spec, tt.tier); got != tt.want {
			t.Errorf("seedsFor(%s) = %d, want %d", tt.tier, got, tt.want)
		}
	}
}

// TestMergeSeeds: the seed runs of a unit are all counted; a violation in
// any of them leads; every run's faults must land.
func TestMergeSeeds(t *testing.T) {
	run := func(outcome verdict.Outcome, ops int64, landed bool) verdict.Evidence {
		f := verdict.Fault{Name: "partition", Injector: verdict.Yes("ok")}
		if landed {
			f.Victim = verdict.Yes("drops 12")
		}
		return verdict.Evidence{Scenario: "S1", Attempted: true,
			Run:         verdict.Run{Ops: ops, OK: ops, Duration: time.Second, Seeds: 1, Repetitions: 1},
			Oracle:      verdict.Oracle{Outcome: outcome, Consumed: ops, Summary: string(outcome)},
			Faults:      []verdict.Fault{f},
			Sensitivity: verdict.Sensitivity{Ran: outcome == verdict.Valid, Checked: 2, Caught: 2, Kinds: []string{"stale-read"}},
			Logs:        verdict.LogScan{Scanned: true, Files: 1, Lines: 10},
		}
	}
	m := mergeSeeds([]verdict.Evidence{run(verdict.Valid, 100, true), run(verdict.Valid, 50, false), run(verdict.Valid, 70, true)})
	if m.Run.Seeds != 3 || m.Run.Ops != 220 || m.Oracle.Consumed != 220 || m.Run.Duration != 3*time.Second {
		t.Errorf("merged run %+v oracle %+v", m.Run, m.Oracle)
	}
	if len(m.Faults) != 3 || !strings.HasPrefix(m.Faults[1].Name, "seed 2: ") || m.Faults[1].Victim.Holds {
		t.Errorf("faults %+v", m.Faults)
	}
	if m.Sensitivity.Checked != 6 || len(m.Sensitivity.Kinds) != 1 || m.Logs.Files != 3 {
		t.Errorf("sensitivity %+v logs %+v", m.Sensitivity, m.Logs)
	}
	if d := verdict.Decide(m); d.Verdict != verdict.InconclusiveFaultNotProven {
		t.Errorf("a fault of seed 2 did not land: verdict %s, want %s", d.Verdict, verdict.InconclusiveFaultNotProven)
	}
	// Ops of unknown outcome add up across seeds: none counts as load.
	a, b := run(verdict.Valid, 100, true), run(verdict.Valid, 50, true)
	a.Run.OK, a.Run.Unknown = 10, 90
	b.Run.OK, b.Run.Unknown = 5, 45
	if m := mergeSeeds([]verdict.Evidence{a, b}); m.Run.Unknown != 135 || m.Run.Known() != 15 {
		t.Errorf("merged unknown ops: %+v", m.Run)
	}
	m = mergeSeeds([]verdict.Evidence{run(verdict.Valid, 100, true), run(verdict.Invalid, 50, true)})
	if m.Oracle.Outcome != verdict.Invalid {
		t.Errorf("a violating seed must lead: %+v", m.Oracle)
	}
}

func TestClaimTraits(t *testing.T) {
	for _, tt := range []struct {
		text             string
		failover, quorum bool
	}{
		{"No acknowledged write is lost across a leader failover", true, false},
		{"Reads stay linearizable during leader election", true, false},
		{"Holds for any cluster size from 3 to 7", false, true},
		{"Holds for any quorum size", false, true},
		{"Every acknowledged write survives a partition", false, false},
	} {
		f, q := claimTraits(tt.text)
		if f != tt.failover || q != tt.quorum {
			t.Errorf("claimTraits(%q) = %v, %v; want %v, %v", tt.text, f, q, tt.failover, tt.quorum)
		}
	}
}

func TestMisfitViolation(t *testing.T) {
	leaf := func(name string, v check.Validity) check.Result { return check.Result{Checker: name, Valid: v} }
	compose := func(cs ...check.Result) check.Result {
		r := check.Result{Checker: "compose", Valid: check.Valid, Children: cs}
		for _, c := range cs {
			r.Valid = check.Merge(r.Valid, c.Valid)
		}
		return r
	}
	for _, tt := range []struct {
		name, model string
		res         check.Result
		misfit      bool
	}{
		{"monotonic reads on a register", "register", compose(leaf("linearizable", check.Valid), leaf("monotonic-reads", check.Invalid)), true},
		{"linearizability on a register stands", "register", compose(leaf("linearizable", check.Invalid), leaf("monotonic-reads", check.Invalid)), false},
		{"a non-history oracle stands", "register", compose(leaf("no-lost-ack", check.Invalid)), false},
		{"no model declared", "", leaf("monotonic-reads", check.Invalid), false},
		{"valid is no violation", "register", leaf("monotonic-reads", check.Valid), false},
	} {
		if got := misfitViolation(tt.model, tt.res); (got != "") != tt.misfit {
			t.Errorf("%s: misfitViolation = %q, want misfit %v", tt.name, got, tt.misfit)
		}
	}
}

func TestScriptOracleFits(t *testing.T) {
	if f := scriptOracleFits(check.Result{Checker: "stats"}); !f.Known || f.Holds {
		t.Errorf("stats alone must not fit: %+v", f)
	}
	both := check.Result{Checker: "compose", Children: []check.Result{{Checker: "stats"}, {Checker: "linearizable"}}}
	if f := scriptOracleFits(both); !f.Holds {
		t.Errorf("linearizable beside stats fits: %+v", f)
	}
}

// TestArtifactName: the first seed's run keeps the unit's own directory;
// later seeds get theirs, and a failing later seed's reproducer names its
// own seed.
func TestArtifactName(t *testing.T) {
	for _, tt := range []struct {
		id          string
		seed, first uint64
		want        string
	}{
		{"S1", 42, 42, "S1"},
		{"S5/api", 42, 42, "S5_api"},
		{"S5/api", 44, 42, "S5_api-seed44"},
	} {
		if got := artifactName(tt.id, tt.seed, tt.first); got != tt.want {
			t.Errorf("artifactName(%q, %d, %d) = %q, want %q", tt.id, tt.seed, tt.first, got, tt.want)
		}
	}
	f := Options{Seed: 42, Tier: "hardening"}
	if got := planReproduce("p.md", "S1", 43, f); !strings.Contains(got, "--seed 43 ") {
		t.Errorf("planReproduce = %q, want the failing seed 43", got)
	}
}

// The evidence of a run counts the ops whose outcome is unknown (info, or
// never completed) apart: RF1 and the op floors count only known ones.
func TestEvidenceUnknownOps(t *testing.T) {
	r := &interp.Result{Summary: gen.Summary{Invoked: 3481, OK: 60, Fail: 10, Info: 3400, Duration: time.Minute}}
	e := evidenceOf(unitSpec{ID: "S1"}, r, 3)
	if e.Run.Ops != 3481 || e.Run.OK != 60 || e.Run.Unknown != 3411 || e.Run.Known() != 70 {
		t.Fatalf("run %+v", e.Run)
	}
}
