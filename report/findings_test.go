package report

import (
	goldenfile "github.com/faultline/faultline/internal/golden"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/plans"
	"github.com/faultline/faultline/verdict"
)

func loadPlan(t *testing.T, name string) *plans.Plan {
	t.Helper()
	p, ds, err := plans.Load(filepath.Join("..", "examples", "plans", name))
	if err != nil {
		t.Fatal(err)
	}
	if plans.HasErrors(ds) {
		t.Fatalf("%s does not lint clean: %v", name, ds)
	}
	return p
}

// decision runs the real decision tree on a small evidence set so the
// golden file shows what a session of that shape reports.
func decision(id string, attempted bool, outcome verdict.Outcome) verdict.Decision {
	e := verdict.Evidence{Scenario: id, Attempted: attempted, Run: verdict.Run{Nodes: 3, Seeds: 1, Ops: 1200, OK: 1100, Duration: time.Minute}}
	if attempted {
		e.Oracle = verdict.Oracle{Name: "linearizable(cas-register)", Outcome: outcome, Consumed: 1100, Dropped: 100, Keys: 8}
	} else {
		e.NotRunReason = "release-gated"
	}
	return verdict.Decide(e)
}

func TestRenderFindingsGolden(t *testing.T) {
	started := time.Date(2026, 11, 30, 5, 6, 7, 0, time.UTC)
	cases := []struct {
		plan  string
		units []Unit
		finds []Finding
	}{
		{"etcd-register.md", []Unit{
			{ID: "S1", Decision: decision("S1", true, verdict.Invalid), Artifact: "artifacts/S1/", Plot: "artifacts/S1/plot.svg", Executed: true},
			{ID: "S2", Decision: decision("S2", false, ""), Artifact: ""},
		}, []Finding{{Title: "stale read under partition", Scenario: "S1", Hypothesis: "H1",
			WhatHappened:   "a read returned 3 after 4 was acknowledged",
			Context:        "op 17 (read by process 3 on node n2): invoked at 4.1s, completed ok at 4.2s, fault epoch 1; faults active: start-partition [n1] | [n2 n3] from 3s to 6s",
			Reproducer:     "faultline replay …",
			Classification: "SUT", Evidence: "artifacts/S1/checker.txt"}}},
		{"boundary-arms.md", nil, nil},
	}
	for _, c := range cases {
		t.Run(c.plan, func(t *testing.T) {
			p := loadPlan(t, c.plan)
			if c.units == nil {
				for _, s := range p.Scenarios {
					for _, a := range s.Arms {
						c.units = append(c.units, Unit{ID: a.ID, Decision: decision(a.ID, a.ID != p.Scenarios[0].Arms[len(s.Arms)-1].ID, verdict.Valid), Executed: true})
					}
					c.units = append(c.units, Unit{ID: s.ID, Decision: decision(s.ID, true, verdict.Valid), Aggregate: len(s.Arms) > 0, Executed: true, Downgrade: "an arm did not run"})
				}
			}
			f := &Findings{Plan: p, PlanPath: "examples/plans/" + c.plan, SessionDir: "test-sessions/x/20261130T050607Z",
				Started: started, Session: verdict.Fail, Headline: "1 oracle violation found",
				Units: c.units, Findings: c.finds, Confidence: "Less", ConfidenceWhy: "S1 found a violation the plan's §7d rules out"}
			got := RenderFindings(f)
			golden := filepath.Join("testdata", strings.TrimSuffix(c.plan, ".md")+".report.golden.md")
			if goldenfile.Updating() {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("report differs from %s (run with -update after checking the change):\n%s", golden, got)
			}
			assertHeadingOrder(t, got)
		})
	}
}

// assertHeadingOrder checks the §7.2 headings appear, once each, in order.
func assertHeadingOrder(t *testing.T, text string) {
	t.Helper()
	at := 0
	for _, h := range []string{"# Findings: ", "**Plan:**", "**Commit under test:**", "**Session dir:**",
		"## Summary", "## Scenario results", "| ID | Scenario | Verdict | Oracle | Oracle execution evidence | Nemesis landing evidence | Artifact link |",
		"## Findings", "## Coverage summary", "## Surface coverage (boundary and fairness scenarios)",
		"## Release-budget disclosures", "## Adequacy assessment vs the plan's coverage argument",
		"## Confidence delta", "## Green-but-broken check"} {
		i := strings.Index(text[at:], h)
		if i < 0 {
			t.Fatalf("heading %q missing or out of order", h)
		}
		at += i + len(h)
	}
}
