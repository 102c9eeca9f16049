package plans

import (
	"regexp"
	"strings"
)

// A fenced ```starlark block inside a scenario (or arm) is the author's escape
// hatch for what the vocabulary cannot say. A block that is one assignment to
// a scenario() argument ("workload = ...") replaces that argument; any other
// block replaces the whole generated scenario. A block in the scenario's own
// part applies to each of its arms; a block under an arm's heading to that arm.

// codeBlock is one ```starlark block of the plan.
type codeBlock struct {
	line int    // the opening fence
	code string // the block's text, fences dropped
}

// overrideField is a block that sets one scenario() argument.
type overrideField struct {
	codeBlock
	expr string // the right-hand side
}

// overrideSet is what the blocks of one unit override.
type overrideSet struct {
	fields map[string]overrideField // by kwarg name
	whole  *codeBlock
}

// kwargOrder lists the scenario() arguments a block may set, in the order the
// generated call writes them.
var kwargOrder = []string{"nodes", "db", "client", "logs", "workload", "concurrency", "nemesis", "landing", "checker", "final", "budgets"}

// starlarkBlocks finds every ```starlark (or ```star) fenced block in src.
func starlarkBlocks(src []byte) []codeBlock {
	lines, _ := splitLines(src)
	var out []codeBlock
	var cur *codeBlock
	var body []string
	for _, ln := range lines {
		switch {
		case ln.open:
			if l := strings.ToLower(ln.lang); l == "starlark" || l == "star" {
				cur, body = &codeBlock{line: ln.n}, nil
			}
		case ln.close:
			if cur != nil {
				cur.code = dedent(body)
				out = append(out, *cur)
				cur = nil
			}
		case cur != nil:
			body = append(body, ln.text)
		}
	}
	return out
}

// dedent removes the indentation every non-blank line shares (blocks nested
// in a list item are indented).
func dedent(lines []string) string {
	common := -1
	for _, l := range lines {
		if isBlank(l) {
			continue
		}
		if n := len(l) - len(strings.TrimLeft(l, " \t")); common < 0 || n < common {
			common = n
		}
	}
	for i, l := range lines {
		if len(l) >= common && common > 0 {
			lines[i] = l[common:]
		}
	}
	return strings.TrimRight(strings.Join(lines, "\n"), "\n ")
}

// assignRe is a top-level "name = expr" with a scenario() argument name.
var assignRe = regexp.MustCompile(`^([a-z_]+)\s*=\s*`)

// classify splits a block into an argument override or a whole-scenario one.
// A block is an argument override when its only top-level statement (lines
// at column 0 other than comments and closing brackets) assigns a kwarg.
func classify(b codeBlock) (name string, expr string, ok bool) {
	var top []string
	for _, l := range strings.Split(b.code, "\n") {
		if isBlank(l) || l[0] == ' ' || l[0] == '\t' || l[0] == '#' || strings.ContainsAny(l[:1], ")]}") {
			continue
		}
		top = append(top, l)
	}
	if len(top) != 1 {
		return "", "", false
	}
	m := assignRe.FindStringSubmatch(top[0])
	if m == nil || !contains(kwargOrder, m[1]) {
		return "", "", false
	}
	i := strings.Index(b.code, top[0])
	expr = strings.TrimSpace(b.code[i+len(m[0]):])
	return m[1], expr, expr != ""
}

// overrides returns the blocks that apply to u.
func (c *compiler) overrides(u unit) overrideSet {
	set := overrideSet{fields: map[string]overrideField{}}
	for _, b := range c.unitBlocks(u) {
		if name, expr, ok := classify(b); ok {
			set.fields[name] = overrideField{b, expr}
			continue
		}
		set.whole = &b
	}
	return set
}

// unitBlocks lists the blocks inside u's part of the plan, or, without the
// source, the starlark blocks attached to u's fields.
func (c *compiler) unitBlocks(u unit) []codeBlock {
	if len(c.o.Source) == 0 {
		var out []codeBlock
		for _, fs := range [][]Field{u.s.Fields, armFields(u.a)} {
			for _, f := range fs {
				if l := strings.ToLower(f.CodeLang); l == "starlark" || l == "star" {
					out = append(out, codeBlock{line: f.Pos.Line, code: f.Code})
				}
			}
		}
		return out
	}
	start, end := u.s.Pos.Line, c.scenarioEnd(u.s)
	var out []codeBlock
	for _, b := range c.blocks {
		if b.line <= start || b.line >= end {
			continue
		}
		owner := armAt(u.s, b.line)
		if owner == nil || u.a == owner {
			out = append(out, b)
		}
	}
	return out
}

func armFields(a *Arm) []Field {
	if a == nil {
		return nil
	}
	return a.Fields
}

// scenarioEnd is the line where the next scenario or section starts.
func (c *compiler) scenarioEnd(s *Scenario) int {
	end := int(^uint(0) >> 1)
	for _, o := range c.p.Scenarios {
		if o != nil && o.Pos.Line > s.Pos.Line {
			end = min(end, o.Pos.Line)
		}
	}
	for _, sec := range c.p.Sections {
		if sec.Pos.Line > s.Pos.Line {
			end = min(end, sec.Pos.Line)
		}
	}
	return end
}

// armAt returns the arm whose own section holds line, or nil for the
// scenario's shared part.
func armAt(s *Scenario, line int) *Arm {
	var owner *Arm
	for _, a := range s.Arms {
		if a.Section && a.Pos.Line < line && (owner == nil || a.Pos.Line > owner.Pos.Line) {
			owner = a
		}
	}
	return owner
}
