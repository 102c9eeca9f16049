package plans

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// minimal is the smallest plan that lints clean while exercising every gate:
// S1 is serious (§7.M), S2 is a boundary scenario split into two arms.
const minimal = `# Test Plan: mini
**Date:** 2026-07-01
**Plan mode:** change-scoped
**SUT:** kv
**Change under test:** PR 1
**Plan author:** test
**Status:** reviewed
## 1b. Claims under test
| ID | Claim | Category | Source | Inferred? |
|---|---|---|---|---|
| C1 | acked writes survive a leader kill | durability | docs | no |
| C2 | tenants never read each other's keys | boundary | docs | no |
## 4. Failure-mode hypotheses
H1. **Lost ack** — an acked write is lost.
   - Could falsify: C1
H2. **Leak** — a tenant reads another tenant's key.
   - Could falsify: C2
## 6b. Environment requirements
| Requirement | Version floor | Used by scenarios | Install hint |
|---|---|---|---|
| iptables | any | S1, S2/api | preinstalled |
## 7. Scenarios
### Scenario S1: acked_writes_survive_leader_kill
- **Falsifies if it FAILs:** C1
- **Closes:** H1
- **Technique:** Jepsen + Elle
- **Workload:** 4 clients, 100 ops/s
- **Faults:** kill -9 leader at T+30s
- **Oracle:** no-lost-ack + linearizable (Porcupine)
- **Observability required:** op history
- **Exit criteria:** PASS = 0 lost acks; FAIL = any lost ack
- **Smoke budget:** 3 nodes, 1 min, 0 faults, 1 seed, ≥1k ops
- **Hardening budget:** 5 nodes, 10 min, 4 faults, 3 seeds, ≥20k ops
- **Release budget:** not provided — no soak rig. Revisit when: a soak rig exists.
#### §7.M — Model / history / checker discipline
- **Model under test:** register
- **Operation history:** default schema, in-process
- **Checker:** linearizable + no-lost-ack
- **Nemesis + landing evidence:** PID gone and client timeouts in the window
- **Ambiguous outcomes:** default
- **Reduction plan:** 3 nodes, fixed seed
### Scenario S2: tenant_reads_never_cross
- **Falsifies if it FAILs:** C2
- **Closes:** H2
- **Technique:** property
- **Workload:** 2 tenants, 500 keys each
- **Faults:** none
- **Observability required:** audit log
- **Smoke budget:** 3 nodes, 1 min, 0 faults, 1 seed
- **Hardening budget:** 5 nodes, 10 min, 0 faults, 3 seeds
- **Release budget:** not provided — no rig. Revisit when: a rig exists.
§7.M: not applicable (no gated claim category falsified)
#### §7.M.S — Surface decomposition
- **Surfaces:** API, export
- **Operations:** get, export
- **Adversarial inputs:** ` + "`acme` vs `acme-corp`" + `
- **Positive controls:** own keys readable
- **Negative controls:** other keys denied and absent from metrics
- **Delayed / async paths:** export job
- **Observability paths:** metrics
- **Scenario arms:** ` + "`S2/api`, `S2/export`" + `
#### Arm S2/api: api_denies_cross_tenant
- **Oracle:** cross_tenant_reads == 0
- **Exit criteria:** PASS = 0 cross-tenant reads; FAIL = any
#### Arm S2/export: export_has_only_own_keys
- **Oracle:** leaked_rows == 0
- **Exit criteria:** PASS = 0 leaked rows; FAIL = any
## 7b. Coverage adequacy argument
| Claim | Threat model (how it could fail) | Scenarios that exercise the threats | Why these are sufficient |
|---|---|---|---|
| C1 | leader kill | S1 | kills under load |
| C2 | prefix collision | S2/api, S2/export | both surfaces |
## 7c. Residual uncertainty
None: every claim is exercised.
## 7d. Confidence statement
We have not observed lost acks or tenant leaks under the tested threats.
`

// edit is one textual change to minimal; old must occur in it.
type edit struct{ old, new string }

// lintCase makes one rule fire: the rule, where (unit and field, "" = any),
// and the smallest edit of minimal that provokes it.
type lintCase struct {
	name        string
	rule        string
	unit, field string
	edits       []edit
}

