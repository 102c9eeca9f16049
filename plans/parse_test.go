package plans

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/faultline/faultline/verdict"
)

// testPlans are the plans in testdata/; the first three are also the examples
// users copy from examples/plans/.
var testPlans = []string{"etcd-register", "boundary-arms", "vague-oracles", "real-world", "spec-example"}

func TestGoldenParseAndLint(t *testing.T) {
	for _, name := range testPlans {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join("testdata", name+".md")
			p, parseDiags := Parse(path, readFile(t, path))
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetIndent("", "  ")
			enc.SetEscapeHTML(false)
			if err := enc.Encode(struct {
				Plan        *Plan        `json:"plan"`
				Diagnostics []Diagnostic `json:"parse_diagnostics"`
			}{p, parseDiags}); err != nil {
				t.Fatal(err)
			}
			checkGolden(t, filepath.Join("testdata", name+".parse.golden.json"), buf.Bytes())
			_, all := parseFile(t, path)
			checkGolden(t, filepath.Join("testdata", name+".lint.golden"), []byte(diagStrings(all)))
		})
	}
}

// The examples users copy must be the plans the tests check.
func TestExamplesMatchTestdata(t *testing.T) {
	for _, name := range testPlans[:3] {
		ex := readFile(t, filepath.Join("..", "examples", "plans", name+".md"))
		td := readFile(t, filepath.Join("testdata", name+".md"))
		if !bytes.Equal(ex, td) {
			t.Errorf("examples/plans/%s.md differs from plans/testdata/%s.md; copy one over the other", name, name)
		}
	}
}

func TestGoodPlansLintClean(t *testing.T) {
	for _, name := range []string{"etcd-register", "boundary-arms"} {
		_, ds := parseFile(t, filepath.Join("testdata", name+".md"))
		if len(ds) != 0 {
			t.Errorf("%s: want no diagnostics, got:\n%s", name, diagStrings(ds))
		}
	}
}

// Acceptance A2 and eval exec-3: a plan whose oracles are all vague halts at
// load, and every scenario is named.
func TestVagueOraclesHalt(t *testing.T) {
	p, ds := parseFile(t, filepath.Join("testdata", "vague-oracles.md"))
	if !HasErrors(ds) {
		t.Fatal("vague-oracles.md must halt the run")
	}
	for _, s := range p.Scenarios {
		found := false
		for _, d := range ds {
			found = found || d.Rule == "oracle-unchecked" && d.Scenario == s.ID && d.Field == FieldOracle && d.Severity == Error
		}
		if !found {
			t.Errorf("%s: no oracle-unchecked error; got:\n%s", s.ID, diagStrings(ds))
		}
	}
}

// Acceptance A1: the spec's own example parses into a serious scenario, a
// surface scenario with arms, and an ungated one, and keeps the disclosure.
func TestSpecExample(t *testing.T) {
	p, _ := Parse("spec-example.md", readFile(t, filepath.Join("testdata", "spec-example.md")))
	if p.Slug != "kv-ack-durability" || len(p.Scenarios) != 3 {
		t.Fatalf("slug %q, %d scenarios", p.Slug, len(p.Scenarios))
	}
	s1, s2, s3 := p.Scenarios[0], p.Scenarios[1], p.Scenarios[2]
	if !s1.Gate.Serious || s1.Model == nil || len(s1.Model.Fields) != 6 || s1.Model.Model != "map" {
		t.Errorf("S1: gate %+v, model %+v", s1.Gate, s1.Model)
	}
	if !s2.Gate.Surface || s2.Surface == nil || !slices.Equal(s2.Surface.ArmIDs, []string{"S2/api", "S2/export"}) ||
		len(s2.Arms) != 2 || s2.Arms[0].Surface != "api" || !slices.Equal(s2.Surface.Surfaces, []string{"HTTP API", "nightly export"}) {
		t.Errorf("S2: gate %+v, surface %+v, arms %d", s2.Gate, s2.Surface, len(s2.Arms))
	}
	if s3.Gate.Serious || s3.ModelNA == nil || !strings.HasPrefix(s3.ModelNA.Text, "§7.M: not applicable") {
		t.Errorf("S3: gate %+v, model_na %+v", s3.Gate, s3.ModelNA)
	}
	rel := s1.Budgets.Release
	if rel == nil || rel.NotProvided == nil || rel.NotProvided.Reason != "no soak rig yet" ||
		rel.NotProvided.RevisitWhen != "nightly soak runner exists" {
		t.Errorf("S1 release: %+v", rel)
	}
	if h := s1.Budgets.Hardening; h == nil || h.Nodes != 5 || h.Seeds != 3 || h.Ops != 20000 || *h.Faults != 4 {
		t.Errorf("S1 hardening: %+v", h)
	}
}

