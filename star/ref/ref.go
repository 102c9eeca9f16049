// Package ref generates faultline's Starlark reference, docs/starlark.md,
// from the doc registry the adapters and the interpreter fill (package
// star) and from the standard library's source: each public def's
// parameters and defaults come from its AST, its text from its docstring.
// `go test ./star/ref -run TestReference -update` rewrites the file.
package ref

import (
	"bytes"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
	"unicode"

	"go.starlark.net/syntax"

	"github.com/faultline/faultline/interp"
	"github.com/faultline/faultline/star"
	_ "github.com/faultline/faultline/star/all" // every module's registrations and docs
	"github.com/faultline/faultline/star/dialect"
	"github.com/faultline/faultline/stdlib"
)

// Predeclared returns the names every script sees, as the interpreter
// predeclares them (interp.Predeclared).
func Predeclared() map[string]any {
	out := map[string]any{}
	for k, v := range interp.Predeclared() {
		out[k] = v
	}
	return out
}

// StdlibFile is one .star file of the standard library as the reference
// shows it.
type StdlibFile struct {
	Path  string // as load() names it: "@stdlib//db/sql.star"
	Doc   string // the module docstring
	Funcs []StdlibFunc
}

// StdlibFunc is one public def of a stdlib file.
type StdlibFunc struct {
	Name   string
	Line   int
	Params []star.Param // Default is the default's source text
	Doc    string       // the docstring, dedented; "" when it has none
}

