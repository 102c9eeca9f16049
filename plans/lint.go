package plans

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/faultline/faultline/verdict"
)

// Lint checks a parsed plan: the halt rule (every scenario and arm has an
// Oracle a machine can check and Exit criteria), §7.M for gated claims, §7.M.S
// for boundary and fairness claims, budgets for every tier, claim ids that
// exist, and warnings for weaker defects. Run it on Parse's result and report
// both lists; HasErrors on either means the run must not start. A nil plan
// lints as an empty one.
func Lint(p *Plan) []Diagnostic { return lint(p, nil) }

// lint is Lint with the plan's source, when there is one, so that the
// ```starlark blocks of a scenario are found as the compiler finds them
// (without it, only blocks inside a field are seen).
func lint(p *Plan, src []byte) []Diagnostic {
	l := &linter{p: withoutNils(p)}
	l.blocks = &compiler{p: l.p, o: CompileOptions{Source: src}, blocks: starlarkBlocks(src)}
	l.header()
	l.sections()
	l.claims()
	l.scenarios()
	l.references()
	l.landing()
	sortDiagnostics(l.diags)
	return l.diags
}

// landing checks what the ```starlark blocks do to each unit as the
// compiler will see them: declared landing evidence a whole-scenario block
// would drop (landing-dropped).
func (l *linter) landing() {
	c := l.blocks
	for _, s := range l.p.Scenarios {
		units := []unit{{s: s}}
		if len(s.Arms) > 0 {
			units = units[:0]
			for _, a := range s.Arms {
				units = append(units, unit{s: s, a: a})
			}
		}
		for _, u := range units {
			if d := c.landingDropped(u, c.overrides(u)); d != nil {
				l.diags = append(l.diags, *d)
			}
		}
	}
}

// withoutNils returns p with nil scenarios and arms dropped, so a plan built
// by hand cannot make Lint panic; p itself is left as it is.
func withoutNils(p *Plan) *Plan {
	if p == nil {
		return &Plan{}
	}
	q := *p
	q.Scenarios = nil
	for _, s := range p.Scenarios {
		if s == nil {
			continue
		}
		c := *s
		c.Arms = nil
		for _, a := range s.Arms {
			if a != nil {
				c.Arms = append(c.Arms, a)
			}
		}
		q.Scenarios = append(q.Scenarios, &c)
	}
	return &q
}

type linter struct {
	p     *Plan
	diags []Diagnostic
	// blocks finds each unit's ```starlark overrides, as the compiler does.
	blocks *compiler
}

func (l *linter) report(rule string, pos Pos, unit, field, msg, fix string) {
	l.diags = append(l.diags, newDiag(rule, pos, unit, field, msg, fix))
}

var (
	dateRe  = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)
	snakeRe = regexp.MustCompile(`^[a-z0-9]+(?:_[a-z0-9]+)*$`)
)

// headerEnums are the header fields whose value must be one of a few words.
var headerEnums = []struct {
	field  string
	values []string
}{
	{HeaderMode, []string{"change-scoped", "project-wide"}},
	{HeaderStatus, []string{"draft", "reviewed", "executed"}},
}

func (l *linter) header() {
	for _, name := range []string{HeaderDate, HeaderMode, HeaderSUT, HeaderChange, HeaderAuthor, HeaderStatus} {
		if findField(l.p.Header, name) == nil {
			l.report("header", l.p.Pos, "", name, "header field is missing",
				fmt.Sprintf("add `**%s:** ...` under the H1", name))
		}
	}
	if f := findField(l.p.Header, HeaderDate); f != nil && !dateRe.MatchString(plain(f.Value)) {
		l.report("header", f.Pos, "", f.Name, "date "+quote(f.Value)+" is not YYYY-MM-DD", "write the date as 2026-07-01")
	}
	for _, e := range headerEnums {
		f := findField(l.p.Header, e.field)
		if f != nil && !contains(e.values, strings.ToLower(plain(f.Value))) {
			l.report("header", f.Pos, "", f.Name, quote(f.Value)+" is not one of "+strings.Join(e.values, ", "),
				"pick one of "+strings.Join(e.values, ", "))
		}
	}
}

// recommendedSections are the sections the report and coverage summary read.
var recommendedSections = []struct{ number, title string }{
	{"4", "Failure-mode hypotheses"}, {"6b", "Environment requirements"},
	{"7b", "Coverage adequacy argument"}, {"7c", "Residual uncertainty"}, {"7d", "Confidence statement"},
}

