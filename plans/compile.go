package plans

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/faultline/faultline/star/dialect"

	"github.com/faultline/faultline/verdict"
)

// CompileOptions says how Compile renders a plan.
type CompileOptions struct {
	// Suite is the load path of the suite file that defines nodes, db and
	// client; "" means "faultline.star", relative to the generated file.
	Suite string
	// Tier, when set, is the only tier whose budget is emitted; it must be
	// declared and provided. Empty emits every declared tier.
	Tier verdict.Tier
	// Source is the plan file's bytes: they give the provenance hash and the
	// fenced ```starlark override blocks the parser does not keep. Without it
	// only override blocks attached to a field are seen.
	Source []byte
}

// CompiledScenario is the Starlark file generated for one scenario or arm.
type CompiledScenario struct {
	ID       string    // "S1", or "S5/api" for an arm
	File     string    // "S1_linearizable_register_under_partition_and_kill.star"
	Source   string    // the file's text
	Mapped   []Mapping // every plan phrase that became Starlark, in mapping order
	Override bool      // a ```starlark block replaced the whole scenario
}

// Mapping records how one plan field (or one phrase of it) became Starlark,
// so a reviewer can check every translation against the plan line.
type Mapping struct {
	Field    string // canonical field name
	PlanLine int
	Text     string // the plan text that was mapped
	Starlark string // what it became
}

// ProvenanceMarker starts the header line every generated file carries; the
// CLI refuses to overwrite a file without it (a hand-written script).
const ProvenanceMarker = "# faultline-compile:"

// Compile turns every scenario of p (every arm, for a scenario with arms)
// into a Starlark file. Text it cannot map is a Diagnostic naming the plan
// line and the vocabulary it expected, never a silent guess: an error for
// the fields the executor needs (workload, oracle, budgets), a warning for
// faults and landing evidence. A unit with errors is still rendered, with
// None for what could not be mapped, so the author sees the whole picture.
func Compile(p *Plan, o CompileOptions) ([]CompiledScenario, []Diagnostic) {
	if o.Suite == "" {
		o.Suite = "faultline.star"
	}
	c := &compiler{p: p, o: o, blocks: starlarkBlocks(o.Source)}
	if len(o.Source) > 0 {
		sum := sha256.Sum256(o.Source)
		c.sha = hex.EncodeToString(sum[:])
	}
	var out []CompiledScenario
	for _, s := range p.Scenarios {
		if s == nil {
			continue
		}
		if len(s.Arms) == 0 {
			out = append(out, c.unit(unit{s: s}))
			continue
		}
		for _, a := range s.Arms {
			out = append(out, c.unit(unit{s: s, a: a}))
		}
	}
	for _, cs := range out {
		c.mustParse(cs)
	}
	sortDiagnostics(c.diags)
	return out, c.diags
}

// mustParse makes a compiled file that is not valid Starlark an error of
// its scenario: compile never writes a file that cannot load and says ok.
func (c *compiler) mustParse(cs CompiledScenario) {
	if err := dialect.Check(cs.File, cs.Source); err != nil {
		line := 0
		if s := c.p.Scenario(strings.SplitN(cs.ID, "/", 2)[0]); s != nil {
			line = s.Pos.Line
		}
		msg := "the compiled scenario is not valid Starlark: " + err.Error()
		fix := "fix the plan text it came from (a ```starlark block, or a value with control characters)"
		c.diags = append(c.diags, Diagnostic{Pos: Pos{File: c.p.Pos.File, Line: line}, Severity: Error, Rule: "compile-unparsable",
			Scenario: cs.ID, Msg: msg, Fix: fix})
	}
}

// compiler holds what every unit of one plan shares.
type compiler struct {
	p      *Plan
	o      CompileOptions
	sha    string
	blocks []codeBlock
	diags  []Diagnostic
}

// kwarg is one argument of the generated scenario(...) call.
type kwarg struct {
	name    string
	expr    string   // may span lines; continuation lines are indented by render
	comment []string // lines written above it, without "# "
}

// draft is a unit being compiled.
type draft struct {
	u      unit
	kwargs []kwarg
	loads  []string // stdlib workload functions used
	mapped []Mapping
}

func (d *draft) set(name, expr string, comment ...string) {
	for i := range d.kwargs {
		if d.kwargs[i].name == name {
			d.kwargs[i] = kwarg{name, expr, comment}
			return
		}
	}
	d.kwargs = append(d.kwargs, kwarg{name, expr, comment})
}

func (d *draft) record(field string, line int, text, star string) {
	d.mapped = append(d.mapped, Mapping{Field: field, PlanLine: line, Text: oneLine(text), Starlark: star})
}

func (d *draft) load(fn string) {
	if !contains(d.loads, fn) {
		d.loads = append(d.loads, fn)
	}
}