// The S2 arm sections, for cases that remove them.
const armSections = "#### Arm S2/api: api_denies_cross_tenant\n- **Oracle:** cross_tenant_reads == 0\n" +
	"- **Exit criteria:** PASS = 0 cross-tenant reads; FAIL = any\n#### Arm S2/export: export_has_only_own_keys\n" +
	"- **Oracle:** leaked_rows == 0\n- **Exit criteria:** PASS = 0 leaked rows; FAIL = any\n"

// S1's §7.M block.
const s1Model = "#### §7.M — Model / history / checker discipline\n- **Model under test:** register\n" +
	"- **Operation history:** default schema, in-process\n- **Checker:** linearizable + no-lost-ack\n" +
	"- **Nemesis + landing evidence:** PID gone and client timeouts in the window\n- **Ambiguous outcomes:** default\n" +
	"- **Reduction plan:** 3 nodes, fixed seed\n"

var lintCases = []lintCase{
	// The halt rule.
	{"oracle missing", "oracle-missing", "S1", FieldOracle, []edit{{"- **Oracle:** no-lost-ack + linearizable (Porcupine)\n", ""}}},
	{"oracle placeholder", "oracle-missing", "S1", FieldOracle, []edit{{"no-lost-ack + linearizable (Porcupine)", "TBD"}}},
	{"arm oracle missing", "oracle-missing", "S2/api", FieldOracle, []edit{{"- **Oracle:** cross_tenant_reads == 0\n", ""}}},
	{"oracle vague", "oracle-unchecked", "S1", FieldOracle, []edit{{"no-lost-ack + linearizable (Porcupine)", "logs look fine"}}},
	{"oracle unrecognised", "oracle-unchecked", "S2/export", FieldOracle, []edit{{"leaked_rows == 0", "the export is correct"}}},
	{"exit missing", "exit-missing", "S1", FieldExit, []edit{{"- **Exit criteria:** PASS = 0 lost acks; FAIL = any lost ack\n", ""}}},
	{"exit placeholder", "exit-missing", "S1", FieldExit, []edit{{"PASS = 0 lost acks; FAIL = any lost ack", "TBD"}}},
	{"exit vague", "exit-undecidable", "S1", FieldExit, []edit{{"PASS = 0 lost acks; FAIL = any lost ack", "when the logs look fine"}}},
	{"exit without conditions", "exit-undecidable", "S1", FieldExit, []edit{{"PASS = 0 lost acks; FAIL = any lost ack", "run it and see"}}},
	// Structure.
	{"no claims", "claims-missing", "", "§1b", []edit{{"| C1 | acked writes survive a leader kill | durability | docs | no |\n| C2 | tenants never read each other's keys | boundary | docs | no |\n", ""}}},
	{"no scenarios", "scenarios-missing", "", "§7", []edit{{"### Scenario S1:", "### Notes"}, {"### Scenario S2: tenant_reads_never_cross", "### More notes"}, {armSections, ""}}},
	{"scenario without id", "scenario-id", "", "", []edit{{"### Scenario S1: acked", "### Scenario: acked"}}},
	{"duplicate claim", "id-duplicate", "", "§1b", []edit{{"| C2 | tenants", "| C1 | tenants"}}},
	{"duplicate scenario", "id-duplicate", "S1", "", []edit{{"## 7b.", "### Scenario S1: again\n## 7b."}}},
	{"duplicate arm", "id-duplicate", "S2/api", "", []edit{{"#### Arm S2/export:", "#### Arm S2/api:"}}},
	{"unknown category", "category-unknown", "", "§1b", []edit{{"| durability |", "| correctness |"}}},
	{"empty category", "category-unknown", "", "§1b", []edit{{"| durability |", "| |"}}},
	{"falsifies missing", "falsifies-missing", "S1", FieldFalsifies, []edit{{"- **Falsifies if it FAILs:** C1\n", ""}}},
	{"falsifies without ids", "falsifies-missing", "S1", FieldFalsifies, []edit{{"- **Falsifies if it FAILs:** C1\n", "- **Falsifies if it FAILs:** TBD\n"}}},
	{"unknown claim", "claim-unknown", "S1", FieldFalsifies, []edit{{"- **Falsifies if it FAILs:** C1\n", "- **Falsifies if it FAILs:** C1, C9\n"}}},
	{"workload missing", "field-required", "S1", FieldWorkload, []edit{{"- **Workload:** 4 clients, 100 ops/s\n", ""}}},
	{"faults missing", "field-required", "S2/api", FieldFaults, []edit{{"- **Faults:** none\n", ""}}},
	{"faults placeholder", "field-required", "S1", FieldFaults, []edit{{"kill -9 leader at T+30s", "TBD"}}},
	{"smoke missing", "budget-missing", "S1", FieldSmoke, []edit{{"- **Smoke budget:** 3 nodes, 1 min, 0 faults, 1 seed, ≥1k ops\n", ""}}},
	{"smoke not provided", "budget-missing", "S1", FieldSmoke, []edit{{"3 nodes, 1 min, 0 faults, 1 seed, ≥1k ops", "not provided — later"}}},
	{"smoke placeholder", "budget-missing", "S1", FieldSmoke, []edit{{"3 nodes, 1 min, 0 faults, 1 seed, ≥1k ops", "TBD"}}},
	{"release missing", "budget-missing", "S2/export", FieldRelease, []edit{{"- **Release budget:** not provided — no rig. Revisit when: a rig exists.\n", ""}}},
	{"unbounded smoke", "budget-unbounded", "S1", FieldSmoke, []edit{{"3 nodes, 1 min, 0 faults, 1 seed, ≥1k ops", "3 nodes, 0 faults, 1 seed"}}},
	{"serious without §7.M", "model-required", "S2/api", "§7.M", []edit{{"| boundary |", "| boundary / safety |"}}},
	{"serious with N/A line", "model-required", "S1", "§7.M", []edit{{s1Model, "§7.M: not applicable\n"}}},
	{"boundary without §7.M.S", "surface-required", "S1", "§7.M.S", []edit{{"| durability |", "| durability / boundary |"}}},
	{"foreign arm", "arm-id", "S2", FieldArms, []edit{{"`S2/api`, `S2/export`", "`S2/api`, `S2/export`, `S3/api`"}}},
	{"unclosed fence", "fence-unclosed", "", "", []edit{{"## 7d.", "```\n## 7d."}}},
	{"zero hold", "duration-nonpositive", "S1", FieldFaults, []edit{{"kill -9 leader at T+30s", "kill -9 leader at T+30s for 0s"}}},
	{"negative budget duration", "duration-nonpositive", "S1", FieldSmoke, []edit{{"3 nodes, 1 min, 0 faults", "3 nodes, -1 min, 0 faults"}}},
	{"fault phrase unknown", "faults-unknown", "S1", FieldFaults, []edit{{"kill -9 leader at T+30s", "disk stall of 5s at T+30s"}}},
	{"clock rate out of range", "fault-params", "S1", FieldFaults, []edit{{"kill -9 leader at T+30s", "kill -9 leader at T+30s; time drift at rate 1.5 on one node"}}},
	{"target outside the repository", "target-outside", "S1", FieldTargetFile, []edit{{"- **Technique:** Jepsen + Elle\n", "- **Technique:** Jepsen + Elle\n- **Target test file:** `../elsewhere/s1.star`\n"}}},
	{"absolute target", "target-outside", "S1", FieldTargetFile, []edit{{"- **Technique:** Jepsen + Elle\n", "- **Technique:** Jepsen + Elle\n- **Target test file:** /etc/s1.star\n"}}},
	{"whole-scenario block drops the landing evidence", "landing-dropped", "S1", FieldLanding, []edit{{"Revisit when: a soak rig exists.\n#### §7.M",
		"Revisit when: a soak rig exists.\n\n  ```starlark\n  scenario(name = \"S1\", client = suite.client, nemesis = suite.nemesis)\n  ```\n#### §7.M"}}},
	// Warnings.
	{"title", "title", "", "", []edit{{"# Test Plan: mini", "# Mini plan"}}},
	{"header missing", "header", "", HeaderStatus, []edit{{"**Status:** reviewed\n", ""}}},
	{"header enum", "header", "", HeaderStatus, []edit{{"**Status:** reviewed", "**Status:** done"}}},
	{"header date", "header", "", HeaderDate, []edit{{"2026-07-01", "July 1st"}}},
	{"section missing", "section-missing", "", "§7d", []edit{{"## 7d. Confidence statement\nWe have not observed lost acks or tenant leaks under the tested threats.\n", ""}}},
	{"section empty", "section-missing", "", "§7c", []edit{{"None: every claim is exercised.\n", ""}}},
	{"recommended field", "field-recommended", "S1", FieldTechnique, []edit{{"- **Technique:** Jepsen + Elle\n", ""}}},
	{"duplicate field", "field-duplicate", "S1", FieldWorkload, []edit{{"- **Workload:** 4 clients, 100 ops/s\n", "- **Workload:** 4 clients, 100 ops/s\n- **Workload:** again\n"}}},
	{"typo", "field-typo", "S1", "Tecnique", []edit{{"**Technique:** Jepsen", "**Tecnique:** Jepsen"}}},
	{"orphan field", "orphan", "", FieldOracle, []edit{{"## 7. Scenarios\n", "## 7. Scenarios\n**Oracle:** stray\n"}}},
	{"row without id", "table-row", "", "§1b", []edit{{"| C2 | tenants", "| | no id | safety | x | no |\n| C2 | tenants"}}},
	{"name not snake_case", "name-style", "S1", "", []edit{{"acked_writes_survive_leader_kill", "Acked Writes Survive"}}},
	{"name missing", "name-style", "S1", "", []edit{{"### Scenario S1: acked_writes_survive_leader_kill", "### Scenario S1"}}},
	{"vague clause", "oracle-vague-clause", "S1", FieldOracle, []edit{{"linearizable (Porcupine)", "linearizable (Porcupine), and logs look fine"}}},
	{"weak oracle", "oracle-weak", "S1", FieldOracle, []edit{{"no-lost-ack + linearizable (Porcupine)", "final-state invariant on the dump"}}},
	{"exit without FAIL", "exit-no-fail", "S1", FieldExit, []edit{{"PASS = 0 lost acks; FAIL = any lost ack", "PASS = 0 lost acks"}}},
	{"§7.M incomplete", "model-incomplete", "S1", "§7.M", []edit{{"- **Reduction plan:** 3 nodes, fixed seed\n", ""}}},
	{"unknown model", "model-unknown", "S1", FieldModel, []edit{{"**Model under test:** register", "**Model under test:** blob"}}},
	{"unknown checker", "checker-unrecognized", "S1", FieldChecker, []edit{{"**Checker:** linearizable + no-lost-ack", "**Checker:** our script"}}},
	{"injector success", "landing-weak", "S1", FieldLanding, []edit{{"PID gone and client timeouts in the window", "injector reported success"}}},
	{"N/A line missing", "model-na-missing", "S2", "§7.M", []edit{{"§7.M: not applicable (no gated claim category falsified)\n", ""}}},
	{"§7.M.S incomplete", "surface-incomplete", "S2", "§7.M.S", []edit{{"- **Delayed / async paths:** export job\n", ""}}},
	{"fairness without group", "surface-incomplete", "S2", "§7.M.S", []edit{{"| boundary |", "| fairness |"}}},
	{"arms needed", "arms-needed", "S2", FieldArms, []edit{{"API, export", "API, export, admin, SDK"},
		{"- **Scenario arms:** `S2/api`, `S2/export`\n", "- **Scenario arms:** none, one oracle covers every surface\n- **Oracle:** leaks == 0\n- **Exit criteria:** FAIL = any leak\n"},
		{armSections, ""}}},
	{"arm not listed", "arm-unlisted", "S2/export", FieldArms, []edit{{"`S2/api`, `S2/export`", "`S2/api`"}}},
	{"arm without section", "arm-undefined", "S2/sdk", "", []edit{{"`S2/api`, `S2/export`", "`S2/api`, `S2/export`, `S2/sdk`"}}},
	{"hardening not provided", "hardening-not-provided", "S1", FieldHardening, []edit{{"5 nodes, 10 min, 4 faults, 3 seeds, ≥20k ops", "not provided — no cluster. Revisit when: we have one."}}},
	{"release placeholder", "release-disclosure", "S1", FieldRelease, []edit{{"not provided — no soak rig. Revisit when: a soak rig exists.", "TBD"}}},
	{"disclosure without revisit", "release-disclosure", "S1", FieldRelease, []edit{{"not provided — no soak rig. Revisit when: a soak rig exists.", "not provided — no soak rig."}}},
	{"hardening not stronger", "hardening-not-stronger", "S1", FieldHardening, []edit{{"5 nodes, 10 min, 4 faults", "3 nodes, 10 min, 4 faults"}}},
	{"hardening missing a dimension", "hardening-not-stronger", "S1", FieldHardening, []edit{{"5 nodes, 10 min, 4 faults, 3 seeds, ≥20k ops", "5 nodes, 10 min, 3 seeds, ≥20k ops"}}},
	{"few ops for a history check", "budget-floor", "S1", FieldHardening, []edit{{"≥20k ops", "≥5k ops"}}},
	{"one seed for a statistical claim", "budget-floor", "S1", FieldHardening, []edit{{"| durability |", "| durability / performance |"}, {"4 faults, 3 seeds", "4 faults, 2 seeds"}}},
	{"unknown hypothesis", "ref-unknown", "S1", FieldCloses, []edit{{"- **Closes:** H1\n", "- **Closes:** H1, H7\n"}}},
	{"unknown claim in §4", "ref-unknown", "", "§4 H1", []edit{{"   - Could falsify: C1\n", "   - Could falsify: C1, C8\n"}}},
	{"unknown scenario in §6b", "ref-unknown", "", "§6b", []edit{{"| S1, S2/api |", "| S1, S2/sdk |"}}},
	{"unknown scenario in §7b", "ref-unknown", "", "§7b", []edit{{"| C1 | leader kill | S1 |", "| C1 | leader kill | S5 |"}}},
	{"unknown claim in §7b", "ref-unknown", "", "§7b", []edit{{"| C1 | leader kill |", "| C7 | leader kill |"}}},
	{"uncovered claim", "claim-uncovered", "", "§1b", []edit{{"| C2 | tenants", "| C3 | reads are fast | liveness | docs | no |\n| C2 | tenants"}}},
}

