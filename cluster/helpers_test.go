package cluster

import (
	goldenfile "github.com/faultline/faultline/internal/golden"
	"path/filepath"
	"testing"
)

// golden compares got with testdata/name; -update rewrites it. A missing
// golden file fails: it is test data, not an optional extra.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", name), got)
}

// defaultConfig is the documented default cluster with n nodes.
func defaultConfig(t testing.TB, n int) Config {
	t.Helper()
	c, err := Config{Nodes: n}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	return c
}
