package verdict

import (
	"strings"
	"testing"
)

func sc(id string, v Verdict) ScenarioResult {
	return ScenarioResult{Decision: arm(id, v, TierSmoke)}
}

// TestSession covers §2.5: the five session verdicts and the rules between them.
func TestSession(t *testing.T) {
	tests := []struct {
		name     string
		in       SessionEvidence
		want     SessionVerdict
		headline string
	}{
		{"plan not loaded", SessionEvidence{PlanError: "plan.md:12: scenario S1 has no Oracle"}, Blocked, "BLOCKED: plan not loaded: plan.md:12"},
		{"SUT unreachable", SessionEvidence{SUTError: "n1:22: connection refused", Scenarios: []ScenarioResult{sc("S1", NotRun)}}, Blocked, "BLOCKED: SUT unreachable: n1:22"},
		{"no scenario", SessionEvidence{}, Blocked, "no scenario declared"},
		{"nothing ran", SessionEvidence{Scenarios: []ScenarioResult{sc("S1", NotRun), sc("S2", InconclusiveEnv)}}, Blocked, "nothing ran: S1 NOT-RUN: why S1; S2 INCONCLUSIVE-env: why S2"},
		{"arms none of which ran", SessionEvidence{Scenarios: []ScenarioResult{{
			Decision: arm("S5", PartialSurface, TierNone),
			Arms:     []Decision{arm("S5/api", NotRun, TierNone), arm("S5/sdk", InconclusiveEnv, TierNone)},
		}}}, Blocked, "nothing ran"},
		{"never BLOCKED if anything ran", SessionEvidence{SUTError: "n3 unreachable", Scenarios: []ScenarioResult{sc("S1", NotRun), sc("S2", InconclusiveFaultNotProven)}}, Inconclusive, ""},

		{"a reproducible FAIL", SessionEvidence{Scenarios: []ScenarioResult{sc("S1", PassHardening), sc("S2", FailReproducible)}}, Fail, "FAIL: 1 oracle violation found: S2 FAIL-reproducible: why S2"},
		{"a nondeterministic FAIL", SessionEvidence{Scenarios: []ScenarioResult{sc("S1", FailNondeterministic)}}, Fail, "S1 FAIL-nondeterministic (non-reproducible)"},
		{"a FAIL never re-run", SessionEvidence{Scenarios: []ScenarioResult{{Decision: Decision{Scenario: "S1", Verdict: FailNondeterministic, Reasons: []string{"oracle violation"}, Evidence: &Evidence{}}}}}, Fail, "S1 FAIL-nondeterministic (not re-run: reproducibility unknown): oracle violation"},
		{"reproducible findings lead", SessionEvidence{Scenarios: []ScenarioResult{sc("S1", FailNondeterministic), sc("S2", NotRun), sc("S3", FailReproducible)}}, Fail, "2 oracle violations found: S3 FAIL-reproducible: why S3; S1 FAIL-nondeterministic"},

		{"all passed", SessionEvidence{Scenarios: []ScenarioResult{sc("S1", PassSmoke), sc("S2", PassHardening)}}, Done, "DONE: no violation found; passed: S2 PASS-hardening (tier smoke), S1 PASS-smoke (tier smoke)"},
		{"passes with NOT-RUN", SessionEvidence{Scenarios: []ScenarioResult{sc("S1", PassHardening), sc("S2", NotRun)}}, DoneWithConcerns, "concerns: S2 NOT-RUN: why S2"},
		{"passes with PARTIAL", SessionEvidence{Scenarios: []ScenarioResult{sc("S1", PassSmoke), sc("S2", PartialModel)}}, DoneWithConcerns, "S2 PARTIAL-model"},
		{"passes with INCONCLUSIVE", SessionEvidence{Scenarios: []ScenarioResult{sc("S1", PassSmoke), sc("S2", InconclusiveOracleTooWeak)}}, DoneWithConcerns, "S2 INCONCLUSIVE-oracle-too-weak"},
		{"a pass without evidence is a concern", SessionEvidence{Scenarios: []ScenarioResult{sc("S1", PassSmoke), {Decision: Decision{Scenario: "S2", Verdict: PassHardening}}}}, DoneWithConcerns, "S2 PASS-hardening without cited oracle or landing evidence"},

		{"no pass at all", SessionEvidence{Scenarios: []ScenarioResult{sc("S1", PartialSurface), sc("S2", InconclusiveFaultNotProven)}}, Inconclusive, "INCONCLUSIVE: no scenario earned an evidenced PASS: S1 PARTIAL-surface"},
		{"only unevidenced passes", SessionEvidence{Scenarios: []ScenarioResult{{Decision: Decision{Scenario: "S1", Verdict: PassSmoke, Oracle: "checker ran"}}}}, Inconclusive, "without cited"},
	}
	seen := map[SessionVerdict]bool{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, headline := Session(tt.in)
			if got != tt.want {
				t.Fatalf("%s (%s), want %s", got, headline, tt.want)
			}
			if !strings.HasPrefix(headline, string(got)+": ") || !strings.Contains(headline, tt.headline) {
				t.Errorf("headline %q, want it to start with %s and contain %q", headline, got, tt.headline)
			}
		})
		seen[tt.want] = true
	}
	for _, v := range []SessionVerdict{Done, DoneWithConcerns, Inconclusive, Fail, Blocked} {
		if !seen[v] {
			t.Errorf("no case for %s", v)
		}
	}
}

// TestSessionFromDecisions runs whole decisions through the headline: a
// smoke PASS from Decide cites its evidence and counts.
func TestSessionFromDecisions(t *testing.T) {
	notRun := hardening()
	notRun.Scenario, notRun.Attempted = "S2", false
	got, headline := Session(SessionEvidence{Scenarios: []ScenarioResult{{Decision: Decide(smoke())}, {Decision: Decide(notRun)}}})
	if got != DoneWithConcerns {
		t.Fatalf("%s (%s), want DONE_WITH_CONCERNS", got, headline)
	}
}