func applyEdits(t *testing.T, src string, edits []edit) string {
	t.Helper()
	for _, e := range edits {
		if !strings.Contains(src, e.old) {
			t.Fatalf("edit target %q is not in the plan", e.old)
		}
		src = strings.Replace(src, e.old, e.new, 1)
	}
	return src
}

func lintSource(src string) []Diagnostic {
	p, ds := Parse("mini.md", []byte(src))
	return append(ds, Lint(p)...)
}

func TestMinimalPlanLintsClean(t *testing.T) {
	if ds := lintSource(minimal); len(ds) != 0 {
		t.Fatalf("minimal plan: want no diagnostics, got:\n%s", diagStrings(ds))
	}
}

func TestLintRules(t *testing.T) {
	good := map[string][]Diagnostic{}
	for _, name := range []string{"etcd-register", "boundary-arms"} {
		_, good[name] = parseFile(t, filepath.Join("testdata", name+".md"))
	}
	for _, c := range lintCases {
		t.Run(c.name, func(t *testing.T) {
			ds := lintSource(applyEdits(t, minimal, c.edits))
			var hit *Diagnostic
			for i, d := range ds {
				if d.Rule == c.rule && (c.unit == "" || d.Scenario == c.unit) && (c.field == "" || d.Field == c.field) {
					hit = &ds[i]
					break
				}
			}
			if hit == nil {
				t.Fatalf("rule %s did not fire on %s %s; got:\n%s", c.rule, c.unit, c.field, diagStrings(ds))
			}
			if hit.Severity != ruleSeverity[c.rule] || hit.Msg == "" || hit.Fix == "" || hit.Pos.File != "mini.md" || hit.Pos.Line < 1 {
				t.Errorf("malformed diagnostic: %+v", *hit)
			}
			if HasErrors(ds) != hasErrorRule(ds) {
				t.Error("HasErrors disagrees with the rules that fired")
			}
			for name, gds := range good {
				for _, d := range gds {
					if d.Rule == c.rule {
						t.Errorf("rule %s also fires on the good plan %s: %s", c.rule, name, d)
					}
				}
			}
		})
	}
}

