package plans

import (
	"bytes"
	"path/filepath"
	"reflect"
	"testing"
)

// FuzzParse checks that Parse and Lint never panic and that every position
// they report lies inside the file.
//
// The seeds are the testdata plans cut at their headings, not the whole
// files: almost every mutation of a 10 KB plan reaches new code, and the
// fuzzer then minimises that input (up to -fuzzminimizetime, 60 s by default,
// with tries that grow with the input's length, each one a Parse and Lint of
// it) before it runs anything else. Whole plans gave ~22 execs in 180 s; a
// section of a few hundred bytes minimises in milliseconds, and the fuzzer
// still joins sections by splicing corpus entries.
func FuzzParse(f *testing.F) {
	seeds, err := filepath.Glob(filepath.Join("testdata", "*.md"))
	if err != nil || len(seeds) == 0 {
		f.Fatalf("no seed plans in testdata/: %v", err)
	}
	for _, path := range seeds {
		for _, sec := range planSections(readFile(f, path)) {
			f.Add(sec)
		}
	}
	for _, sec := range planSections([]byte(minimal)) {
		f.Add(sec)
	}
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

// planSections cuts a plan before every line that starts with '#' (its
// Markdown headings). The first section keeps the text before the first
// heading.
func planSections(src []byte) [][]byte {
	var out [][]byte
	start := 0
	for off := 0; off < len(src); {
		if off > start && src[off] == '#' {
			out = append(out, src[start:off])
			start = off
		}
		nl := bytes.IndexByte(src[off:], '\n')
		if nl < 0 {
			break
		}
		off += nl + 1
	}
	return append(out, src[start:])
}

// TestPlanSections: the cut loses no byte and starts each later section at a
// heading, so the seeds are the plans' own text.
func TestPlanSections(t *testing.T) {
	src := readFile(t, filepath.Join("testdata", "etcd-register.md"))
	secs := planSections(src)
	if len(secs) < 10 {
		t.Fatalf("%d sections, want one per heading", len(secs))
	}
	if got := bytes.Join(secs, nil); !bytes.Equal(got, src) {
		t.Fatal("the sections do not join back into the plan")
	}
	for i, sec := range secs[1:] {
		if sec[0] != '#' {
			t.Errorf("section %d starts with %q, not a heading", i+1, sec[:min(len(sec), 20)])
		}
	}
	if got := planSections([]byte("a\n#b\nc")); len(got) != 2 || string(got[0]) != "a\n" || string(got[1]) != "#b\nc" {
		t.Errorf("planSections(a #b c) = %q", got)
	}
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
