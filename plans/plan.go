// Package plans reads claim-driven test plans written in markdown (the format of
// research/plan-execution-spec.md §1), and lints them: the halt rule that stops a
// run before anything touches a node, plus the checks that keep a plan honest
// (gated claims carry §7.M, boundary and fairness claims carry §7.M.S, every tier
// has a budget, every claim id exists).
//
// Parse is tolerant of the variation real plans show (missing optional sections,
// "--" for a dash, extra prose, bold or plain field labels); Lint is strict about
// what the executor needs. Every element keeps the line it came from, so each
// Diagnostic names file:line, scenario and field.
package plans

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/faultline/faultline/verdict"
)

// Pos is a place in a plan file. Line is 1-based; the zero Pos means "nowhere".
type Pos struct {
	File string
	Line int
}

// String returns "file:line".
func (p Pos) String() string { return p.File + ":" + strconv.Itoa(p.Line) }

// MarshalText writes the position as "file:line", which keeps JSON dumps of a
// plan readable and lets editors jump to it.
func (p Pos) MarshalText() ([]byte, error) { return []byte(p.String()), nil }

// UnmarshalText reads "file:line"; the file part may itself contain colons.
func (p *Pos) UnmarshalText(b []byte) error {
	s := string(b)
	i := strings.LastIndexByte(s, ':')
	if i < 0 {
		return fmt.Errorf("plans: position %q is not file:line", s)
	}
	n, err := strconv.Atoi(s[i+1:])
	if err != nil {
		return fmt.Errorf("plans: position %q: %w", s, err)
	}
	p.File, p.Line = s[:i], n
	return nil
}

// Text is a piece of prose with the line it starts on.
type Text struct {
	Text string `json:"text"`
	Pos  Pos    `json:"pos"`
}

// Plan is one parsed plan file. Slices keep document order.
type Plan struct {
	Title           string           `json:"title"` // the H1 text as written
	Slug            string           `json:"slug"`  // names the session directory
	Pos             Pos              `json:"pos"`   // the H1 line (line 1 when absent)
	Header          []Field          `json:"header"`
	Sections        []Section        `json:"sections"`
	Claims          []Claim          `json:"claims"`
	Hypotheses      []Hypothesis     `json:"hypotheses"`
	EnvRequirements []EnvRequirement `json:"env_requirements"`
	Scenarios       []*Scenario      `json:"scenarios"`
	Coverage        []CoverageRow    `json:"coverage"`
	Residual        []ResidualRow    `json:"residual"`
	ResidualNote    *Text            `json:"residual_note,omitempty"` // §7c prose, e.g. an explicit-empty sentence
	Confidence      *Text            `json:"confidence,omitempty"`    // §7d
}

// Section is an H2 heading: "## 1b. Claims under test" has Number "1b".
// Number is empty for a heading the parser could not place.
type Section struct {
	Number string `json:"number"`
	Title  string `json:"title"`
	Pos    Pos    `json:"pos"`
}

// Claim is one row of §1b.
type Claim struct {
	ID         string                  `json:"id"`
	Text       string                  `json:"text"`
	Category   string                  `json:"category"`   // the cell as written
	Categories []verdict.ClaimCategory `json:"categories"` // the known categories in it
	Unknown    []string                `json:"unknown,omitempty"`
	Source     string                  `json:"source"`
	Inferred   string                  `json:"inferred"`
	Pos        Pos                     `json:"pos"`
}

// Hypothesis is one "H<n>." item of §4.
type Hypothesis struct {
	ID           string   `json:"id"`
	Title        string   `json:"title"`
	Text         string   `json:"text"`
	CouldFalsify []string `json:"could_falsify"`
	Suspected    string   `json:"suspected,omitempty"`
	Subsystem    string   `json:"subsystem,omitempty"`
	Pos          Pos      `json:"pos"`
}

// EnvRequirement is one row of §6b; the capability probe turns a missing one
// into INCONCLUSIVE-env for the scenarios in UsedBy.
type EnvRequirement struct {
	Requirement  string   `json:"requirement"`
	VersionFloor string   `json:"version_floor"`
	UsedByText   string   `json:"used_by_text"`
	UsedBy       []string `json:"used_by"` // scenario and arm ids named in the cell
	InstallHint  string   `json:"install_hint"`
	BySUT        bool     `json:"by_sut"` // "brought up by SUT": nothing for the operator to install
	Pos          Pos      `json:"pos"`
}

