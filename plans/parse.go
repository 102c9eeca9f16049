package plans

import (
	"regexp"
	"strings"
)

// Parse reads a plan. It never fails and never panics: what it cannot place
// becomes a diagnostic, and the Plan holds everything it could read. path is
// only used for positions and as the slug of last resort.
func Parse(path string, src []byte) (*Plan, []Diagnostic) {
	lines, unclosed := splitLines(src)
	ps := &parser{path: path, lines: lines, plan: &Plan{}, hyp: -1}
	if unclosed > 0 {
		ps.diag("fence-unclosed", unclosed, "", "", "code fence is never closed; everything after it is read as code",
			"close the block with a matching ``` line")
	}
	for i := 0; i < len(ps.lines); i++ {
		i = ps.line(i)
	}
	ps.finish()
	sortDiagnostics(ps.diags)
	return ps.plan, ps.diags
}

// block says which §7 sub-block field items go to.
type block int

const (
	inBody    block = iota // the scenario's (or arm's) own fields
	inModel                // a §7.M block
	inSurface              // a §7.M.S block
)

// parser is the state of one pass over the lines.
type parser struct {
	path  string
	lines []line
	plan  *Plan
	diags []Diagnostic

	section   string // number of the current H2 section, "" before the first
	seenH2    bool
	scen      *Scenario
	scenLevel int
	arm       *Arm
	armLevel  int
	block     block
	blank     bool // the previous line was blank

	field   *fieldRef // the open field, for continuation lines
	hyp     int       // index of the open hypothesis, -1 when none
	hypRaw  []string  // "Could falsify" text per hypothesis, resolved in finish
	prose   *Text     // the §7c/§7d prose being collected
	proseAt string    // the section prose belongs to
}

// fieldRef names a field by list and index, so appends to the list never
// leave it dangling.
type fieldRef struct {
	list   *[]Field
	i      int
	indent int  // indentation of the field's own item
	inCode bool // inside the field's first fenced block
}

func (r *fieldRef) get() *Field { return &(*r.list)[r.i] }

func (ps *parser) pos(n int) Pos { return Pos{File: ps.path, Line: n} }

func (ps *parser) diag(rule string, n int, unit, field, msg, fix string) {
	ps.diags = append(ps.diags, newDiag(rule, ps.pos(n), unit, field, msg, fix))
}

// line handles lines[i] and returns the index of the last line it consumed.
func (ps *parser) line(i int) int {
	ln := ps.lines[i]
	if ln.skip {
		ps.fenced(ln)
		ps.blank = false
		return i
	}
	if isBlank(ln.text) {
		ps.blank = true
		return i
	}
	defer func() { ps.blank = false }()
	if lvl, text, ok := heading(ln.text); ok {
		ps.closeField()
		ps.heading(ln.n, lvl, text)
		return i
	}
	if t, next, ok := tableAt(ps.lines, i); ok {
		ps.closeField()
		ps.table(t)
		return next - 1
	}
	if ps.modelNA(ln.n, ln.text) {
		ps.closeField()
		return i
	}
	if ps.continues(ln) {
		return i
	}
	ps.closeField()
	ps.item(ln)
	return i
}

// fenced handles a line inside or delimiting a fenced block: it belongs to the
// open field (a Skeleton, an Exit criteria with a code sample) or to nothing.
// The first block of a field is also kept alone in Code.
func (ps *parser) fenced(ln line) {
	r := ps.field
	if r == nil {
		return
	}
	f := r.get()
	text := trimIndent(ln.text, r.indent+2)
	f.Value = joinLine(f.Value, text, ps.blank)
	switch {
	case ln.open:
		r.inCode = f.Code == "" && f.CodeLang == ""
		if r.inCode {
			f.CodeLang = ln.lang
		}
	case ln.close:
		r.inCode = false
	case r.inCode:
		f.Code = joinLine(f.Code, text, false)
	}
}

// joinLine appends a line to a multi-line value, keeping one empty line where
// the source had a paragraph break.
func joinLine(v, s string, para bool) string {
	switch {
	case v == "":
		return s
	case para:
		return v + "\n\n" + s
	}
	return v + "\n" + s
}

// trimIndent removes up to n columns of leading spaces.
func trimIndent(s string, n int) string {
	i := 0
	for i < len(s) && i < n && s[i] == ' ' {
		i++
	}
	return s[i:]
}