func TestParseSections(t *testing.T) {
	cases := []struct{ heading, number, title string }{
		{"## 1b. Claims under test", "1b", "Claims under test"},
		{"## 7 Scenarios", "7", "Scenarios"},
		{"## §6b Environment requirements", "6b", "Environment requirements"},
		{"## 7C) Residual uncertainty", "7c", "Residual uncertainty"},
		{"## 0. Architectural summary ##", "0", "Architectural summary"},
		{"## Claims under test", "1b", "Claims under test"},
		{"## Confidence statement", "7d", "Confidence statement"},
		{"## Appendix", "", "Appendix"},
	}
	for _, c := range cases {
		p, _ := Parse("p.md", []byte(c.heading+"\n"))
		if len(p.Sections) != 1 || p.Sections[0].Number != c.number || p.Sections[0].Title != c.title {
			t.Errorf("%q: got %+v", c.heading, p.Sections)
		}
	}
}

func TestParseScenarioHeadings(t *testing.T) {
	cases := []struct{ heading, id, arm, name string }{
		{"### Scenario S1: no_lost_ack", "S1", "", "no_lost_ack"},
		{"### Scenario S12 — no_lost_ack", "S12", "", "no_lost_ack"},
		{"### Scenario 3 -- no_lost_ack", "S3", "", "no_lost_ack"},
		{"### S4 - no_lost_ack", "S4", "", "no_lost_ack"},
		{"#### s5: lower_case_id", "S5", "", "lower_case_id"},
		{"### Scenario `S6`: code_id", "S6", "", "code_id"},
		{"### Scenario S7", "S7", "", ""},
		{"### Scenario S5/api: arm_only", "S5", "S5/api", "arm_only"},
		{"#### Arm S5/sdk", "S5", "S5/sdk", ""},
	}
	for _, c := range cases {
		p, _ := Parse("p.md", []byte("## 7. Scenarios\n"+c.heading+"\n"))
		if len(p.Scenarios) != 1 {
			t.Errorf("%q: %d scenarios", c.heading, len(p.Scenarios))
			continue
		}
		s := p.Scenarios[0]
		got := struct{ id, arm, name string }{s.ID, "", s.Name}
		if len(s.Arms) == 1 {
			got.arm, got.name = s.Arms[0].ID, s.Arms[0].Name
		}
		if got != (struct{ id, arm, name string }{c.id, c.arm, c.name}) {
			t.Errorf("%q: got %+v", c.heading, got)
		}
	}
	for _, h := range []string{"### Scenarios", "### Summary", "### Setup S1"} {
		if p, _ := Parse("p.md", []byte("## 7. Scenarios\n"+h+"\n")); len(p.Scenarios) != 0 {
			t.Errorf("%q parsed as a scenario", h)
		}
	}
	p, ds := Parse("p.md", []byte("## 7. Scenarios\n### Scenario: no_id\n- **Oracle:** linearizable\n"))
	if len(p.Scenarios) != 0 || !slices.Contains(rulesOf(ds), "scenario-id") {
		t.Errorf("heading without id: %d scenarios, %v", len(p.Scenarios), rulesOf(ds))
	}
}

