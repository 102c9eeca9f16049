package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A script's print() while it loads shows when it is linted, on stderr,
// as it does when it runs; before, lint discarded it.
func TestLintShowsPrint(t *testing.T) {
	src, err := os.ReadFile("../../examples/scenarios/register.star")
	if err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(t.TempDir(), "printing.star")
	if err := os.WriteFile(script, append([]byte("print(\"frame header is\", 5, \"bytes\")\n"), src...), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI(t, "lint", script)
	if code != 0 {
		t.Fatalf("lint exit %d:\n%s%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "frame header is 5 bytes") {
		t.Errorf("lint's stderr lacks the script's print:\nstdout:\n%s\nstderr:\n%s", stdout, stderr)
	}
}
