package txn

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// artifactResult is a result with one cycle anomaly and one without.
func artifactResult(t *testing.T) *Result {
	t.Helper()
	r := check(t, txns(t, append(appendCase(t, "G1c cyclic information flow"), "ok 3 [[:r :z [9]]]")...), withInit(la("serializable"), nil))
	if len(r.Anomalies["G1c"]) != 1 || len(r.Anomalies["garbage-read"]) != 1 {
		t.Fatalf("anomalies %v", types(r))
	}
	return r
}

// fakeDot puts a dot script first on the PATH that runs body.
func fakeDot(t *testing.T, body string) {
	t.Helper()
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "dot"), []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
}

func TestWriteArtifactsRendersSVG(t *testing.T) {
	// The fake is called as: dot -Tsvg -o OUT IN.
	fakeDot(t, `[ "$1" = -Tsvg ] && [ "$2" = -o ] && { echo "<svg>"; cat "$4"; echo "</svg>"; } > "$3"`)
	dir := filepath.Join(t.TempDir(), "elle")
	r := artifactResult(t)
	files, err := WriteArtifacts(dir, r)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(dir, "G1c-0.dot"), filepath.Join(dir, "G1c-0.svg"), filepath.Join(dir, "explanations.txt")}
	if !slices.Equal(files, want) {
		t.Fatalf("files %v, want %v", files, want)
	}
	svg, _ := os.ReadFile(want[1])
	if !strings.HasPrefix(string(svg), "<svg>\ndigraph \"G1c\"") {
		t.Errorf("svg: %q", svg)
	}
	text, _ := os.ReadFile(want[2])
	if string(text) != r.Explanation+"\n" || len(r.Incomplete) != 0 {
		t.Errorf("explanations.txt or incomplete notes differ: %q %v", text, r.Incomplete)
	}
}

func TestWriteArtifactsWithoutDot(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	dir := t.TempDir()
	r := artifactResult(t)
	files, err := WriteArtifacts(dir, r)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2 || filepath.Base(files[0]) != "G1c-0.dot" || filepath.Base(files[1]) != "explanations.txt" {
		t.Fatalf("files %v", files)
	}
	text, _ := os.ReadFile(files[1])
	note := "SVG not rendered (Graphviz's dot is not on the PATH) for G1c-0.dot"
	if !strings.Contains(string(text), note) || !slices.Contains(r.Incomplete, note) {
		t.Errorf("no note in %q / %v", text, r.Incomplete)
	}
}

func TestWriteArtifactsDotFails(t *testing.T) {
	fakeDot(t, `echo "syntax error in line 1" >&2; exit 1`)
	dir := t.TempDir()
	r := artifactResult(t)
	files, err := WriteArtifacts(dir, r)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 2 {
		t.Fatalf("files %v", files)
	}
	if _, err := os.Stat(filepath.Join(dir, "G1c-0.svg")); err == nil {
		t.Error("a failed render left an svg")
	}
	if len(r.Incomplete) != 1 || !strings.Contains(r.Incomplete[0], "dot failed) for G1c-0.dot (syntax error in line 1)") {
		t.Errorf("incomplete %v", r.Incomplete)
	}
}

func TestWriteArtifactsUnwritable(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := WriteArtifacts(filepath.Join(file, "sub"), artifactResult(t)); err == nil {
		t.Fatal("no error writing under a file")
	}
}
