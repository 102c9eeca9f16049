package verdict

import (
	"strings"
	"testing"
)

func arm(id string, v Verdict, tier Tier) Decision {
	return Decision{Scenario: id, Verdict: v, TierMet: tier, Reasons: []string{"why " + id}, Oracle: "oracle " + id, Landing: "landing " + id}
}

// TestAggregateArms covers every branch of §2.4's downgrade rule.
func TestAggregateArms(t *testing.T) {
	H, S := TierHardening, TierSmoke
	tests := []struct {
		name     string
		arms     []Decision
		want     Verdict
		wantTier Tier
		reason   string
	}{
		{"no arms", nil, NotRun, TierNone, "no arm declared"},
		{"all hardening", []Decision{arm("S5/api", PassHardening, H), arm("S5/export", PassHardening, TierRelease)}, PassHardening, H, "all 2 arms PASS-hardening"},
		{"one smoke", []Decision{arm("S5/api", PassHardening, H), arm("S5/export", PassSmoke, S)}, PassSmoke, S, "S5/export PASS-smoke: why S5/export"},
		{"a pass beside NOT-RUN", []Decision{arm("S5/api", PassHardening, H), arm("S5/export", NotRun, TierNone)}, PartialSurface, TierNone, "S5/export NOT-RUN"},
		{"PARTIAL-model arm", []Decision{arm("S5/api", PassHardening, H), arm("S5/sdk", PartialModel, H)}, PartialSurface, H, "S5/sdk PARTIAL-model"},
		{"PARTIAL-surface arm", []Decision{arm("S5/api", PartialSurface, S)}, PartialSurface, S, ""},
		{"INCONCLUSIVE arm", []Decision{arm("S5/api", PassHardening, H), arm("S5/admin", InconclusiveEnv, TierNone)}, PartialSurface, TierNone, "S5/admin INCONCLUSIVE-env"},
		{"all inconclusive", []Decision{arm("S5/api", InconclusiveFaultNotProven, H), arm("S5/sdk", InconclusiveOracleTooWeak, H)}, PartialSurface, H, ""},
		{"FAIL outranks NOT-RUN", []Decision{arm("S5/api", NotRun, TierNone), arm("S5/sdk", FailNondeterministic, H)}, FailNondeterministic, TierNone, "S5/sdk FAIL-nondeterministic"},
		{"reproducible FAIL preferred", []Decision{arm("S5/api", FailNondeterministic, H), arm("S5/sdk", FailReproducible, S)}, FailReproducible, S, "S5/sdk FAIL-reproducible"},
		{"unrecognised verdict downgrades", []Decision{arm("S5/api", PassHardening, H), arm("S5/sdk", Verdict("PASS"), H)}, PartialSurface, H, "S5/sdk PASS: why S5/sdk"},
		{"a pass without evidence downgrades", []Decision{arm("S5/api", PassHardening, H), {Scenario: "S5/sdk", Verdict: PassHardening, TierMet: H}}, PartialSurface, H, "S5/sdk PASS-hardening without cited oracle or landing evidence"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := AggregateArms("S5", tt.arms)
			if d.Scenario != "S5" || d.Verdict != tt.want || d.TierMet != tt.wantTier {
				t.Fatalf("%s %s at %s, want S5 %s at %s; reasons %q", d.Scenario, d.Verdict, d.TierMet, tt.want, tt.wantTier, d.Reasons)
			}
			reasonsContain(t, d, tt.reason)
			if d.Oracle == "" || d.Landing == "" {
				t.Error("aggregate carries no evidence")
			}
			for _, a := range tt.arms {
				if !strings.Contains(d.Oracle, a.Scenario+": "+a.Oracle) || !strings.Contains(d.Landing, a.Scenario+": "+a.Landing) {
					t.Errorf("aggregate evidence lacks arm %s: %q / %q", a.Scenario, d.Oracle, d.Landing)
				}
			}
		})
	}
}

// TestAggregateDecidedArms runs arms through Decide first, as a run would.
func TestAggregateDecidedArms(t *testing.T) {
	api := hardening()
	api.Scenario = "S2/api"
	export := hardening()
	export.Scenario, export.Attempted, export.NotRunReason = "S2/export", false, "harness missing"
	d := AggregateArms("S2", []Decision{Decide(api), Decide(export)})
	if d.Verdict != PartialSurface {
		t.Fatalf("verdict %s, want PARTIAL-surface", d.Verdict)
	}
	reasonsContain(t, d, "S2/export NOT-RUN: not attempted: harness missing")
}
