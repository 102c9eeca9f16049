package report

import (
	goldenfile "github.com/faultline/faultline/internal/golden"
	"path/filepath"
	"testing"
)

// checkGolden compares got with testdata/name, rewriting it under -update.
// A missing golden file fails the test: it never passes silently.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", name), got)
}
