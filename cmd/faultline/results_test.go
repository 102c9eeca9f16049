package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faultline/faultline/report"
)

// `run -o json` prints one JSON document and nothing else, results.json is
// that document, and it has the same shape for a plan and a script; --junit
// writes a test case per unit for both.
func TestRunJSONOneDocumentForPlansAndScripts(t *testing.T) {
	cases := []struct {
		name, kind string
		args       []string
		wantUnits  []string
		wantFailed int
	}{
		{"plan", report.KindPlan, []string{filepath.Join("..", "..", "examples", "inprocess", "plan.md")}, []string{"S1", "S2"}, 1},
		{"script", report.KindScript, []string{filepath.Join("testdata", "cli", "stale.star"),
			"--lib", "h6=" + filepath.Join("testdata", "cli", "lib")}, []string{"stale"}, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, junit := t.TempDir(), filepath.Join(t.TempDir(), "junit.xml")
			args := append([]string{"run"}, c.args...)
			args = append(args, "--seed", "42", "--out", out, "-o", "json", "--junit", junit)
			code, stdout, stderr := runCLI(t, args...)
			if code != exitFail {
				t.Fatalf("exit %d, want %d\n%s\n%s", code, exitFail, stdout, stderr)
			}
			dec := json.NewDecoder(strings.NewReader(stdout))
			var doc report.Results
			if err := dec.Decode(&doc); err != nil {
				t.Fatalf("stdout is not a JSON document: %v\n%s", err, stdout)
			}
			if _, err := dec.Token(); err != io.EOF {
				t.Fatalf("stdout holds more than one JSON document (next: %v)\n%s", err, stdout)
			}
			if doc.SchemaVersion != report.ResultsSchemaVersion || doc.Kind != c.kind || doc.ExitCode != code || doc.SessionDir == "" {
				t.Errorf("doc: schema %d kind %q exit %d dir %q", doc.SchemaVersion, doc.Kind, doc.ExitCode, doc.SessionDir)
			}
			var ids []string
			for _, u := range doc.Units {
				ids = append(ids, u.ID)
				if u.Verdict == "" || u.Decision.Verdict != u.Verdict {
					t.Errorf("unit %s: verdict %q, decision %q", u.ID, u.Verdict, u.Decision.Verdict)
				}
			}
			if strings.Join(ids, ",") != strings.Join(c.wantUnits, ",") {
				t.Errorf("units %v, want %v", ids, c.wantUnits)
			}
			// results.json is the printed document.
			stored, err := os.ReadFile(filepath.Join(doc.SessionDir, "results.json"))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(stored, []byte(stdout)) {
				t.Errorf("results.json differs from what -o json printed")
			}
			x, err := os.ReadFile(junit)
			if err != nil {
				t.Fatalf("--junit wrote nothing: %v", err)
			}
			if n := strings.Count(string(x), "<testcase "); n != len(c.wantUnits) {
				t.Errorf("junit has %d test cases, want %d:\n%s", n, len(c.wantUnits), x)
			}
			if !strings.Contains(string(x), `failures="1"`) {
				t.Errorf("junit does not count the failure:\n%s", x)
			}
		})
	}
}