// unit compiles one scenario or arm.
func (c *compiler) unit(u unit) CompiledScenario {
	d := &draft{u: u}
	d.set("name", starQuote(ScenarioName(u.id())))
	d.set("description", starQuote(u.name()))
	if len(u.s.Falsifies) > 0 {
		d.set("falsifies", starList(u.s.Falsifies))
	}
	d.set("nodes", "suite.nodes", "how to reach the system under test: "+c.o.Suite)
	d.set("db", "suite.db")
	d.set("client", "suite.client")
	d.set("logs", `getattr(suite, "logs", None)`)
	over := c.overrides(u)
	if dd := c.landingDropped(u, over); dd != nil {
		c.diags = append(c.diags, *dd)
	}
	w := c.workload(d, over)
	c.faults(d, over)
	c.landing(d, over)
	c.checker(d, w, over)
	c.budgets(d, over)
	for _, name := range kwargOrder {
		if b, ok := over.fields[name]; ok {
			d.set(name, b.expr, fmt.Sprintf("override: ```starlark block at plan line %d", b.line))
			d.record("starlark", b.line, b.code, b.expr)
		}
	}
	cs := CompiledScenario{ID: u.id(), File: fileName(u), Mapped: d.mapped}
	if over.whole != nil {
		cs.Override = true
		cs.Source = c.header(u) + "\n" + strings.TrimSpace(over.whole.code) + "\n"
		cs.Mapped = []Mapping{{Field: "starlark", PlanLine: over.whole.line, Text: "whole scenario", Starlark: over.whole.code}}
		return cs
	}
	cs.Source = c.render(d)
	return cs
}

// header is the provenance comment every generated file starts with.
func (c *compiler) header(u unit) string {
	sha := c.sha
	if sha == "" {
		sha = "unknown"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s plan=%s scenario=%s sha256=%s\n", ProvenanceMarker, commentText(c.p.Pos.File), commentText(u.id()), sha)
	fmt.Fprintf(&b, "# Generated from %s, scenario %s (%s) at plan line %d.\n", commentText(c.p.Pos.File), commentText(u.id()), commentText(u.name()), u.pos().Line)
	b.WriteString("# Edit the plan (or a ```starlark block in it) and recompile; edits here are overwritten.\n")
	return b.String()
}

// render writes the file: header, loads, one scenario(...) call.
func (c *compiler) render(d *draft) string {
	var b strings.Builder
	b.WriteString(c.header(d.u))
	b.WriteString("\n")
	fmt.Fprintf(&b, "load(%s, \"suite\")\n", starQuote(c.o.Suite))
	if len(d.loads) > 0 {
		fmt.Fprintf(&b, "load(\"@stdlib//workloads.star\", %s)\n", strings.Join(starQuoteAll(d.loads), ", "))
	}
	b.WriteString("\nscenario(\n")
	slices.SortStableFunc(d.kwargs, func(x, y kwarg) int { return cmp.Compare(kwargRank(x.name), kwargRank(y.name)) })
	for _, k := range d.kwargs {
		for _, line := range k.comment {
			fmt.Fprintf(&b, "    # %s\n", commentText(line))
		}
		fmt.Fprintf(&b, "    %s = %s,\n", k.name, strings.ReplaceAll(k.expr, "\n", "\n    "))
	}
	b.WriteString(")\n")
	return b.String()
}

// kwargRank orders the scenario() arguments: identity first, then kwargOrder.
func kwargRank(name string) int {
	if i := slices.Index([]string{"name", "description", "falsifies"}, name); i >= 0 {
		return i - 3
	}
	return slices.Index(kwargOrder, name)
}

// diag records a compile diagnostic for unit u.
func (c *compiler) diag(sev Severity, u unit, field string, line int, msg, fix string) {
	pos := Pos{File: c.p.Pos.File, Line: line}
	if line == 0 {
		pos = u.pos()
	}
	c.diags = append(c.diags, Diagnostic{Pos: pos, Severity: sev, Rule: "compile-unmapped",
		Scenario: u.id(), Field: field, Msg: msg, Fix: fix})
}

// name is the unit's snake_case name from its heading.
func (u unit) name() string {
	if u.a != nil && u.a.Name != "" {
		return u.a.Name
	}
	return u.s.Name
}

// ScenarioName is the Starlark scenario name of the unit with id: the id with
// an arm's "/" folded to "_" ("S1/api" → "S1_api"), the same folding the
// session's artifact directories use, since the interpreter names a
// directory after a scenario. Verdicts and reports keep the id itself.
func ScenarioName(id string) string { return strings.ReplaceAll(id, "/", "_") }

var unsafeFileRune = regexp.MustCompile(`[^A-Za-z0-9_]+`)

// fileName is "<id>_<name>.star" with the arm's "/" and any other unsafe
// character folded to "_".
func fileName(u unit) string {
	n := unsafeFileRune.ReplaceAllString(u.id()+"_"+u.name(), "_")
	return strings.Trim(n, "_") + ".star"
}

// oneLine collapses whitespace so plan text fits on one comment line.
func oneLine(s string) string { return strings.Join(strings.Fields(plain(s)), " ") }

// cite is the comment above a mapped kwarg: the field, its line, its text.
func cite(field string, line int, text string) string {
	t := oneLine(text)
	if r := []rune(t); len(r) > 110 {
		t = string(r[:110]) + "…"
	}
	return fmt.Sprintf("%s (plan line %d): %s", field, line, t)
}

// starQuote renders s as a Starlark string literal.
// starQuote is s as a Starlark string literal. Every control character is
// escaped and invalid UTF-8 is replaced, so no text from a plan (a file
// name, a heading, a value with \r or NUL) can end the literal or the line.
func starQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range strings.ToValidUTF8(s, "\uFFFD") {
		switch {
		case r == '\\' || r == '"':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r == 0x2028 || r == 0x2029 || r == 0x85:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// commentText is s made safe for one "# ..." line: control characters
// shown as escapes, so a newline in a plan's file name or heading can never
// start a line of code.
func commentText(s string) string {
	q := starQuote(s)
	return strings.NewReplacer(`\"`, `"`, `\\`, `\`).Replace(q[1 : len(q)-1])
}

func starQuoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = starQuote(s)
	}
	return out
}

func starList(ss []string) string { return "[" + strings.Join(starQuoteAll(ss), ", ") + "]" }
