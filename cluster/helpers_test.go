package cluster

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

// golden compares got with testdata/name; -update rewrites it. A missing
// golden file fails: it is test data, not an optional extra.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("golden file: %v (run go test -update to create it)", err)
	}
	if string(got) != string(want) {
		t.Errorf("%s differs from the golden file:\n--- got\n%s\n--- want\n%s", name, got, want)
	}
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