func hasErrorRule(ds []Diagnostic) bool {
	for _, d := range ds {
		if ruleSeverity[d.Rule] == Error {
			return true
		}
	}
	return false
}

// Every rule needs a case that makes it fire, and every case a registered rule.
func TestRulesHaveCases(t *testing.T) {
	covered := map[string]bool{}
	for _, c := range lintCases {
		if _, ok := ruleSeverity[c.rule]; !ok {
			t.Errorf("case %q uses unregistered rule %q", c.name, c.rule)
		}
		covered[c.rule] = true
	}
	seen := map[string]bool{}
	for _, r := range Rules {
		if seen[r.Name] {
			t.Errorf("rule %s registered twice", r.Name)
		}
		seen[r.Name] = true
		if !covered[r.Name] {
			t.Errorf("rule %s has no lint case", r.Name)
		}
		if r.Doc == "" {
			t.Errorf("rule %s has no doc", r.Name)
		}
	}
}

func TestLintNil(t *testing.T) {
	ds := Lint(nil)
	if !HasErrors(ds) {
		t.Fatal("an empty plan must halt")
	}
	var rules []string
	for _, d := range ds {
		if d.Severity == Error {
			rules = append(rules, d.Rule)
		}
	}
	if strings.Join(rules, ",") != "claims-missing,scenarios-missing" {
		t.Errorf("errors: %v", rules)
	}
}

