package report

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// checkGolden compares got with testdata/name, rewriting it under -update.
// A missing golden file fails the test: it never passes silently.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	golden := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s (run with -update after checking the change):\n%s", golden, got)
	}
}