var (
	h1Re      = regexp.MustCompile(`(?i)^test\s+plan\s*(?::|—|–|--|-)\s*(.*)$`)
	sectionRe = regexp.MustCompile(`(?i)^§?\s*(\d{1,2}[a-z]?)(?:[.):]|\s|$)\s*(.*)$`)
	// scenarioRe matches "Scenario S1: name", "S1 — name", "Scenario 3 - name",
	// "Arm S5/api: name" and "Scenario S5/api".
	scenarioRe     = regexp.MustCompile(`(?i)^(scenario\s+(?:arm\s+)?|arm\s+)?(s)?(\d+)(/[a-z0-9_-]+)?(?:\s*(?:—|–|--|[:.)-])\s*|\s+|$)(.*)$`)
	scenarioWordRe = regexp.MustCompile(`(?i)^scenario\b`)
	modelRe        = regexp.MustCompile(`(?i)^§?\s*7\.m(\.s)?\b\s*(?:—|–|--|[:.-])?\s*(.*)$`)
	naRe           = regexp.MustCompile(`(?i)^not\s+applicable\b`)
)

// sectionTitles places H2 headings written without their number.
var sectionTitles = []struct{ prefix, number string }{
	{"architectural summary", "0"}, {"scope", "1"}, {"claims under test", "1b"}, {"claims", "1b"},
	{"missing claims", "1c"}, {"sut model", "2"}, {"existing test inventory", "3"},
	{"failure-mode hypotheses", "4"}, {"failure mode hypotheses", "4"}, {"hypotheses", "4"},
	{"coverage matrix", "5"}, {"technique selection", "6"}, {"environment requirements", "6b"},
	{"scenarios", "7"}, {"coverage adequacy", "7b"}, {"residual uncertainty", "7c"},
	{"confidence statement", "7d"}, {"what this plan does not cover", "8"}, {"open questions", "9"},
}

func (ps *parser) heading(n, level int, text string) {
	t := plain(text)
	if m := modelRe.FindStringSubmatch(t); m != nil && level > 1 {
		ps.modelHeading(n, m[1] != "", m[2], text)
		return
	}
	if m := scenarioRe.FindStringSubmatch(t); m != nil && level > 1 && (m[1] != "" || m[2] != "") {
		ps.scenarioHeading(n, level, "S"+m[3], strings.TrimPrefix(m[4], "/"), strings.TrimSpace(m[5]))
		return
	}
	if level > 2 && scenarioWordRe.MatchString(t) {
		ps.endScenario()
		ps.diag("scenario-id", n, "", "", "scenario heading "+quote(t)+" has no S<n> id; its fields are not read",
			"write it as `### Scenario S<n>: <claim_it_falsifies>`")
		return
	}
	switch {
	case level == 1:
		if ps.plan.Title == "" {
			ps.title(n, t)
		}
	case level == 2:
		ps.endScenario()
		ps.newSection(n, t)
	default:
		switch {
		case ps.scen != nil && level <= ps.scenLevel:
			ps.endScenario()
		case ps.arm != nil && level <= ps.armLevel:
			ps.arm, ps.block = nil, inBody
		case ps.scen != nil:
			ps.block = inBody // "#### Notes" ends a §7.M block
		case ps.section == "4":
			ps.item(line{n: n, text: t})
		}
	}
}

func (ps *parser) title(n int, t string) {
	p := ps.plan
	p.Title, p.Pos = t, ps.pos(n)
	if m := h1Re.FindStringSubmatch(t); m != nil {
		p.Slug = slugify(m[1])
		if p.Slug != "" && p.Slug != strings.TrimSpace(m[1]) {
			ps.diag("title", n, "", "", "plan slug "+quote(m[1])+" is not a plain slug; using "+quote(p.Slug),
				"write the H1 as `# Test Plan: "+p.Slug+"`")
		}
		return
	}
	p.Slug = slugify(t)
	ps.diag("title", n, "", "", "H1 is not `# Test Plan: <slug>`; using slug "+quote(p.Slug),
		"write the H1 as `# Test Plan: "+p.Slug+"`")
}

// slugify lowers s and turns every run of characters outside [a-z0-9._-] into "-".
func slugify(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(plain(s)) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-' {
			b.WriteRune(r)
			dash = false
		} else if !dash {
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.Trim(b.String(), "-.")
}

func quote(s string) string { return "\"" + s + "\"" }

func (ps *parser) newSection(n int, t string) {
	ps.seenH2 = true
	ps.hyp, ps.prose = -1, nil
	sec := Section{Title: t, Pos: ps.pos(n)}
	if m := sectionRe.FindStringSubmatch(t); m != nil {
		sec.Number, sec.Title = strings.ToLower(m[1]), strings.TrimSpace(m[2])
	} else {
		low := normLabel(t)
		for _, st := range sectionTitles {
			if strings.HasPrefix(low, st.prefix) {
				sec.Number = st.number
				break
			}
		}
	}
	ps.section = sec.Number
	ps.plan.Sections = append(ps.plan.Sections, sec)
}

