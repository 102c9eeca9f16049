package ref

import (
	"context"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"go.starlark.net/starlark"

	"github.com/faultline/faultline/control"
	"github.com/faultline/faultline/interp"
	"github.com/faultline/faultline/star"
	"github.com/faultline/faultline/star/dialect"
	"github.com/faultline/faultline/star/sqlmod"
)

// bogusKeyword is a keyword argument no builtin takes.
const bogusKeyword = "no_such_argument_xyz"

// testThread is a thread with dry-run nodes n1..n3 (so node builtins
// record commands instead of running them), a seeded rand and a context
// that bounds any call that would block.
func testThread(t *testing.T) *starlark.Thread {
	t.Helper()
	pool, err := control.NewPool([]control.Node{{Name: "n1", Host: "10.77.0.1"}, {Name: "n2", Host: "10.77.0.2"}, {Name: "n3", Host: "10.77.0.3"}},
		control.DryRunDialer(io.Discard))
	if err != nil {
		t.Fatal(err)
	}
	th := &starlark.Thread{Name: "ref-test", Print: func(*starlark.Thread, string) {}}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	star.SetContext(th, ctx)
	star.SetPool(th, pool)
	star.SetRand(th, rand.New(rand.NewPCG(1, 2)))
	return th
}

func eval(t *testing.T, th *starlark.Thread, expr string) (starlark.Value, error) {
	t.Helper()
	return starlark.EvalOptions(dialect.Options, th, "<ref-test>", expr, interp.Predeclared())
}

// samples makes one value of every documented type. Connections dial
// listeners on loopback that this test starts; the SQL handle connects
// lazily and is pointed at a closed loopback port.
func samples(t *testing.T, th *starlark.Thread) map[string]starlark.Value {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			t.Cleanup(func() { c.Close() })
		}
	}()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, `{"ok": true}`) }))
	t.Cleanup(srv.Close)
	exprs := map[string]string{
		"budget":        `budget("1s")`,
		"system_logs":   `system_logs(paths = ["app.log"])`,
		"checker":       `check.stats()`,
		"client":        `client.noop()`,
		"evidence":      `evidence.landed()`,
		"generator":     `gen.once({"f": "read"})`,
		"http.response": fmt.Sprintf(`http.request("GET", %q)`, srv.URL),
		"nemesis":       `nemesis.partition()`,
		"nemesis.fault": `nemesis.fault("ref-test-fault", start = lambda nodes: None)`,
		"net.conn":      fmt.Sprintf(`net.dial(%q)`, ln.Addr().String()),
		"node":          `control.node("n1")`,
		"redis.conn":    fmt.Sprintf(`redis.dial(%q)`, ln.Addr().String()),
		"redis.error":   `redis.dial("127.0.0.1:1", timeout = "2s", raise_errors = False)`,
		"error":         `net.dial("127.0.0.1:1", timeout = "2s", raise_errors = False)`,
		"sql.db":        `sql.open("postgres", "postgres://faultline@127.0.0.1:1/none?connect_timeout=2")`,
	}
	out := map[string]starlark.Value{
		// A transaction needs a server; its methods all refuse bad
		// arguments before they touch the connection, so an empty one
		// serves to check their names.
		"sql.tx": &sqlmod.Tx{},
	}
	for name, e := range exprs {
		v, err := eval(t, th, e)
		if err != nil {
			t.Fatalf("sample of %s: %s: %v", name, e, err)
		}
		out[name] = v
	}
	return out
}