func TestParseFieldLabels(t *testing.T) {
	cases := []struct{ line, name, value string }{
		{"- **Oracle:** linearizable", FieldOracle, "linearizable"},
		{"- **Oracle**: linearizable", FieldOracle, "linearizable"},
		{"* __Oracle:__ linearizable", FieldOracle, "linearizable"},
		{"- Oracle: linearizable", FieldOracle, "linearizable"},
		{"**Oracle:** linearizable", FieldOracle, "linearizable"},
		{"- **Falsifies if it fails:** C1", FieldFalsifies, "C1"},
		{"- **Falsifies:** C1", FieldFalsifies, "C1"},
		{"- **Nemesis:** kill -9", FieldFaults, "kill -9"},
		{"- **Exit criterion:** FAIL = 1", FieldExit, "FAIL = 1"},
		{"- **Smoke:** 1 min", FieldSmoke, "1 min"},
		{"- **Notes:** extra", "Notes", "extra"},
	}
	for _, c := range cases {
		p, _ := Parse("p.md", []byte("### Scenario S1: x\n"+c.line+"\n"))
		if len(p.Scenarios) != 1 || len(p.Scenarios[0].Fields) != 1 {
			t.Errorf("%q: no field parsed", c.line)
			continue
		}
		f := p.Scenarios[0].Fields[0]
		if f.Name != c.name || f.Value != c.value || f.Pos.Line != 2 {
			t.Errorf("%q: got %+v", c.line, f)
		}
	}
	// Prose with a colon is not a field.
	p, _ := Parse("p.md", []byte("### Scenario S1: x\n- note: this is prose\nWhy: because\n"))
	if n := len(p.Scenarios[0].Fields); n != 0 {
		t.Errorf("prose parsed as %d fields: %+v", n, p.Scenarios[0].Fields)
	}
}

func TestParseContinuation(t *testing.T) {
	src := "### Scenario S1: x\n" +
		"- **Exit criteria:** first line\n" +
		"  - PASS: a\n" +
		"  - **FAIL:** b\n" +
		"lazy line\n" +
		"\n" +
		"  indented after blank\n" +
		"- **Oracle:** linearizable\n" +
		"\n" +
		"A paragraph after a blank line is prose.\n" +
		"- **Budgets:**\n" +
		"  - Smoke: 1 min\n" +
		"  - **Hardening:** 5 min\n"
	p, _ := Parse("p.md", []byte(src))
	s := p.Scenarios[0]
	want := "first line\n- PASS: a\n- **FAIL:** b\nlazy line\n\nindented after blank"
	if f := s.Field(FieldExit); f == nil || f.Value != want {
		t.Errorf("exit criteria: %q", f.Value)
	}
	if f := s.Field(FieldOracle); f == nil || f.Value != "linearizable" {
		t.Errorf("oracle: %+v", f)
	}
	if s.Budgets.Smoke == nil || s.Budgets.Smoke.Pos.Line != 12 || s.Budgets.Hardening == nil || s.Budgets.Hardening.Duration.Minutes() != 5 {
		t.Errorf("budgets from a Budgets list: %+v", s.Budgets)
	}
}

func TestParseFences(t *testing.T) {
	src := "### Scenario S1: x\n" +
		"- **Skeleton:**\n" +
		"\n" +
		"  ```go\n" +
		"  // - **Oracle:** not a field\n" +
		"  func TestX(t *testing.T) {}\n" +
		"  ```\n" +
		"- **Oracle:** linearizable\n"
	p, ds := Parse("p.md", []byte(src))
	s := p.Scenarios[0]
	sk := s.Field(FieldSkeleton)
	if sk == nil || sk.CodeLang != "go" || sk.Code != "// - **Oracle:** not a field\nfunc TestX(t *testing.T) {}" {
		t.Fatalf("skeleton: %+v", sk)
	}
	if f := s.Field(FieldOracle); f == nil || f.Value != "linearizable" || f.Pos.Line != 8 {
		t.Errorf("oracle after the fence: %+v", f)
	}
	if !slices.Equal(rulesOf(ds), []string{"title"}) {
		t.Errorf("diagnostics: %v", diagStrings(ds))
	}
	p, ds = Parse("p.md", []byte("### Scenario S1: x\n```\n- **Oracle:** hidden\n"))
	if len(p.Scenarios[0].Fields) != 0 || !slices.Contains(rulesOf(ds), "fence-unclosed") || !HasErrors(ds) {
		t.Errorf("unclosed fence: fields %+v, %v", p.Scenarios[0].Fields, rulesOf(ds))
	}
}