// CoverageRow is one row of §7b, the coverage adequacy argument.
type CoverageRow struct {
	ClaimText     string   `json:"claim_text"`
	Claims        []string `json:"claims"`
	Threats       string   `json:"threats"`
	ScenariosText string   `json:"scenarios_text"`
	Scenarios     []string `json:"scenarios"`
	Why           string   `json:"why"`
	Pos           Pos      `json:"pos"`
}

// ResidualRow is one row of §7c.
type ResidualRow struct {
	Uncertainty   string `json:"uncertainty"`
	WhyUncovered  string `json:"why_uncovered"`
	WhyAcceptable string `json:"why_acceptable"`
	Revisit       string `json:"revisit"`
	Pos           Pos    `json:"pos"`
}

// Field is one "- **Label:** value" item. Name is the canonical label when the
// label is known (see the field tables in fields.go) and the label as written
// otherwise. Value keeps continuation lines, joined by "\n"; a fenced block in
// the value is also returned alone in Code.
type Field struct {
	Name     string `json:"name"`
	Value    string `json:"value"`
	Code     string `json:"code,omitempty"`
	CodeLang string `json:"code_lang,omitempty"`
	Known    bool   `json:"known"`
	Pos      Pos    `json:"pos"`
}

// Body is what a scenario and each of its arms carry: §7 fields, the budgets
// read from them, and a §7.M block.
type Body struct {
	Fields  []Field     `json:"fields"`
	Budgets Budgets     `json:"budgets"`
	Model   *ModelBlock `json:"model,omitempty"`
}

// Field returns the field with the given canonical name, or nil.
func (b *Body) Field(name string) *Field {
	return findField(b.Fields, name)
}

// Scenario is one "### Scenario S<n>: name" block of §7.
type Scenario struct {
	ID        string        `json:"id"` // "S1"
	Name      string        `json:"name"`
	Pos       Pos           `json:"pos"`
	Falsifies []string      `json:"falsifies"` // claim ids named in "Falsifies if it FAILs"
	Closes    []string      `json:"closes"`    // ids named in "Closes"
	Gate      Gate          `json:"gate"`
	ModelNA   *Text         `json:"model_na,omitempty"` // the "§7.M: not applicable" line
	Surface   *SurfaceBlock `json:"surface,omitempty"`
	Arms      []*Arm        `json:"arms,omitempty"`
	Body
}

// FieldFor returns arm a's own field name, or the scenario's when the arm does
// not set it (arms inherit what they do not override). a may be nil.
func (s *Scenario) FieldFor(a *Arm, name string) *Field {
	if a != nil {
		if f := a.Field(name); f != nil {
			return f
		}
	}
	return s.Field(name)
}

// Arm is one surface arm "S<n>/<surface>" of a §7.M.S scenario. Each arm runs
// separately and gets its own verdict, so it has its own oracle and §7.M.
type Arm struct {
	ID      string `json:"id"`      // "S5/api"
	Surface string `json:"surface"` // "api"
	Name    string `json:"name"`
	Pos     Pos    `json:"pos"`     // its heading, or the "Scenario arms" field when it has none
	Listed  bool   `json:"listed"`  // named in the "Scenario arms" field
	Section bool   `json:"section"` // has a heading of its own
	Body
}

// Gate says which extra discipline a scenario owes, from the categories of the
// claims it falsifies (spec §1.3).
type Gate struct {
	Categories []verdict.ClaimCategory `json:"categories"`
	Serious    bool                    `json:"serious"` // §7.M mandatory
	Surface    bool                    `json:"surface"` // §7.M.S mandatory
}

// ModelBlock is a "§7.M — Model / history / checker discipline" block.
type ModelBlock struct {
	Pos    Pos     `json:"pos"`
	Fields []Field `json:"fields"`
	Model  string  `json:"model"` // normalised "Model under test": register, map, ..., other(<name>); "" if unknown
}

// Field returns the field with the given canonical name, or nil; a nil block
// (a scenario without §7.M) has no fields.
func (m *ModelBlock) Field(name string) *Field {
	if m == nil {
		return nil
	}
	return findField(m.Fields, name)
}