// Lint must not panic on plans built by hand, with references the parser
// would never leave dangling.
func TestLintHandBuilt(t *testing.T) {
	p := &Plan{
		Hypotheses: []Hypothesis{{ID: "H1"}},
		Scenarios: []*Scenario{nil, {ID: "S1", Closes: []string{"H9"}, Falsifies: []string{"C1"},
			Surface: &SurfaceBlock{ArmIDs: []string{"S2/x"}}, Arms: []*Arm{nil, {ID: "S1/a"}}}},
	}
	ds := Lint(p)
	if !HasErrors(ds) || len(p.Scenarios) != 2 || len(p.Scenarios[1].Arms) != 2 {
		t.Errorf("diagnostics %v; plan modified: %d scenarios", rulesOf(ds), len(p.Scenarios))
	}
}

func TestDiagnosticString(t *testing.T) {
	cases := []struct {
		d    Diagnostic
		want string
	}{
		{Diagnostic{Pos: Pos{"p.md", 12}, Severity: Error, Scenario: "S3", Field: "Oracle", Msg: "vague", Fix: "name a checker"},
			"p.md:12: [S3 Oracle] vague (fix: name a checker)"},
		{Diagnostic{Pos: Pos{"p.md", 3}, Severity: Warning, Field: "Status", Msg: "missing"},
			"p.md:3: warning: [Status] missing"},
		{Diagnostic{Pos: Pos{"p.md", 1}, Severity: Error, Msg: "no plan"}, "p.md:1: no plan"},
	}
	for _, c := range cases {
		if got := c.d.String(); got != c.want {
			t.Errorf("got  %s\nwant %s", got, c.want)
		}
	}
}

