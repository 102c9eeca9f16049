package verdict

import (
	"os"
	"regexp"
	"strings"
	"testing"
	"time"
)

// gateIDs lists every gate the registries define: the audit items in
// report order, then the verdicts and the tiers. A gate added to a
// registry is in this list without editing the test.
func gateIDs() []string {
	var ids []string
	for _, c := range append(append(append([]check{}, redFlags...), weakOracles...), sensitivityCheck) {
		ids = append(ids, c.id)
	}
	for _, v := range Verdicts {
		ids = append(ids, string(v))
	}
	for t := range Tiers() {
		ids = append(ids, string(t))
	}
	return ids
}

// TestEveryGateHasAFix: every audit item, failed or unjudged, on every
// evidence the table holds, says what to change; so does every verdict
// that is not a PASS. It reads the registries, so a new gate without a fix
// fails here.
func TestEveryGateHasAFix(t *testing.T) {
	evidences := map[string]Evidence{
		"zero":      {Attempted: true},
		"hardening": hardening(),
		"smoke":     smoke(),
		"broken": func() Evidence {
			e := hardening()
			e.Faults[0].Injector = No("exit 4")
			e.Faults[1].Held = No("restarted")
			e.Faults[1].Healed = No("rule still there")
			e.Logs = LogScan{Scanned: true, Files: 2, Lines: 10, Matches: 1, Samples: []string{"a.log:3: panic: x"}}
			e.Sensitivity = Sensitivity{Ran: true, Checked: 2, Escaped: []string{"stale-read"}}
			e.Oracle.Outcome = Unknown
			return e
		}(),
	}
	for name, e := range evidences {
		met, notes := TierMet(e.Budgets, e.measured())
		a := newAuditor(&e, met, notes)
		for _, c := range append(append(append([]check{}, redFlags...), weakOracles...), sensitivityCheck) {
			if _, ok := auditFixes[c.id]; !ok {
				t.Errorf("%s has no entry in auditFixes", c.id)
				continue
			}
			for _, st := range []Status{Failed, CannotJudge} {
				fix := a.fix(c.id, st)
				if strings.TrimSpace(fix) == "" {
					t.Errorf("%s %s on %s evidence: empty fix", c.id, st, name)
				}
				if strings.Contains(strings.ToLower(fix), "disable") {
					t.Errorf("%s fix %q tells the user to disable something", c.id, fix)
				}
			}
			if fix := a.fix(c.id, Pass); fix != "" {
				t.Errorf("%s pass has fix %q: only open items get one", c.id, fix)
			}
		}
		for _, v := range Verdicts {
			fix := VerdictFix(v, &e, []string{"not attempted: the scenario could not be compiled: x"})
			if v.IsPass() != (fix == "") {
				t.Errorf("verdict %s on %s evidence: fix %q", v, name, fix)
			}
		}
	}
	// Every audit item a decision reports open carries its fix.
	for name, e := range evidences {
		for _, it := range Decide(e).Audits {
			if it.Status.open() != (it.Fix != "") {
				t.Errorf("%s on %s evidence: status %s, fix %q", it.ID, name, it.Status, it.Fix)
			}
		}
	}
}

