package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// elleCase is one row of testdata/elle/expected.tsv: a history converted from
// Elle's own test suite (see testdata/elle/README), the options Elle's test
// passed, and the verdict, anomaly types and weakest ruled-out models (:not)
// Elle's test asserts.
type elleCase struct {
	name, file, workload string
	args                 []string
	valid                string
	types, not           []string
	anyNot               bool   // Elle's test asserts no :not
	elle                 string // "match", or why faultline deliberately differs
}

func readElleCases(t *testing.T) []elleCase {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "elle", "expected.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []elleCase
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		col := strings.Split(line, "\t")
		if len(col) != 8 {
			t.Fatalf("expected.tsv:%d: %d columns, want 8", n, len(col))
		}
		list := func(s string) []string {
			if s == "" || s == "-" {
				return nil
			}
			l := strings.Split(s, ",")
			slices.Sort(l)
			return l
		}
		out = append(out, elleCase{name: col[0], file: col[1], workload: col[2], args: strings.Fields(col[3]),
			valid: col[4], types: list(col[5]), not: list(col[6]), anyNot: col[6] == "*", elle: col[7]})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestCheckElleConformance runs every converted Elle case through the
// command line, as a user would, and asserts Elle's verdict, the anomaly
// types reported and the weakest models ruled out.
func TestCheckElleConformance(t *testing.T) {
	cases := readElleCases(t)
	if len(cases) < 85 {
		t.Fatalf("only %d cases in expected.tsv", len(cases))
	}
	matched := 0
	for _, c := range cases {
		args := append([]string{"check", "--model", c.workload, "--json"}, c.args...)
		args = append(args, filepath.Join("testdata", "elle", c.file))
		_, stdout, stderr := runCLI(t, args...)
		var doc struct {
			Files []struct {
				Valid  string `json:"valid"`
				Result struct {
					Details struct {
						AnomalyTypes []string `json:"anomaly_types"`
						Not          []string `json:"not"`
					} `json:"details"`
				} `json:"result"`
			} `json:"files"`
		}
		if err := json.Unmarshal([]byte(stdout), &doc); err != nil || len(doc.Files) != 1 {
			t.Errorf("%s %v: no JSON result (%v):\n%s%s", c.name, c.args, err, stdout, stderr)
			continue
		}
		got := doc.Files[0]
		types, not := slices.Sorted(slices.Values(got.Result.Details.AnomalyTypes)), slices.Sorted(slices.Values(got.Result.Details.Not))
		if got.Valid != c.valid || !slices.Equal(types, c.types) || !c.anyNot && !slices.Equal(not, c.not) {
			t.Errorf("%s %v: got %s %v not %v, want %s %v not %v", c.name, c.args, got.Valid, types, not, c.valid, c.types, c.not)
			continue
		}
		matched++
	}
	t.Logf("%d of %d Elle cases match", matched, len(cases))
}
