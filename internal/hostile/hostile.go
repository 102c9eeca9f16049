// Package hostile is the one corpus of hostile inputs (testdata/inputs.json)
// that the tests of every place taking text from a user feed through it:
// plan text and file names (plans), node names (control), fault paths and
// kill patterns (nemesis), load() paths (interp) and session names
// (report). Each input is a shell or Starlark metacharacter payload, a
// control character, or a path that escapes; a payload that would run a
// command touches the test's marker file, so a test proves that nothing ran
// by the marker's absence.
package hostile

import (
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

//go:embed testdata/inputs.json
var corpus []byte

// MarkerToken in an input's value stands for the marker file's path.
const MarkerToken = "{{MARKER}}"

// Input is one hostile value.
type Input struct {
	Name  string `json:"name"`
	Value string `json:"value"`
	Hex   string `json:"hex"` // bytes JSON cannot hold as text (invalid UTF-8)
}

// Inputs returns the corpus with MarkerToken replaced by marker. A corpus
// that does not decode fails the test.
func Inputs(t testing.TB, marker string) []Input {
	t.Helper()
	ins, err := decode(corpus, marker)
	if err != nil {
		t.Fatalf("hostile corpus: %v", err)
	}
	return ins
}

func decode(data []byte, marker string) ([]Input, error) {
	var ins []Input
	if err := json.Unmarshal(data, &ins); err != nil {
		return nil, err
	}
	if len(ins) == 0 {
		return nil, fmt.Errorf("empty")
	}
	for i := range ins {
		if ins[i].Hex != "" {
			b, err := hex.DecodeString(ins[i].Hex)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", ins[i].Name, err)
			}
			ins[i].Value = string(b)
		}
		ins[i].Value = strings.ReplaceAll(ins[i].Value, MarkerToken, marker)
	}
	return ins, nil
}

// Marker returns the path of a marker file in a fresh directory of the
// test's and fails the test at its end if anything created it: a hostile
// payload ran a command.
func Marker(t testing.TB) string {
	t.Helper()
	m := filepath.Join(t.TempDir(), "MARKER")
	t.Cleanup(func() { NoMarker(t, m) })
	return m
}

// NoMarker fails the test if marker exists.
func NoMarker(t testing.TB, marker string) {
	t.Helper()
	if _, err := os.Lstat(marker); err == nil {
		t.Errorf("a hostile input ran a command: %s exists", marker)
	}
}

// HasControl reports whether s holds a control character (newline, \r,
// NUL, ESC, ...) or U+2028/U+2029, which several places must refuse.
func HasControl(s string) bool {
	for _, r := range s {
		if r < 0x20 || r == 0x7f || r == '\u2028' || r == '\u2029' {
			return true
		}
	}
	return false
}

// Root reports whether the test runs as root (namespaced checks need it).
func Root() bool { return os.Geteuid() == 0 }