func TestParseLineEndingsAndFrontMatter(t *testing.T) {
	src := "\ufeff---\ntitle: x\n---\r\n# Test Plan: crlf\r\n**SUT:** kv\r\n## 7. Scenarios\r\n### Scenario S1: x\r\n- **Oracle:** linearizable\r\n"
	p, _ := Parse("p.md", []byte(src))
	if p.Slug != "crlf" || p.Pos.Line != 4 || p.HeaderValue(HeaderSUT) != "kv" {
		t.Fatalf("slug %q at %v, SUT %q", p.Slug, p.Pos, p.HeaderValue(HeaderSUT))
	}
	if f := p.Scenarios[0].Field(FieldOracle); f == nil || f.Value != "linearizable" || f.Pos.Line != 8 {
		t.Errorf("oracle: %+v", f)
	}
}

func TestParseTitle(t *testing.T) {
	cases := []struct {
		src, path, slug string
		warn            bool
	}{
		{"# Test Plan: kv-ack\n", "x.md", "kv-ack", false},
		{"# Test plan — kv-ack\n", "x.md", "kv-ack", false},
		{"# Test Plan -- kv-ack\n", "x.md", "kv-ack", false},
		{"# Test Plan: KV Ack Durability\n", "x.md", "kv-ack-durability", true},
		{"# KV ack plan\n", "x.md", "kv-ack-plan", true},
		{"no heading\n", "dir/My Plan.md", "my-plan", true},
		{"", "", "plan", true},
		{"# Test Plan:\n", "x.md", "x", true},
	}
	for _, c := range cases {
		p, ds := Parse(c.path, []byte(c.src))
		if p.Slug != c.slug || slices.Contains(rulesOf(ds), "title") != c.warn {
			t.Errorf("%q: slug %q, diagnostics %v", c.src, p.Slug, rulesOf(ds))
		}
	}
}

func TestParseClaimsTable(t *testing.T) {
	src := "## 1b. Claims under test\n" +
		"Category | ID | Claim | Source | Inferred?\n" +
		"--- | --- | --- | --- | ---\n" +
		"Safety / Durability | **C1** | uses `a|b` inside code | docs | no\n" +
		"`performance` (inferred) | C2 | p99 \\| p50 | slo | yes\n" +
		"... | ... | ... | ... | ...\n" +
		"safety | | no id | x | no\n" +
		"correctness and liveness | C3 | x | y | partial — z\n"
	p, ds := Parse("p.md", []byte(src))
	if len(p.Claims) != 3 {
		t.Fatalf("claims: %+v", p.Claims)
	}
	c1, c2, c3 := p.Claims[0], p.Claims[1], p.Claims[2]
	if c1.ID != "C1" || c1.Text != "uses `a|b` inside code" || !slices.Equal(c1.Categories, []verdict.ClaimCategory{verdict.Safety, verdict.Durability}) || c1.Pos.Line != 4 {
		t.Errorf("C1: %+v", c1)
	}
	if c2.Text != "p99 | p50" || !slices.Equal(c2.Categories, []verdict.ClaimCategory{verdict.Performance}) {
		t.Errorf("C2: %+v", c2)
	}
	if !slices.Equal(c3.Categories, []verdict.ClaimCategory{verdict.Liveness}) || !slices.Equal(c3.Unknown, []string{"correctness"}) || c3.Inferred != "partial — z" {
		t.Errorf("C3: %+v", c3)
	}
	if !slices.Equal(rulesOf(ds), []string{"title", "table-row"}) {
		t.Errorf("diagnostics: %v", rulesOf(ds))
	}
}

