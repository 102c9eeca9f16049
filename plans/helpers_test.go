package plans

import (
	"bytes"
	goldenfile "github.com/faultline/faultline/internal/golden"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// readFile returns a test input; a missing file fails the test, never skips it.
func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("test data missing: %v", err)
	}
	return b
}

// parseFile loads a testdata plan; a missing file fails the test.
func parseFile(t testing.TB, path string) (*Plan, []Diagnostic) {
	t.Helper()
	p, ds, err := Load(path)
	if err != nil {
		t.Fatalf("test data missing: %v", err)
	}
	return p, ds
}

// checkGolden compares got with the golden file, or rewrites it under -update.
func checkGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if goldenfile.Updating() {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want := readFile(t, path)
	if bytes.Equal(got, want) {
		return
	}
	gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := 0; i < len(gl) || i < len(wl); i++ {
		var g, w string
		if i < len(gl) {
			g = gl[i]
		}
		if i < len(wl) {
			w = wl[i]
		}
		if g != w {
			t.Fatalf("%s differs at line %d (run go test -update after checking):\n got: %s\nwant: %s",
				filepath.Base(path), i+1, g, w)
		}
	}
}

// diagStrings renders diagnostics one per line, as `faultline lint` prints them.
func diagStrings(ds []Diagnostic) string {
	var b strings.Builder
	for _, d := range ds {
		b.WriteString(d.String())
		b.WriteByte('\n')
	}
	return b.String()
}

// rulesOf lists the rules that fired.
func rulesOf(ds []Diagnostic) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.Rule)
	}
	return out
}