// TestBlockers: a decision that is not a PASS lists each gate that withheld
// it once, the most decisive first, with what to change; a PASS and a FAIL
// list none.
func TestBlockers(t *testing.T) {
	tests := []struct {
		name       string
		base       func() Evidence
		edit       func(e *Evidence)
		want       Verdict
		gates      []string // the blockers' gates, in order
		reason     string   // in the first blocker's reason
		fix        string   // in the first blocker's fix
		reasonOnce string   // appears exactly once across all blockers
	}{
		{"pass", hardening, func(*Evidence) {}, PassHardening, nil, "", "", ""},
		{"fail", hardening, func(e *Evidence) { e.Oracle.Outcome = Invalid }, FailNondeterministic, nil, "", "", ""},
		{"logs not grepped", smoke, func(e *Evidence) { e.Logs = LogScan{} }, PartialSurface,
			[]string{"RF7"}, "not grepped", "logs = [", ""},
		{"failed before unjudged", smoke, func(e *Evidence) {
			e.Logs = LogScan{}
			e.Run.Duration = time.Second
		}, PartialSurface, []string{"RF6", "RF7"}, "smoke tier not met: duration 1s < 2m0s", "run the workload ≥2m0s (ran 1s)", ""},
		{"weak oracle first when it decided", hardening, func(e *Evidence) {
			e.Logs = LogScan{}
			e.Oracle.Kinds = []OracleKind{KindFinalState}
		}, PartialModel, []string{"WO1", "RF7"}, "final-state", "no_lost_ack", ""},
		{"six faults, one reason", hardening, func(e *Evidence) {
			e.Faults = nil
			for _, n := range []string{"kill n1", "kill n2", "kill n3", "pause n1", "pause n2", "pause n3"} {
				f := landedFault(n, "")
				f.Victim = No("did not show the fault in effect")
				e.Faults = append(e.Faults, f)
			}
		}, InconclusiveFaultNotProven, []string{"INCONCLUSIVE-fault-not-proven"}, "6 faults not proven", "verify", "did not show the fault in effect"},
		{"two gaps, two blockers", hardening, func(e *Evidence) {
			e.Faults[0].Injector = No("iptables: exit 4")
			e.Faults[1].Victim = No("counter 0")
		}, InconclusiveFaultNotProven, []string{"INCONCLUSIVE-fault-not-proven", "INCONCLUSIVE-fault-not-proven"}, "isolate leader", "injector succeed", ""},
		{"capability missing", hardening, func(e *Evidence) { e.MissingCapabilities = []string{"tc"} }, InconclusiveEnv,
			[]string{"INCONCLUSIVE-env"}, "tc", "provide tc", ""},
		{"not run", hardening, func(e *Evidence) {
			e.Attempted = false
			e.NotRunReason = "the scenario could not be compiled: bad oracle"
		}, NotRun, []string{"NOT-RUN"}, "bad oracle", "lint", ""},
		{"escaped mutant", hardening, func(e *Evidence) {
			e.Sensitivity = Sensitivity{Ran: true, Checked: 3, Escaped: []string{"stale-read"}}
		}, InconclusiveOracleTooWeak, []string{"SA1"}, "accepted 1 of 3", "checker that can fail", ""},
		{"history gap", hardening, func(e *Evidence) { e.History.TimeoutMarkers = No("info ops carry values") }, InconclusiveOracleTooWeak,
			[]string{"INCONCLUSIVE-oracle-too-weak"}, "timeout markers", "info without a value", ""},
		{"subset", hardening, func(e *Evidence) { e.Oracle.Subset = "key 3 only" }, PartialModel,
			[]string{"PARTIAL-model"}, "key 3 only", "whole claim", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := tt.base()
			tt.edit(&e)
			d := Decide(e)
			if d.Verdict != tt.want {
				t.Fatalf("verdict %s, want %s; reasons %q", d.Verdict, tt.want, d.Reasons)
			}
			var gates []string
			for _, b := range d.Blockers {
				gates = append(gates, b.Gate)
				if b.Fix == "" || b.Reason == "" {
					t.Errorf("blocker %+v lacks a reason or a fix", b)
				}
			}
			if strings.Join(gates, ",") != strings.Join(tt.gates, ",") {
				t.Fatalf("gates %q, want %q; blockers %+v", gates, tt.gates, d.Blockers)
			}
			if len(gates) == 0 {
				return
			}
			if !strings.Contains(d.Blockers[0].Reason, tt.reason) {
				t.Errorf("first reason %q, want it to contain %q", d.Blockers[0].Reason, tt.reason)
			}
			if !strings.Contains(d.Blockers[0].Fix, tt.fix) {
				t.Errorf("first fix %q, want it to contain %q", d.Blockers[0].Fix, tt.fix)
			}
			if tt.reasonOnce != "" {
				all := ""
				for _, b := range d.Blockers {
					all += b.Reason + "\n"
				}
				if n := strings.Count(all, tt.reasonOnce); n != 1 {
					t.Errorf("%q written %d times, want once:\n%s", tt.reasonOnce, n, all)
				}
			}
		})
	}
}