func TestDiagnosticJSON(t *testing.T) {
	d := Diagnostic{Pos: Pos{"p.md", 12}, Severity: Warning, Rule: "title", Msg: "m"}
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != `{"pos":"p.md:12","severity":"warning","rule":"title","msg":"m"}` {
		t.Errorf("json: %s", b)
	}
	var back Diagnostic
	if err := json.Unmarshal(b, &back); err != nil || back != d {
		t.Errorf("round trip: %+v, %v", back, err)
	}
	if err := json.Unmarshal([]byte(`{"severity":"fatal"}`), &back); err == nil {
		t.Error("unknown severity accepted")
	}
}

func TestHasErrors(t *testing.T) {
	if HasErrors(nil) || HasErrors([]Diagnostic{{Severity: Warning}}) || !HasErrors([]Diagnostic{{Severity: Warning}, {Severity: Error}}) {
		t.Error("HasErrors")
	}
}

// A zero or negative duration is an error naming the file, the line and the
// text; a zero start, a range and positive durations are not.
func TestLintDurations(t *testing.T) {
	tests := []struct {
		name, faults, smoke string
		want                []string // the texts reported, in order
		field               string
	}{
		{"zero hold", "kill -9 leader at T+30s for 0s", "", []string{`"for 0s"`}, FieldFaults},
		{"negative hold", "partition the leader at T+30s for -5s", "", []string{`"for -5s"`}, FieldFaults},
		{"unicode minus", "partition the leader at T+30s for −5s", "", []string{`"for −5s"`}, FieldFaults},
		{"zero interval", "kill -9 leader at T+30s; repeat every 0s", "", []string{`"every 0s"`}, FieldFaults},
		{"zero apart", "kill -9 leader at T+30s; 4 kills per hardening run, 0 s apart", "", []string{`"0 s apart"`}, FieldFaults},
		{"zero restart", "kill -9 leader at T+30s, restart after 0 s", "", []string{`"restart after 0 s"`}, FieldFaults},
		{"negative start", "kill -9 leader at T+-10s for 5s", "", []string{`"at T+-10s"`}, FieldFaults},
		{"two in one field", "kill -9 leader for 0s; partition the leader every -1 min", "", []string{`"for 0s"`, `"every -1 min"`}, FieldFaults},
		{"zero start is the beginning", "kill -9 leader at T+0s for 5s", "", nil, ""},
		{"positive durations", "kill -9 leader at T+30s for 20s; repeat every 2 min", "", nil, ""},
		{"zero budget duration", "", "3 nodes, 0 min, 0 faults, 1 seed, ≥1k ops", []string{`"0 min"`}, FieldSmoke},
		{"negative budget duration", "", "3 nodes, -2 min, 0 faults, 1 seed, ≥1k ops", []string{`"-2 min"`}, FieldSmoke},
		{"budget range is not negative", "", "3 nodes, 1-2 min, 0 faults, 1 seed, ≥1k ops", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var edits []edit
			if tt.faults != "" {
				edits = append(edits, edit{"kill -9 leader at T+30s", tt.faults})
			}
			if tt.smoke != "" {
				edits = append(edits, edit{"3 nodes, 1 min, 0 faults, 1 seed, ≥1k ops", tt.smoke})
			}
			src := applyEdits(t, minimal, edits)
			var got []Diagnostic
			for _, d := range lintSource(src) {
				if d.Rule == "duration-nonpositive" {
					got = append(got, d)
				}
			}
			if len(got) != len(tt.want) {
				t.Fatalf("want %d duration diagnostics, got:\n%s", len(tt.want), diagStrings(got))
			}
			line := 0
			for i, l := range strings.Split(src, "\n") {
				if strings.HasPrefix(l, "- **"+tt.field+":**") {
					line = i + 1
					break
				}
			}
			for i, d := range got {
				if d.Severity != Error || d.Pos.File != "mini.md" || d.Pos.Line != line || d.Field != tt.field ||
					!strings.Contains(d.Msg, tt.want[i]) || !strings.Contains(d.String(), "mini.md:") {
					t.Errorf("got %s (line %d), want an error at mini.md:%d naming %s", d, d.Pos.Line, line, tt.want[i])
				}
			}
		})
	}
}

