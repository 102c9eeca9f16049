// Package golden compares test output with files under testdata/ and
// rewrites them when a test binary runs with -update. Importing it (from
// tests only) registers the -update flag.
package golden

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/ from the current output")

// Updating reports whether the test run was asked to rewrite golden files.
func Updating() bool { return *update }

// Check compares got with the golden file at path (relative to the test's
// package directory), rewriting it first under -update. A missing golden file
// fails the test: it is never created silently.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("golden file %s: %v (run go test -update to create it)", path, err)
	}
	if string(got) != string(want) {
		t.Errorf("output differs from %s (rerun with -update after checking the change)\n--- got ---\n%s\n--- want ---\n%s", path, got, want)
	}
}