// TestArmBlockers: an aggregate capped by its arms names each arm's blocker.
func TestArmBlockers(t *testing.T) {
	pass := Decide(smoke())
	pass.Scenario = "S5/api"
	open := smoke()
	open.Scenario, open.Logs = "S5/export", LogScan{}
	agg := AggregateArms("S5", []Decision{pass, Decide(open)})
	if agg.Verdict != PartialSurface || len(agg.Blockers) != 1 {
		t.Fatalf("verdict %s blockers %+v", agg.Verdict, agg.Blockers)
	}
	if b := agg.Blockers[0]; b.Gate != "RF7" || !strings.HasPrefix(b.Reason, "arm S5/export: ") || b.Fix == "" {
		t.Errorf("blocker %+v", b)
	}
}

// TestCollapse: a reason that recurs is written once with its count.
func TestCollapse(t *testing.T) {
	got := collapse([]string{"a  b", "c", "a b", "a b"})
	if got != "a b (×3); c" {
		t.Errorf("collapse = %q", got)
	}
}

// TestVerdictsDocCoversEveryGate: docs/verdicts.md has a section for every
// gate in the registries, headed by its id so DocAnchor links to it, with
// an example of what trips it and how to satisfy it.
func TestVerdictsDocCoversEveryGate(t *testing.T) {
	doc, err := os.ReadFile("../docs/verdicts.md")
	if err != nil {
		t.Fatal(err)
	}
	sections := map[string]string{}
	heading := regexp.MustCompile(`(?m)^#{2,4} (\S+)\s*$`)
	locs := heading.FindAllSubmatchIndex(doc, -1)
	for i, l := range locs {
		end := len(doc)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		sections[string(doc[l[2]:l[3]])] = string(doc[l[1]:end])
	}
	for _, id := range gateIDs() {
		body, ok := sections[id]
		if !ok {
			t.Errorf("docs/verdicts.md has no heading %q (the anchor %s links to)", id, DocAnchor(id))
			continue
		}
		if !strings.HasPrefix(string(Verdict(id)), "PASS-") && !isTier(id) {
			for _, want := range []string{"Trips it", "Fix"} {
				if !strings.Contains(body, want) {
					t.Errorf("docs/verdicts.md §%s has no %q paragraph", id, want)
				}
			}
		}
	}
}

func isTier(id string) bool {
	for t := range Tiers() {
		if string(t) == id {
			return true
		}
	}
	return false
}

// A fault's fix follows why it did not land: one the load ended before
// is given room, not told to make its injector succeed.
func TestLandingFix(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    Fault
		want string
	}{
		{"scheduled past the end", Fault{Injector: No("scheduled at T+40s, at or after the end of the workload (30s): never injected")}, "a longer workload"},
		{"load ended first", Fault{Injector: No("never injected: the workload ended (last op at T+29.9s) before it was issued")}, "a longer workload"},
		{"interrupted", Fault{Injector: No("never injected: the run was interrupted (last op at T+3s) before it was issued")}, "let the run finish"},
		{"injector failed", Fault{Injector: No("iptables: Permission denied")}, "make the injector succeed"},
		{"no victim signal", Fault{Injector: Yes("ok"), Victim: No("0 drops")}, "make the fault hit what the system runs on"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := landingFix(&tc.f); !strings.Contains(got, tc.want) {
				t.Errorf("fix %q, want it to say %q", got, tc.want)
			}
		})
	}
}