func (l *linter) sections() {
	p := l.p
	if len(p.Claims) == 0 {
		pos := p.Pos
		if s := p.Section("1b"); s != nil {
			pos = s.Pos
		}
		l.report("claims-missing", pos, "", "§1b", "the plan declares no claim, so no scenario can falsify one",
			"add `## 1b. Claims under test` with a `| ID | Claim | Category | Source | Inferred? |` table")
	}
	if len(p.Scenarios) == 0 {
		pos := p.Pos
		if s := p.Section("7"); s != nil {
			pos = s.Pos
		}
		l.report("scenarios-missing", pos, "", "§7", "the plan declares no scenario; there is nothing to run",
			"add `## 7. Scenarios` with `### Scenario S1: <claim_it_falsifies>` blocks")
	}
	for _, r := range recommendedSections {
		if p.Section(r.number) == nil {
			l.report("section-missing", p.Pos, "", "§"+r.number, "section `## "+r.number+". "+r.title+"` is absent",
				"add it; write an explicit-empty sentence if there is nothing to say")
		}
	}
	if s := p.Section("7c"); s != nil && len(p.Residual) == 0 && p.ResidualNote == nil {
		l.report("section-missing", s.Pos, "", "§7c", "§7c is empty", "list residual uncertainty, or state explicitly that there is none")
	}
	if s := p.Section("7d"); s != nil && (p.Confidence == nil || strings.TrimSpace(p.Confidence.Text) == "") {
		l.report("section-missing", s.Pos, "", "§7d", "§7d is empty", "write the 4–8 sentence confidence statement")
	}
}

func (l *linter) claims() {
	seen := map[string]bool{}
	for _, c := range l.p.Claims {
		if seen[c.ID] {
			l.report("id-duplicate", c.Pos, "", "§1b", "claim "+c.ID+" is declared twice", "give each claim its own id")
		}
		seen[c.ID] = true
		switch {
		case len(c.Unknown) > 0:
			l.report("category-unknown", c.Pos, "", "§1b", fmt.Sprintf("claim %s has category %q, which is not a claim category; gating cannot be decided",
				c.ID, strings.Join(c.Unknown, ", ")), "use "+verdict.CategoryNames()+", joined by /")
		case len(c.Categories) == 0:
			l.report("category-unknown", c.Pos, "", "§1b", "claim "+c.ID+" has no category; gating cannot be decided",
				"fill the Category cell with "+verdict.CategoryNames())
		}
	}
}

func (l *linter) scenarios() {
	seen := map[string]bool{}
	for _, s := range l.p.Scenarios {
		if seen[s.ID] {
			l.report("id-duplicate", s.Pos, s.ID, "", "scenario "+s.ID+" is declared twice", "renumber one of them")
		}
		seen[s.ID] = true
		l.scenario(s)
	}
}

// references checks ids that point across sections.
func (l *linter) references() {
	p := l.p
	hyps := map[string]bool{}
	for _, h := range p.Hypotheses {
		hyps[h.ID] = true
		for _, id := range h.CouldFalsify {
			if p.Claim(id) == nil {
				l.report("ref-unknown", h.Pos, "", "§4 "+h.ID, "claim "+id+" is not declared in §1b", "fix the id or add the claim")
			}
		}
	}
	if len(hyps) > 0 {
		for _, s := range p.Scenarios {
			for _, id := range s.Closes {
				if !hyps[id] {
					l.report("ref-unknown", fieldPos(s.Field(FieldCloses), s.Pos), s.ID, FieldCloses, "hypothesis "+id+" is not declared in §4",
						"fix the id or add the hypothesis")
				}
			}
		}
	}
	for _, e := range p.EnvRequirements {
		for _, id := range e.UsedBy {
			if !l.unitExists(id) {
				l.report("ref-unknown", e.Pos, "", "§6b", "scenario "+id+" does not exist", "fix the Used by scenarios cell")
			}
		}
	}
	for _, c := range p.Coverage {
		for _, id := range c.Claims {
			if p.Claim(id) == nil {
				l.report("ref-unknown", c.Pos, "", "§7b", "claim "+id+" is not declared in §1b", "fix the Claim cell")
			}
		}
		for _, id := range c.Scenarios {
			if !l.unitExists(id) {
				l.report("ref-unknown", c.Pos, "", "§7b", "scenario "+id+" does not exist", "fix the Scenarios cell")
			}
		}
	}
	l.uncovered()
}

func (l *linter) unitExists(id string) bool {
	base, _, isArm := strings.Cut(id, "/")
	s := l.p.Scenario(base)
	return s != nil && (!isArm || s.arm(id) != nil)
}

// uncovered warns about claims no scenario falsifies unless §7c names them.
func (l *linter) uncovered() {
	p := l.p
	covered := map[string]bool{}
	for _, s := range p.Scenarios {
		for _, id := range s.Falsifies {
			covered[id] = true
		}
	}
	var residual strings.Builder
	for _, r := range p.Residual {
		residual.WriteString(r.Uncertainty + " " + r.WhyUncovered + "\n")
	}
	if p.ResidualNote != nil {
		residual.WriteString(p.ResidualNote.Text)
	}
	for _, c := range p.Claims {
		if !covered[c.ID] && !hasWord(residual.String(), c.ID) {
			l.report("claim-uncovered", c.Pos, "", "§1b", "no scenario falsifies claim "+c.ID+" and §7c does not say why",
				"add a scenario, or a §7c row explaining why "+c.ID+" is left uncovered")
		}
	}
}
