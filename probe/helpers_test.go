package probe

import (
	goldenfile "github.com/faultline/faultline/internal/golden"
	"os"
	"path/filepath"
	"testing"
)

// golden compares got with testdata/name, rewriting it under -update. A
// missing golden file fails the test: it is never created silently.
func golden(t *testing.T, name, got string) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", name), []byte(got))
}

// writeTree creates files (path -> content) under a fresh temp dir.
func writeTree(t testing.TB, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, content := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}
