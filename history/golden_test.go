package history

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// TestImportGolden reads every testdata/*.edn and *.log input and compares the
// ops, written as JSONL, with its .golden.jsonl file.
func TestImportGolden(t *testing.T) {
	formats := map[string]Format{".edn": EDN, ".log": JepsenLog}
	var inputs []string
	for ext := range formats {
		m, err := filepath.Glob(filepath.Join("testdata", "*"+ext))
		if err != nil {
			t.Fatal(err)
		}
		for _, path := range m {
			if !strings.Contains(path, ".golden.") {
				inputs = append(inputs, path)
			}
		}
	}
	if len(inputs) < 4 {
		t.Fatalf("found %d golden inputs in testdata/, want at least 4", len(inputs))
	}
	for _, in := range inputs {
		name := filepath.Base(in)
		t.Run(name, func(t *testing.T) {
			want := formats[filepath.Ext(in)]
			file, err := ReadFile(in, want)
			if err != nil {
				t.Fatal(err)
			}
			if len(file.Ops) == 0 {
				t.Fatal("no ops")
			}
			auto, err := ReadFile(in, Auto)
			if err != nil {
				t.Fatal(err)
			}
			if auto.Format != want {
				t.Errorf("auto-detected %s, want %s", auto.Format, want)
			}
			assertSameOps(t, auto.Ops, file.Ops)
			var out bytes.Buffer
			if err := WriteJSONL(&out, file.Ops); err != nil {
				t.Fatal(err)
			}
			golden(t, strings.TrimSuffix(name, filepath.Ext(name))+".golden.jsonl", out.Bytes())
		})
	}
}

// TestExportGolden pins the EDN and JSONL spellings of the fixture ops.
func TestExportGolden(t *testing.T) {
	var edn, jsonl bytes.Buffer
	if err := WriteEDN(&edn, fixtureOps()); err != nil {
		t.Fatal(err)
	}
	if err := WriteJSONL(&jsonl, fixtureOps()); err != nil {
		t.Fatal(err)
	}
	golden(t, "fixture.golden.edn", edn.Bytes())
	golden(t, "fixture.golden.jsonl", jsonl.Bytes())
}