// A Faults clause the compiler cannot turn into a fault is a lint error at
// the Faults line, listing the phrases the compiler reads, as an unreadable
// Oracle is: before, lint said "ok to run", the compiled scenario had no
// nemesis and the run only said "faults landed 0 < 3". A ```starlark
// nemesis block (or a whole-scenario block) makes the Faults field prose.
func TestLintFaultsUnknown(t *testing.T) {
	nemesisBlock := "- **Oracle:** no-lost-ack + linearizable (Porcupine)\n\n```starlark\nnemesis = nemesis.kill(nodes = \"one\")\n```\n"
	wholeBlock := "- **Oracle:** no-lost-ack + linearizable (Porcupine)\n\n```starlark\nscenario(name = \"s1\")\n```\n"
	tests := []struct {
		name, faults string
		extra        []edit
		want         []string // message fragments of faults-unknown errors, in order
	}{
		{"unknown fault", "disk stall of 5s at T+30s", nil, []string{`fault phrase "disk stall of 5s at T+30s" is not in the vocabulary`}},
		{"unknown beside a known one", "kill -9 leader at T+30s; bitflip the WAL on one node", nil, []string{`"bitflip the WAL on one node"`}},
		{"unknown with a tier qualifier", "kill -9 leader at T+30s; disk stall in the hardening tier", nil, []string{`"disk stall in the hardening tier"`}},
		{"schedule before any fault", "every 10s; kill -9 leader at T+30s", nil, []string{`"every 10s"`}},
		{"unknown fault with a start after a known one", "kill -9 leader at T+30s; bitflip the WAL of one node at T+40s", nil, []string{`"bitflip the WAL of one node at T+40s"`}},
		{"unknown fault with a hold after a known one", "kill -9 leader at T+30s; disk stall for 5s", nil, []string{`"disk stall for 5s"`}},
		{"unknown fault on a target with an interval", "kill -9 leader at T+30s; corrupt one node's WAL every 10s", nil, []string{`"corrupt one node's WAL every 10s"`}},
		{"fault with no target", "kill -9 at T+30s", nil, []string{`kill in "kill -9 at T+30s" names no target`}},
		{"known fault", "kill -9 leader at T+30s", nil, nil},
		{"schedule after a fault", "kill -9 leader at T+30s; repeat every 2 min", nil, nil},
		{"tiered schedule after a fault", "kill -9 leader at T+30s; repeat the pair every 2 min in the hardening tier", nil, nil},
		{"count and tier qualifier", "kill -9 leader at T+30s; 4 kills per hardening run, 60 s apart", nil, nil},
		{"tier qualifier alone", "kill -9 leader at T+30s; in the hardening tier", nil, nil},
		{"none", "none", nil, nil},
		{"default target of a network fault", "packet loss 20% at T+10s for 5s", nil, nil},
		{"starlark nemesis block", "bitflip the WAL on one node", []edit{{"- **Oracle:** no-lost-ack + linearizable (Porcupine)\n", nemesisBlock}}, nil},
		{"whole-scenario block", "bitflip the WAL on one node", []edit{{"- **Oracle:** no-lost-ack + linearizable (Porcupine)\n", wholeBlock}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := applyEdits(t, minimal, append([]edit{{"kill -9 leader at T+30s", tt.faults}}, tt.extra...))
			faultsLine := 0 // S1's "- **Faults:** ..." line
			for i, l := range strings.Split(src, "\n") {
				if l == "- **Faults:** "+tt.faults {
					faultsLine = i + 1
					break
				}
			}
			if faultsLine == 0 {
				t.Fatalf("no Faults line %q in the plan", tt.faults)
			}
			path := filepath.Join(t.TempDir(), "plan.md")
			if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			_, ds, err := Load(path)
			if err != nil {
				t.Fatal(err)
			}
			var got []Diagnostic
			for _, d := range ds {
				if d.Rule == "faults-unknown" {
					got = append(got, d)
				}
			}
			if len(got) != len(tt.want) {
				t.Fatalf("want %d faults-unknown errors, got:\n%s", len(tt.want), diagStrings(ds))
			}
			for i, d := range got {
				at := fmt.Sprintf("%s:%d: [S1 Faults] ", path, faultsLine)
				if !strings.HasPrefix(d.String(), at) || !strings.Contains(d.Msg, tt.want[i]) || d.Severity != Error || !HasErrors(ds) {
					t.Errorf("got %s, want an error at %s containing %q", d, at, tt.want[i])
				}
				// The fix names the phrases the compiler reads.
				for _, phrase := range []string{"kill -9", "partition", "packet loss N%", "at T+30s", "```starlark nemesis"} {
					if !strings.Contains(d.Fix, phrase) && !strings.Contains(d.Msg, "names no target") {
						t.Errorf("fix does not name %q: %s", phrase, d.Fix)
					}
				}
			}
		})
	}
}