func (ps *parser) endScenario() {
	ps.scen, ps.arm, ps.block = nil, nil, inBody
}

func (ps *parser) scenarioHeading(n, level int, id, surface, name string) {
	ps.hyp, ps.prose = -1, nil
	if surface == "" {
		ps.scen = &Scenario{ID: id, Name: name, Pos: ps.pos(n)}
		ps.plan.Scenarios = append(ps.plan.Scenarios, ps.scen)
		ps.scenLevel, ps.arm, ps.block = level, nil, inBody
		return
	}
	// An arm heading: it belongs to its scenario wherever that is, and
	// implies the scenario when the plan writes arms only.
	if ps.scen == nil || ps.scen.ID != id {
		ps.scen = ps.plan.Scenario(id)
		if ps.scen == nil {
			ps.scen = &Scenario{ID: id, Pos: ps.pos(n)}
			ps.plan.Scenarios = append(ps.plan.Scenarios, ps.scen)
		}
		ps.scenLevel = level
	}
	armID := id + "/" + surface
	a := ps.scen.arm(armID)
	switch {
	case a == nil:
		a = &Arm{ID: armID, Surface: surface}
		ps.scen.Arms = append(ps.scen.Arms, a)
	case a.Section:
		ps.diag("id-duplicate", n, armID, "", "arm "+armID+" is declared twice", "give each arm one section")
	}
	a.Name, a.Pos, a.Section = name, ps.pos(n), true
	ps.arm, ps.armLevel, ps.block = a, level, inBody
}

// arm returns the arm with the given id, or nil.
func (s *Scenario) arm(id string) *Arm {
	for _, a := range s.Arms {
		if a.ID == id {
			return a
		}
	}
	return nil
}

// modelHeading handles "§7.M — ...", "§7.M.S — ..." and "§7.M: not applicable".
func (ps *parser) modelHeading(n int, surface bool, rest, raw string) {
	if ps.scen == nil {
		ps.diag("orphan", n, "", "", "§7.M block outside any scenario is ignored",
			"put it under its `### Scenario S<n>: ...` heading")
		return
	}
	if !surface && naRe.MatchString(rest) {
		ps.setNA(n, raw)
		return
	}
	if surface {
		ps.arm = nil // §7.M.S belongs to the scenario, not to an arm
		if ps.scen.Surface != nil {
			ps.diag("field-duplicate", n, ps.scen.ID, "§7.M.S",
				"second §7.M.S block; its fields join the first", "merge the blocks")
		} else {
			ps.scen.Surface = &SurfaceBlock{Pos: ps.pos(n)}
		}
		ps.block = inSurface
		return
	}
	if b := ps.body(); b.Model != nil {
		ps.diag("field-duplicate", n, ps.unitID(), "§7.M",
			"second §7.M block; its fields join the first", "merge the blocks")
	} else {
		b.Model = &ModelBlock{Pos: ps.pos(n)}
	}
	ps.block = inModel
}

// modelNA recognises the literal "§7.M: not applicable (...)" line (matched by
// prefix, in a list item, bold or not).
func (ps *parser) modelNA(n int, text string) bool {
	if !strings.Contains(text, "7.M") && !strings.Contains(text, "7.m") {
		return false
	}
	if _, body, ok := listItem(text); ok {
		text = body
	}
	m := modelRe.FindStringSubmatch(plain(text))
	if m == nil || m[1] != "" || !naRe.MatchString(m[2]) {
		return false
	}
	if ps.scen == nil {
		ps.diag("orphan", n, "", "", "§7.M line outside any scenario is ignored",
			"put it under its `### Scenario S<n>: ...` heading")
		return true
	}
	ps.setNA(n, text)
	return true
}

func (ps *parser) setNA(n int, text string) {
	if ps.scen.ModelNA == nil {
		ps.scen.ModelNA = &Text{Text: strings.TrimSpace(plain(text)), Pos: ps.pos(n)}
	}
	ps.block = inBody
}

// body is the scenario or arm that fields and §7.M blocks attach to now.
func (ps *parser) body() *Body {
	if ps.arm != nil {
		return &ps.arm.Body
	}
	return &ps.scen.Body
}

func (ps *parser) unitID() string {
	if ps.arm != nil {
		return ps.arm.ID
	}
	return ps.scen.ID
}
