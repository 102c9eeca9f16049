package star

// The doc registry beside the value registry: each adapter documents the
// functions of the module it registers, and the value types its builtins
// return, from its own init, so the reference (star/ref, docs/starlark.md)
// is generated from what is linked in and tests can hold every entry to
// the value it names.

import (
	"fmt"
	"sort"
	"sync"
)

// Param is one parameter of a documented function.
type Param struct {
	// Name is the parameter's name as a keyword argument; "*name" for the
	// positional rest and "**name" for the keyword rest.
	Name string
	// Default is the default as a script would write it ("serializable"
	// quoted, 5s as "5s", None); "" when the argument is required.
	Default string
	// Doc says what the argument means.
	Doc string
	// Positional marks a positional-only parameter: the builtin refuses it
	// by keyword.
	Positional bool
	// Example is a value of the right shape, as a script writes it, for a
	// parameter whose default is not an expression a script could write
	// (a computed default) or is None; tests call the builtin with it.
	Example string
}

// Optional reports whether the argument may be left out.
func (p Param) Optional() bool { return p.Default != "" }

// FuncDoc documents one builtin: a module's member, a predeclared
// function or a value type's method.
type FuncDoc struct {
	Name    string // the member or method name, without the module
	Summary string // one line
	Doc     string // longer text; paragraphs separated by blank lines
	Params  []Param
	Returns string // what the call returns
	// Signature replaces the generated call line where parameters alone
	// cannot express it (alternating arguments, an optional leading one).
	Signature string
}

// Field documents an attribute that is a value, not a function: a
// module's constant or a value type's field.
type Field struct {
	Name string
	Doc  string
}

// ModuleDoc documents one predeclared module; Module "" holds the
// predeclared functions themselves (scenario, budget, ...).
type ModuleDoc struct {
	Module    string
	Summary   string // one line
	Doc       string
	Upstream  string // where a module faultline takes from elsewhere is documented in full
	Funcs     []FuncDoc
	Constants []Field
}

// TypeDoc documents a type of value builtins return: its attributes and
// methods, and its call when values of it are callable.
type TypeDoc struct {
	Name     string // the name the reference gives it; what type(v) says unless Type is set
	Type     string // what type(v) says when it differs from Name (a struct)
	Receiver string // the variable the reference writes method calls on (node.exec)
	Summary  string
	Doc      string
	From     string // which builtins make it
	Fields   []Field
	Methods  []FuncDoc
	Call     *FuncDoc // calling the value itself (Name is ignored)
}

var (
	docMu   sync.Mutex
	modDocs = map[string]*ModuleDoc{}
	typDocs = map[string]*TypeDoc{}
)

// Describe sets module's summary and longer text ("" describes the
// predeclared functions). Call it from the init that registers the module.
func Describe(module, summary, doc string) {
	docMu.Lock()
	defer docMu.Unlock()
	m := moduleDoc(module)
	m.Summary, m.Doc = summary, doc
}

// DescribeUpstream marks module as taken from another project, documented
// in full at url.
func DescribeUpstream(module, url string) {
	docMu.Lock()
	defer docMu.Unlock()
	moduleDoc(module).Upstream = url
}

// Document adds fns to module's reference ("" for predeclared functions).
// A function documented twice is a programming error and panics at
// startup.
func Document(module string, fns ...FuncDoc) {
	docMu.Lock()
	defer docMu.Unlock()
	m := moduleDoc(module)
	for _, f := range fns {
		for _, g := range m.Funcs {
			if g.Name == f.Name {
				panic(fmt.Sprintf("star: %s.%s documented twice", module, f.Name))
			}
		}
		m.Funcs = append(m.Funcs, f)
	}
}

// DocumentConstants adds module members that are values, not functions.
func DocumentConstants(module string, fields ...Field) {
	docMu.Lock()
	defer docMu.Unlock()
	m := moduleDoc(module)
	m.Constants = append(m.Constants, fields...)
}

// DocumentType adds a value type to the reference; a type documented
// twice panics at startup.
func DocumentType(t TypeDoc) {
	docMu.Lock()
	defer docMu.Unlock()
	if t.Type == "" {
		t.Type = t.Name
	}
	if _, dup := typDocs[t.Name]; dup {
		panic(fmt.Sprintf("star: type %q documented twice", t.Name))
	}
	typDocs[t.Name] = &t
}

func moduleDoc(name string) *ModuleDoc {
	m, ok := modDocs[name]
	if !ok {
		m = &ModuleDoc{Module: name}
		modDocs[name] = m
	}
	return m
}

// ModuleDocs returns every documented module, "" (the predeclared
// functions) first and then by name, each one's functions and constants
// sorted by name. The result is a copy.
func ModuleDocs() []ModuleDoc {
	docMu.Lock()
	defer docMu.Unlock()
	out := make([]ModuleDoc, 0, len(modDocs))
	for _, m := range modDocs {
		c := *m
		c.Funcs = append([]FuncDoc(nil), m.Funcs...)
		sort.Slice(c.Funcs, func(i, j int) bool { return c.Funcs[i].Name < c.Funcs[j].Name })
		c.Constants = append([]Field(nil), m.Constants...)
		sort.Slice(c.Constants, func(i, j int) bool { return c.Constants[i].Name < c.Constants[j].Name })
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Module < out[j].Module })
	return out
}

// TypeDocs returns every documented value type by name, each one's
// fields and methods sorted by name. The result is a copy.
func TypeDocs() []TypeDoc {
	docMu.Lock()
	defer docMu.Unlock()
	out := make([]TypeDoc, 0, len(typDocs))
	for _, t := range typDocs {
		c := *t
		c.Fields = append([]Field(nil), t.Fields...)
		sort.Slice(c.Fields, func(i, j int) bool { return c.Fields[i].Name < c.Fields[j].Name })
		c.Methods = append([]FuncDoc(nil), t.Methods...)
		sort.Slice(c.Methods, func(i, j int) bool { return c.Methods[i].Name < c.Methods[j].Name })
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