// Stdlib parses every file of the embedded standard library, in path
// order.
func Stdlib() ([]StdlibFile, error) {
	var paths []string
	err := fs.WalkDir(stdlib.FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".star") {
			paths = append(paths, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("stdlib: %w", err)
	}
	sort.Strings(paths)
	var out []StdlibFile
	for _, p := range paths {
		src, err := fs.ReadFile(stdlib.FS, p)
		if err != nil {
			return nil, fmt.Errorf("stdlib %s: %w", p, err)
		}
		f, err := ParseStdlib("@stdlib//"+p, src)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

// ParseStdlib reads one stdlib file's docstring and public defs.
func ParseStdlib(name string, src []byte) (StdlibFile, error) {
	f, err := dialect.Options.Parse(name, src, 0)
	if err != nil {
		return StdlibFile{}, fmt.Errorf("parse %s: %w", name, err)
	}
	out := StdlibFile{Path: name, Doc: docstring(f.Stmts)}
	lines := strings.Split(string(src), "\n")
	for _, st := range f.Stmts {
		def, ok := st.(*syntax.DefStmt)
		if !ok || strings.HasPrefix(def.Name.Name, "_") {
			continue
		}
		fn := StdlibFunc{Name: def.Name.Name, Line: int(def.Def.Line), Doc: docstring(def.Body)}
		for _, p := range def.Params {
			switch p := p.(type) {
			case *syntax.Ident:
				fn.Params = append(fn.Params, star.Param{Name: p.Name})
			case *syntax.BinaryExpr: // name = default
				fn.Params = append(fn.Params, star.Param{Name: p.X.(*syntax.Ident).Name, Default: sourceOf(lines, p.Y)})
			case *syntax.UnaryExpr: // *, *args, **kwargs
				n := p.Op.String()
				if id, ok := p.X.(*syntax.Ident); ok {
					n += id.Name
				}
				fn.Params = append(fn.Params, star.Param{Name: n})
			}
		}
		out.Funcs = append(out.Funcs, fn)
	}
	return out, nil
}

// docstring is the text of the string literal that opens stmts, dedented
// as Python's inspect.cleandoc does; "" when there is none.
func docstring(stmts []syntax.Stmt) string {
	if len(stmts) == 0 {
		return ""
	}
	e, ok := stmts[0].(*syntax.ExprStmt)
	if !ok {
		return ""
	}
	lit, ok := e.X.(*syntax.Literal)
	if !ok || lit.Token != syntax.STRING {
		return ""
	}
	s, _ := lit.Value.(string)
	ls := strings.Split(strings.ReplaceAll(s, "\t", "    "), "\n")
	indent := -1
	for _, l := range ls[1:] {
		if strings.TrimSpace(l) == "" {
			continue
		}
		n := len(l) - len(strings.TrimLeft(l, " "))
		if indent < 0 || n < indent {
			indent = n
		}
	}
	ls[0] = strings.TrimSpace(ls[0])
	for i := 1; i < len(ls); i++ {
		if len(ls[i]) >= indent && indent > 0 {
			ls[i] = ls[i][indent:]
		}
		ls[i] = strings.TrimRight(ls[i], " ")
	}
	return strings.Trim(strings.Join(ls, "\n"), "\n")
}

// sourceOf is the source text of e, whitespace runs folded to one space
// when it spans lines.
func sourceOf(lines []string, e syntax.Expr) string {
	start, end := e.Span()
	var b strings.Builder
	for ln := start.Line; ln <= end.Line; ln++ {
		r := []rune(lines[ln-1])
		from, to := 0, len(r)
		if ln == start.Line {
			from = int(start.Col) - 1
		}
		if ln == end.Line {
			to = int(end.Col) - 1
		}
		if ln > start.Line {
			b.WriteByte(' ')
		}
		b.WriteString(strings.TrimSpace(string(r[from:to])))
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

// Signature is the call line of fn as a script writes it: prefix.name(a,
// b = 1, ...), with "/" after positional-only parameters and <...> round
// a default computed at run time.
func Signature(prefix string, fn star.FuncDoc) string {
	if fn.Signature != "" {
		return fn.Signature
	}
	parts := make([]string, 0, len(fn.Params)+1)
	lastPos := -1
	for i, p := range fn.Params {
		if p.Positional {
			lastPos = i
		}
	}
	for i, p := range fn.Params {
		s := p.Name
		if p.Default != "" {
			d := p.Default
			if strings.HasPrefix(d, "(") && strings.HasSuffix(d, ")") {
				d = "<" + d[1:len(d)-1] + ">"
			}
			s += " = " + d
		}
		parts = append(parts, s)
		if i == lastPos {
			parts = append(parts, "/")
		}
	}
	return prefix + fn.Name + "(" + strings.Join(parts, ", ") + ")"
}

// Markdown renders the whole reference.
func Markdown() ([]byte, error) {
	files, err := Stdlib()
	if err != nil {
		return nil, err
	}
	mods := star.ModuleDocs()
	types := star.TypeDocs()
	var b bytes.Buffer
	w := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	w("# Starlark reference\n\n")
	w("<!-- Generated from the registrations by star/ref: edit the doc tables (star/<module>/doc.go, interp/doc.go) or the stdlib's docstrings, then run `go test ./star/ref -run TestReference -update`. -->\n\n")
	w("Every name a faultline script can use: the predeclared functions, each module, the values their builtins return, ")
	w("and the standard library loaded as `@stdlib//...`. Signatures are written as a script calls them: `name = default` ")
	w("marks an optional argument, `/` ends the arguments that may only be given by position, `*args` takes any number of ")
	w("positional arguments, and `<...>` is a default computed at run time. Durations are strings such as `\"5s\"` or ")
	w("`\"250ms\"`, or numbers of seconds. Tests hold this file to the code: every member documented, every documented ")
	w("keyword accepted, every other one refused.\n\n")

	w("## Contents\n\n")
	for _, m := range mods {
		w("- [%s](#%s)\n", moduleTitle(m.Module), slug(moduleTitle(m.Module)))
	}
	w("- [Value types](#value-types)\n")
	for _, t := range types {
		w("  - [%s](#%s)\n", typeTitle(t), slug(typeTitle(t)))
	}
	w("- [Standard library](#standard-library)\n")
	for _, f := range files {
		w("  - [%s](#%s)\n", f.Path, slug(f.Path))
	}
	w("\n")

	for _, m := range mods {
		w("## %s\n\n", moduleTitle(m.Module))
		if m.Summary != "" {
			w("%s\n\n", m.Summary)
		}
		if m.Doc != "" {
			w("%s\n\n", m.Doc)
		}
		if m.Upstream != "" {
			w("Taken from starlark-go; the full reference is its source, [%s](%s).\n\n", path.Base(m.Upstream), m.Upstream)
		}
		prefix := ""
		if m.Module != "" {
			prefix = m.Module + "."
		}
		for _, fn := range m.Funcs {
			writeFunc(&b, "###", prefix+fn.Name, Signature(prefix, fn), fn)
		}
		if len(m.Constants) > 0 {
			w("### Constants of %s\n\n| Name | Meaning |\n|---|---|\n", m.Module)
			for _, c := range m.Constants {
				w("| `%s.%s` | %s |\n", m.Module, c.Name, cell(c.Doc))
			}
			w("\n")
		}
	}

	w("## Value types\n\n")
	w("What builtins return. Opaque values (no attributes) are passed on to other builtins or to `scenario`.\n\n")
	for _, t := range types {
		w("### %s\n\n%s\n\n", typeTitle(t), t.Summary)
		if t.Type != t.Name {
			w("`type()` says `%s`. ", t.Type)
		}
		if t.From != "" {
			w("Made by: %s.\n\n", t.From)
		}
		if t.Doc != "" {
			w("%s\n\n", t.Doc)
		}
		if len(t.Fields) > 0 {
			w("| Field | Meaning |\n|---|---|\n")
			for _, f := range t.Fields {
				w("| `%s.%s` | %s |\n", t.Receiver, f.Name, cell(f.Doc))
			}
			w("\n")
		}
		if t.Call != nil {
			call := *t.Call
			call.Name = ""
			writeFunc(&b, "####", t.Receiver+"(...)", Signature(t.Receiver, call), call)
		}
		for _, m := range t.Methods {
			writeFunc(&b, "####", t.Receiver+"."+m.Name, Signature(t.Receiver+".", m), m)
		}
	}

	w("## Standard library\n\n")
	w("Starlark files embedded in faultline, loaded with `load(\"@stdlib//FILE\", \"name\", ...)`. Parameters and defaults are read from each `def`.\n\n")
	for _, f := range files {
		w("### %s\n\n", f.Path)
		if f.Doc != "" {
			writeDocstring(&b, f.Doc)
		}
		for _, fn := range f.Funcs {
			sig := Signature("", star.FuncDoc{Name: fn.Name, Params: fn.Params})
			w("#### %s\n\n```python\n%s\n```\n\n", fn.Name+" ("+path.Base(f.Path)+")", sig)
			writeDocstring(&b, fn.Doc)
		}
	}
	return b.Bytes(), nil
}

// writeDocstring writes a docstring's first paragraph as text and the rest
// as written, in a text block, so its indentation survives.
func writeDocstring(b *bytes.Buffer, doc string) {
	first, rest, _ := strings.Cut(doc, "\n\n")
	fmt.Fprintf(b, "%s\n\n", strings.Join(strings.Fields(first), " "))
	if rest = strings.Trim(rest, "\n"); rest != "" {
		fmt.Fprintf(b, "```text\n%s\n```\n\n", rest)
	}
}

func writeFunc(b *bytes.Buffer, level, title, sig string, fn star.FuncDoc) {
	fmt.Fprintf(b, "%s %s\n\n```python\n%s\n```\n\n", level, title, sig)
	if fn.Summary != "" {
		fmt.Fprintf(b, "%s\n\n", fn.Summary)
	}
	if fn.Doc != "" {
		fmt.Fprintf(b, "%s\n\n", fn.Doc)
	}
	if len(fn.Params) > 0 {
		fmt.Fprintf(b, "| Argument | Default | Meaning |\n|---|---|---|\n")
		for _, p := range fn.Params {
			d := "required"
			if p.Default != "" {
				d = "`" + p.Default + "`"
			}
			if p.Positional {
				d += ", by position only"
			}
			fmt.Fprintf(b, "| `%s` | %s | %s |\n", p.Name, cell(d), cell(p.Doc))
		}
		fmt.Fprintf(b, "\n")
	}
	if fn.Returns != "" {
		fmt.Fprintf(b, "Returns %s.\n\n", fn.Returns)
	}
}

func moduleTitle(m string) string {
	if m == "" {
		return "Predeclared functions"
	}
	return "Module " + m
}

func typeTitle(t star.TypeDoc) string { return "Type " + t.Name }

// cell escapes text for a markdown table cell.
func cell(s string) string {
	if s == "" {
		return "—"
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "|", "\\|"), "\n", " ")
}

// slug is the anchor GitHub gives a heading: lower case, punctuation but
// '-' and '_' dropped, spaces as '-'.
func slug(title string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(title) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}
