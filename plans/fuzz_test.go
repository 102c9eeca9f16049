package plans

import (
	"bytes"
	"path/filepath"
	"reflect"
	"testing"
)

// FuzzParse checks that Parse and Lint never panic and that every position
// they report lies inside the file.
func FuzzParse(f *testing.F) {
	seeds, err := filepath.Glob(filepath.Join("testdata", "*.md"))
	if err != nil || len(seeds) == 0 {
		f.Fatalf("no seed plans in testdata/: %v", err)
	}
	for _, path := range seeds {
		f.Add(readFile(f, path))
	}
	f.Add([]byte(minimal))
	f.Add([]byte("### Scenario S1/a\n- **Budgets:**\n  - Smoke: 9999999999999999999 ops\n```\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		const path = "fuzz.md"
		p, ds := Parse(path, src)
		ds = append(ds, Lint(p)...)
		maxLine := bytes.Count(src, []byte("\n")) + 1
		checkPos := func(what string, pos Pos, zeroOK bool) {
			if pos == (Pos{}) && zeroOK {
				return
			}
			if pos.File != path || pos.Line < 1 || pos.Line > maxLine {
				t.Fatalf("%s at %v, outside %s:1..%d", what, pos, path, maxLine)
			}
		}
		for _, d := range ds {
			checkPos("diagnostic "+d.String(), d.Pos, false)
		}
		walkPositions(reflect.ValueOf(p), func(pos Pos) { checkPos("plan element", pos, true) })
	})
}

var posType = reflect.TypeOf(Pos{})

// walkPositions calls fn for every Pos reachable from v.
func walkPositions(v reflect.Value, fn func(Pos)) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			walkPositions(v.Elem(), fn)
		}
	case reflect.Struct:
		if v.Type() == posType {
			fn(v.Interface().(Pos))
			return
		}
		for i := range v.NumField() {
			walkPositions(v.Field(i), fn)
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			walkPositions(v.Index(i), fn)
		}
	}
}

// The walker must see the positions the fuzz target relies on, or the
// target checks nothing.
func TestWalkPositions(t *testing.T) {
	p, _ := Parse("x.md", []byte(minimal))
	n := 0
	walkPositions(reflect.ValueOf(p), func(Pos) { n++ })
	if n < 50 {
		t.Fatalf("walker saw %d positions in the minimal plan", n)
	}
}