// SurfaceBlock is a "§7.M.S — Surface decomposition" block.
type SurfaceBlock struct {
	Pos      Pos      `json:"pos"`
	Fields   []Field  `json:"fields"`
	Surfaces []string `json:"surfaces"` // the "Surfaces" field split into items
	ArmIDs   []string `json:"arm_ids"`  // arm ids named in "Scenario arms"
}

// Field returns the field with the given canonical name, or nil; a nil block
// (a scenario without §7.M.S) has no fields.
func (s *SurfaceBlock) Field(name string) *Field {
	if s == nil {
		return nil
	}
	return findField(s.Fields, name)
}

// Budgets holds a scenario's three tiers; a nil tier was not declared.
type Budgets struct {
	Smoke     *Budget `json:"smoke,omitempty"`
	Hardening *Budget `json:"hardening,omitempty"`
	Release   *Budget `json:"release,omitempty"`
}

// Tier returns the budget of tier t, or nil.
func (b *Budgets) Tier(t verdict.Tier) *Budget {
	switch t {
	case verdict.TierSmoke:
		return b.Smoke
	case verdict.TierHardening:
		return b.Hardening
	case verdict.TierRelease:
		return b.Release
	}
	return nil
}

// Budget is one tier's declared size. A zero count or duration means the
// budget does not state it; Faults is nil when unstated because 0 faults is a
// real (smoke) budget.
type Budget struct {
	Tier        verdict.Tier  `json:"tier"`
	Raw         string        `json:"raw"`
	Pos         Pos           `json:"pos"`
	Nodes       int           `json:"nodes,omitempty"`
	Topologies  int           `json:"topologies,omitempty"`
	Duration    time.Duration `json:"duration,omitempty"`
	Faults      *int          `json:"faults,omitempty"`
	Seeds       int           `json:"seeds,omitempty"`
	Ops         int64         `json:"ops,omitempty"`
	Repetitions int           `json:"repetitions,omitempty"`
	NotProvided *Disclosure   `json:"not_provided,omitempty"`
}

// Disclosure is the "not provided — <reason>. Revisit when: <condition>." form
// a tier may take instead of a budget; the report copies it verbatim.
type Disclosure struct {
	Reason      string `json:"reason"`
	RevisitWhen string `json:"revisit_when"`
}

func findField(fs []Field, name string) *Field {
	for i := range fs {
		if fs[i].Name == name {
			return &fs[i]
		}
	}
	return nil
}

// Claim returns the claim with the given id, or nil.
func (p *Plan) Claim(id string) *Claim {
	for i := range p.Claims {
		if p.Claims[i].ID == id {
			return &p.Claims[i]
		}
	}
	return nil
}

// Scenario returns the scenario with the given id ("S1"), or nil.
func (p *Plan) Scenario(id string) *Scenario {
	for _, s := range p.Scenarios {
		if s.ID == id {
			return s
		}
	}
	return nil
}

// HeaderValue returns the value of header field name ("SUT", "Status", ...),
// or "" when the plan does not set it.
func (p *Plan) HeaderValue(name string) string {
	if f := findField(p.Header, name); f != nil {
		return f.Value
	}
	return ""
}

// Section returns the section with the given number ("7b"), or nil.
func (p *Plan) Section(number string) *Section {
	for i := range p.Sections {
		if p.Sections[i].Number == number {
			return &p.Sections[i]
		}
	}
	return nil
}

// Surfaces returns the surfaces the scenario's §7.M.S block lists ("HTTP
// API", "nightly export"), or nil when it has no such block. The verdict's
// single-surface audit reads them: a boundary claim tested on one surface
// says nothing about the others. A nil scenario has none.
func (s *Scenario) Surfaces() []string {
	if s == nil || s.Surface == nil {
		return nil
	}
	return append([]string(nil), s.Surface.Surfaces...)
}

// Surfaces returns the §7.M.S surfaces of the scenario with the given unit
// id: "S1", or an arm's "S1/api", whose scenario's block it reads (each arm
// is one surface of that decomposition). It is nil for an unknown id.
func (p *Plan) Surfaces(id string) []string {
	sid, _, _ := strings.Cut(id, "/")
	return p.Scenario(sid).Surfaces()
}