// TestEveryNameDocumented: every predeclared name and every attribute of
// every predeclared module has a doc entry, and every doc entry names a
// member that exists, a function if documented as one.
func TestEveryNameDocumented(t *testing.T) {
	pre := interp.Predeclared()
	docs := map[string]star.ModuleDoc{}
	for _, m := range star.ModuleDocs() {
		docs[m.Module] = m
	}
	topFuncs := map[string]bool{}
	for _, f := range docs[""].Funcs {
		topFuncs[f.Name] = true
		if _, ok := pre[f.Name].(starlark.Callable); !ok {
			t.Errorf("predeclared %s is documented as a function but is %v", f.Name, pre[f.Name])
		}
	}
	for name, v := range pre {
		m, isMod := docs[name]
		if !isMod {
			if !topFuncs[name] {
				t.Errorf("predeclared %s (%s) has no doc entry: document it with star.Document or star.Describe", name, v.Type())
			}
			continue
		}
		ha, ok := v.(starlark.HasAttrs)
		if !ok {
			t.Errorf("%s is documented as a module but is a %s", name, v.Type())
			continue
		}
		documented := map[string]bool{}
		for _, f := range m.Funcs {
			documented[f.Name] = true
			fv, err := ha.Attr(f.Name)
			if err != nil || fv == nil {
				t.Errorf("%s.%s is documented but does not exist", name, f.Name)
			} else if _, ok := fv.(starlark.Callable); !ok {
				t.Errorf("%s.%s is documented as a function but is a %s", name, f.Name, fv.Type())
			}
		}
		for _, c := range m.Constants {
			documented[c.Name] = true
			cv, err := ha.Attr(c.Name)
			if err != nil || cv == nil {
				t.Errorf("constant %s.%s is documented but does not exist", name, c.Name)
			} else if _, ok := cv.(starlark.Callable); ok {
				t.Errorf("%s.%s is documented as a constant but is callable", name, c.Name)
			}
		}
		for _, a := range ha.AttrNames() {
			if !documented[a] {
				t.Errorf("%s.%s has no doc entry (star.Document(%q, ...))", name, a, name)
			}
		}
		if m.Summary == "" {
			t.Errorf("module %s has no summary (star.Describe)", name)
		}
	}
	for name := range docs {
		if _, ok := pre[name]; name != "" && !ok {
			t.Errorf("module %s is documented but not predeclared", name)
		}
	}
}