func TestParseHypotheses(t *testing.T) {
	src := "## 4. Failure-mode hypotheses\n" +
		"H1. **Ack before fsync** — leader crash drops an acked write.\n" +
		"   - Could falsify: C1, C3\n" +
		"   - **Suspected because:** PR #42\n" +
		"   - Subsystem: raft\n" +
		"- H2: Retry storm -- duplicates\n" +
		"  more of the statement\n" +
		"### H3: Heading form\n" +
		"\n" +
		"Other categories are N/A.\n"
	p, _ := Parse("p.md", []byte(src))
	want := []Hypothesis{
		{ID: "H1", Title: "Ack before fsync", Text: "leader crash drops an acked write.", CouldFalsify: []string{"C1", "C3"},
			Suspected: "PR #42", Subsystem: "raft", Pos: Pos{"p.md", 2}},
		{ID: "H2", Title: "Retry storm", Text: "duplicates\nmore of the statement", Pos: Pos{"p.md", 6}},
		{ID: "H3", Title: "Heading form", Pos: Pos{"p.md", 8}},
	}
	if len(p.Hypotheses) != len(want) {
		t.Fatalf("hypotheses: %+v", p.Hypotheses)
	}
	for i, h := range p.Hypotheses {
		w := want[i]
		if h.ID != w.ID || h.Title != w.Title || h.Text != w.Text || !slices.Equal(h.CouldFalsify, w.CouldFalsify) ||
			h.Suspected != w.Suspected || h.Subsystem != w.Subsystem || h.Pos != w.Pos {
			t.Errorf("hypothesis %d:\n got %+v\nwant %+v", i, h, w)
		}
	}
}

func TestParseBlocks(t *testing.T) {
	src := "### Scenario S1: x\n" +
		"- **Oracle:** linearizable\n" +
		"#### 7.M -- Model / history / checker discipline\n" +
		"- **Model under test:** `register` (per key)\n" +
		"- **Checker:** linearizable\n" +
		"- **Workload:** a scenario field inside §7.M goes to the scenario\n" +
		"#### §7.M — again\n" +
		"- **Checker:** second\n" +
		"### Scenario S2: y\n" +
		"- **Checker:** a §7.M field without its heading\n" +
		"- **§7.M: not applicable (no gated claim category falsified) — SLO only**\n"
	p, ds := Parse("p.md", []byte(src))
	s1, s2 := p.Scenarios[0], p.Scenarios[1]
	if s1.Model == nil || s1.Model.Model != "register" || len(s1.Model.Fields) != 2 || s1.Model.Field(FieldChecker).Value != "linearizable" {
		t.Errorf("S1 model: %+v", s1.Model)
	}
	if s1.Field(FieldWorkload) == nil {
		t.Error("S1 workload filed into §7.M")
	}
	if !slices.Equal(rulesOf(ds), []string{"title", "field-duplicate", "field-duplicate"}) {
		t.Errorf("diagnostics: %v", rulesOf(ds))
	}
	if s2.Model == nil || s2.Model.Pos.Line != 10 || s2.ModelNA == nil ||
		s2.ModelNA.Text != "§7.M: not applicable (no gated claim category falsified) — SLO only" {
		t.Errorf("S2: model %+v, na %+v", s2.Model, s2.ModelNA)
	}
}

func TestParseArms(t *testing.T) {
	src := "## 7. Scenarios\n" +
		"### Scenario S2: tenants\n" +
		"- **Oracle:** leaked == 0\n" +
		"#### §7.M.S — Surface decomposition\n" +
		"- **Surfaces:**\n" +
		"  - HTTP API\n" +
		"  - export; admin\n" +
		"- **Scenario arms:** `S2/export`, `S2/api`, `S2/admin`, `S3/foreign`\n" +
		"#### Arm S2/api: api_arm\n" +
		"- **Oracle:** api_leaks == 0\n" +
		"##### §7.M — per arm\n" +
		"- **Checker:** predicate\n" +
		"#### Arm S2/export\n" +
		"#### Arm S2/extra\n" +
		"### Scenario S4/x: implied\n"
	p, _ := Parse("p.md", []byte(src))
	if len(p.Scenarios) != 2 {
		t.Fatalf("scenarios: %d", len(p.Scenarios))
	}
	s := p.Scenarios[0]
	if !slices.Equal(s.Surface.Surfaces, []string{"HTTP API", "export", "admin"}) {
		t.Errorf("surfaces: %q", s.Surface.Surfaces)
	}
	var got []string
	for _, a := range s.Arms {
		got = append(got, a.ID+"/"+map[bool]string{true: "listed", false: "unlisted"}[a.Listed]+"/"+
			map[bool]string{true: "section", false: "none"}[a.Section])
	}
	want := []string{"S2/export/listed/section", "S2/api/listed/section", "S2/admin/listed/none", "S2/extra/unlisted/section"}
	if !slices.Equal(got, want) {
		t.Errorf("arms: %q", got)
	}
	api := s.Arms[1]
	if api.Field(FieldOracle).Value != "api_leaks == 0" || api.Model == nil || s.Model != nil || s.FieldFor(api, FieldOracle) != api.Field(FieldOracle) {
		t.Errorf("api arm: %+v", api)
	}
	if s.FieldFor(s.Arms[0], FieldOracle).Value != "leaked == 0" {
		t.Error("export arm does not inherit the scenario's oracle")
	}
	if admin := s.Arms[2]; admin.Pos.Line != 8 {
		t.Errorf("listed-only arm at %v, want the Scenario arms line", admin.Pos)
	}
	if s4 := p.Scenarios[1]; s4.ID != "S4" || len(s4.Arms) != 1 || s4.Arms[0].Name != "implied" {
		t.Errorf("implied scenario: %+v", s4)
	}
}