// TestValueTypesDocumented: every documented value type's sample has the
// documented type name, fields, methods and call, no more and no less.
func TestValueTypesDocumented(t *testing.T) {
	th := testThread(t)
	vals := samples(t, th)
	seen := map[string]bool{}
	for _, td := range star.TypeDocs() {
		seen[td.Name] = true
		v, ok := vals[td.Name]
		if !ok {
			t.Errorf("type %s is documented but the test has no sample of it: add one to samples", td.Name)
			continue
		}
		if v.Type() != td.Type {
			t.Errorf("type %s: the sample's type() is %q, documented %q", td.Name, v.Type(), td.Type)
		}
		var want []string
		for _, f := range td.Fields {
			want = append(want, f.Name)
		}
		for _, m := range td.Methods {
			want = append(want, m.Name)
		}
		sort.Strings(want)
		var got []string
		if ha, ok := v.(starlark.HasAttrs); ok {
			got = append(got, ha.AttrNames()...)
			sort.Strings(got)
			for _, f := range td.Fields {
				if a, err := ha.Attr(f.Name); err != nil || a == nil {
					t.Errorf("%s.%s: documented field missing", td.Name, f.Name)
				} else if _, ok := a.(starlark.Callable); ok {
					t.Errorf("%s.%s is documented as a field but is callable", td.Name, f.Name)
				}
			}
			for _, m := range td.Methods {
				if a, err := ha.Attr(m.Name); err != nil || a == nil {
					t.Errorf("%s.%s: documented method missing", td.Name, m.Name)
				} else if _, ok := a.(starlark.Callable); !ok {
					t.Errorf("%s.%s is documented as a method but is a %s", td.Name, m.Name, a.Type())
				}
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("type %s: attributes are %v, documented %v", td.Name, got, want)
		}
		if _, callable := v.(starlark.Callable); callable != (td.Call != nil) {
			t.Errorf("type %s: callable is %v, documented call %v", td.Name, callable, td.Call != nil)
		}
	}
	for name := range vals {
		if !seen[name] {
			t.Errorf("sample %s has no TypeDoc", name)
		}
	}
}

// builtin is one documented callable and the doc it is held to.
type builtin struct {
	name string
	fn   starlark.Callable
	doc  star.FuncDoc
}

func documentedBuiltins(t *testing.T, th *starlark.Thread) []builtin {
	t.Helper()
	pre := interp.Predeclared()
	var out []builtin
	for _, m := range star.ModuleDocs() {
		for _, f := range m.Funcs {
			var v starlark.Value
			name := f.Name
			if m.Module == "" {
				v = pre[f.Name]
			} else {
				name = m.Module + "." + f.Name
				ha, _ := pre[m.Module].(starlark.HasAttrs)
				if ha != nil {
					v, _ = ha.Attr(f.Name)
				}
			}
			if c, ok := v.(starlark.Callable); ok {
				out = append(out, builtin{name, c, f})
			}
		}
	}
	vals := samples(t, th)
	for _, td := range star.TypeDocs() {
		v := vals[td.Name]
		if td.Call != nil {
			if c, ok := v.(starlark.Callable); ok {
				out = append(out, builtin{td.Name + "(...)", c, *td.Call})
			}
		}
		ha, _ := v.(starlark.HasAttrs)
		for _, m := range td.Methods {
			if ha == nil {
				continue
			}
			if a, _ := ha.Attr(m.Name); a != nil {
				if c, ok := a.(starlark.Callable); ok {
					out = append(out, builtin{td.Name + "." + m.Name, c, m})
				}
			}
		}
	}
	return out
}

// refusedKeyword reports whether err is a refusal of keyword name (or of
// keywords at all).
func refusedKeyword(err error, name string) bool {
	if err == nil {
		return false
	}
	msg := err.Error()
	return strings.Contains(msg, "unexpected keyword argument "+name) ||
		strings.Contains(msg, fmt.Sprintf("unexpected keyword argument %q", name)) ||
		strings.Contains(msg, "unexpected keyword arguments") ||
		strings.Contains(msg, "takes no keyword arguments")
}

// TestDocumentedKeywords calls every documented builtin with a keyword it
// does not document, which must be refused, and with each documented
// keyword alone, which must not be refused as unexpected (any other error
// is fine: this checks names, not behaviour). A documented default or
// example must also be a value the parameter accepts, and a
// positional-only parameter must be refused by keyword.
func TestDocumentedKeywords(t *testing.T) {
	th := testThread(t)
	for _, b := range documentedBuiltins(t, th) {
		t.Run(b.name, func(t *testing.T) {
			hasKwRest := false
			for _, p := range b.doc.Params {
				hasKwRest = hasKwRest || strings.HasPrefix(p.Name, "**")
			}
			if !hasKwRest {
				_, err := starlark.Call(th, b.fn, nil, []starlark.Tuple{{starlark.String(bogusKeyword), starlark.None}})
				if err == nil || !(refusedKeyword(err, bogusKeyword) || strings.Contains(err.Error(), bogusKeyword)) {
					t.Errorf("%s(%s = None) was not refused as an unexpected keyword: err = %v", b.name, bogusKeyword, err)
				}
			}
			checkRequired(t, th, b)
			for _, p := range b.doc.Params {
				if strings.HasPrefix(p.Name, "*") {
					continue
				}
				val, typed := paramValue(t, th, b.name, p)
				_, err := starlark.Call(th, b.fn, nil, []starlark.Tuple{{starlark.String(p.Name), val}})
				switch {
				case p.Positional:
					if !refusedKeyword(err, p.Name) {
						t.Errorf("%s: %s is documented as positional-only, but %s = %s was not refused as a keyword: err = %v", b.name, p.Name, p.Name, val, err)
					}
				case refusedKeyword(err, p.Name):
					t.Errorf("%s: documented keyword %s refused: %v", b.name, p.Name, err)
				case typed && err != nil && strings.Contains(err.Error(), "for parameter "+p.Name+":"):
					t.Errorf("%s: the documented value %s of %s is not accepted: %v", b.name, val, p.Name, err)
				}
			}
		})
	}
}

// missingArg matches UnpackArgs' complaint about a required argument.
var missingArg = regexp.MustCompile(`missing argument for (\w+)`)

// checkRequired calls a builtin that documents a required keyword
// parameter with no arguments at all: the call must fail (before any side
// effect: UnpackArgs comes first), and when it names a missing argument,
// the docs must call that argument required. It catches a required
// argument documented with a default.
func checkRequired(t *testing.T, th *starlark.Thread, b builtin) {
	t.Helper()
	required := map[string]bool{}
	for _, p := range b.doc.Params {
		if !p.Optional() && !p.Positional && !strings.HasPrefix(p.Name, "*") {
			required[p.Name] = true
		}
	}
	if len(required) == 0 {
		return
	}
	_, err := starlark.Call(th, b.fn, nil, nil)
	if err == nil {
		t.Errorf("%s() succeeded, but the docs say it requires %v", b.name, slices.Sorted(maps.Keys(required)))
		return
	}
	if m := missingArg.FindStringSubmatch(err.Error()); m != nil && !required[m[1]] {
		t.Errorf("%s(): %v, but the docs give %s a default", b.name, err, m[1])
	}
}

// paramValue is the value TestDocumentedKeywords passes for p: its
// example, else its default, else None; typed says whether the value is
// one the parameter must accept (an example or a default that is not
// None).
func paramValue(t *testing.T, th *starlark.Thread, fn string, p star.Param) (starlark.Value, bool) {
	t.Helper()
	src := p.Example
	if src == "" && p.Default != "" && !strings.HasPrefix(p.Default, "(") {
		src = p.Default
	}
	if src == "" {
		if p.Default != "" && !p.Positional {
			t.Errorf("%s: %s's default %s is computed; give an Example of the right shape", fn, p.Name, p.Default)
		}
		return starlark.None, false
	}
	v, err := eval(t, th, src)
	if err != nil {
		t.Errorf("%s: %s's documented value %s is not an expression a script can write: %v", fn, p.Name, src, err)
		return starlark.None, false
	}
	return v, v != starlark.None
}

// TestStdlibDocumented: every stdlib file and public def has a docstring
// for the reference to show.
func TestStdlibDocumented(t *testing.T) {
	files, err := Stdlib()
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no stdlib files found")
	}
	for _, f := range files {
		if f.Doc == "" {
			t.Errorf("%s has no module docstring", f.Path)
		}
		for _, fn := range f.Funcs {
			if fn.Doc == "" {
				t.Errorf("%s:%d: public def %s has no docstring", f.Path, fn.Line, fn.Name)
			}
		}
	}
}

// TestParseStdlib reads parameters, defaults (spanning lines) and
// docstrings from the AST, and skips private defs.
func TestParseStdlib(t *testing.T) {
	src := `"""Mod doc.

More."""

def f(a, b = "x", c = [1,
        2], *args, **kw):
    """Does f.

    Args:
      a: one.
    """
    pass

def _private():
    pass

def g():
    pass
`
	f, err := ParseStdlib("@stdlib//t.star", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if f.Doc != "Mod doc.\n\nMore." {
		t.Errorf("module doc = %q", f.Doc)
	}
	if len(f.Funcs) != 2 || f.Funcs[0].Name != "f" || f.Funcs[1].Name != "g" {
		t.Fatalf("funcs = %+v", f.Funcs)
	}
	if got := Signature("", star.FuncDoc{Name: "f", Params: f.Funcs[0].Params}); got != `f(a, b = "x", c = [1, 2], *args, **kw)` {
		t.Errorf("signature = %s", got)
	}
	if f.Funcs[0].Doc != "Does f.\n\nArgs:\n  a: one." {
		t.Errorf("doc = %q", f.Funcs[0].Doc)
	}
	if f.Funcs[1].Doc != "" {
		t.Errorf("g's doc = %q, want none", f.Funcs[1].Doc)
	}
}

// TestSignature renders positional-only markers and computed defaults.
func TestSignature(t *testing.T) {
	for _, c := range []struct {
		fn   star.FuncDoc
		want string
	}{
		{star.FuncDoc{Name: "open", Params: []star.Param{{Name: "driver"}, {Name: "n", Default: "2"}}}, "sql.open(driver, n = 2)"},
		{star.FuncDoc{Name: "int", Params: []star.Param{{Name: "n", Positional: true}, {Name: "hi", Default: "(none)", Positional: true}}}, "sql.int(n, hi = <none>, /)"},
		{star.FuncDoc{Name: "d", Params: []star.Param{{Name: "x", Positional: true}, {Name: "default", Default: "None"}}}, "sql.d(x, /, default = None)"},
		{star.FuncDoc{Name: "r", Signature: "gen.r([n,] g)"}, "gen.r([n,] g)"},
	} {
		if got := Signature("sql.", c.fn); got != c.want {
			t.Errorf("Signature = %s, want %s", got, c.want)
		}
	}
}