func TestParseSectionsTables(t *testing.T) {
	src := "## 6b. Environment requirements\n" +
		"| Requirement | Version floor | Used by scenarios | Install hint |\n" +
		"|---|---|---|---|\n" +
		"| Postgres | 14 | S4, S11/api | brought up by SUT's compose stack |\n" +
		"## 7b. Coverage adequacy argument\n" +
		"| Claim | Threat model | Scenarios | Why these are sufficient |\n" +
		"|:--|:--:|--:|---|\n" +
		"| C1, C2 | x | S1 (a), S2 (b) | y |\n" +
		"## 7c. Residual uncertainty\n" +
		"The plan exercises every claim; the only residual uncertainty is bug density.\n" +
		"## 7d. Confidence statement\n" +
		"First sentence.\n" +
		"\n" +
		"Second paragraph.\n"
	p, _ := Parse("p.md", []byte(src))
	if len(p.EnvRequirements) != 1 || !slices.Equal(p.EnvRequirements[0].UsedBy, []string{"S4", "S11/api"}) || !p.EnvRequirements[0].BySUT {
		t.Errorf("§6b: %+v", p.EnvRequirements)
	}
	if len(p.Coverage) != 1 || !slices.Equal(p.Coverage[0].Claims, []string{"C1", "C2"}) || !slices.Equal(p.Coverage[0].Scenarios, []string{"S1", "S2"}) {
		t.Errorf("§7b: %+v", p.Coverage)
	}
	if p.ResidualNote == nil || p.ResidualNote.Pos.Line != 10 || len(p.Residual) != 0 {
		t.Errorf("§7c: %+v %+v", p.ResidualNote, p.Residual)
	}
	if p.Confidence == nil || p.Confidence.Text != "First sentence.\n\nSecond paragraph." {
		t.Errorf("§7d: %+v", p.Confidence)
	}
}

func TestNilBlocksHaveNoFields(t *testing.T) {
	var m *ModelBlock
	var sb *SurfaceBlock
	if m.Field(FieldChecker) != nil || sb.Field(FieldSurfaces) != nil {
		t.Error("nil blocks returned a field")
	}
}

func TestLoadMissingFile(t *testing.T) {
	_, _, err := Load(filepath.Join(t.TempDir(), "absent.md"))
	if err == nil || !strings.Contains(err.Error(), "absent.md") {
		t.Errorf("want an error naming the file, got %v", err)
	}
}

func TestPosText(t *testing.T) {
	var p Pos
	if err := p.UnmarshalText([]byte(`C:\plans\x.md:12`)); err != nil || p != (Pos{`C:\plans\x.md`, 12}) {
		t.Errorf("got %+v, %v", p, err)
	}
	for _, bad := range []string{"nofile", "x.md:twelve"} {
		if err := p.UnmarshalText([]byte(bad)); err == nil {
			t.Errorf("%q: want an error", bad)
		}
	}
}
