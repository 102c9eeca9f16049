package check

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/faultline/faultline/history"
	"github.com/faultline/faultline/internal/testcorpus"
)

// corpusVerdicts maps expected.tsv verdicts to ours.
var corpusVerdicts = map[string]Validity{"linearizable": Valid, "not-linearizable": Invalid}

// corpusCase is one corpus history with its expected verdict.
type corpusCase struct {
	file string
	ops  []history.Op
	want Validity
}

// loadCorpus reads every history a corpus's expected.tsv lists, in file order.
func loadCorpus(t testing.TB, name string) []corpusCase {
	t.Helper()
	dir := testcorpus.Dir(t, name)
	expected := testcorpus.Expected(t, name)
	// Every history in the directory must have a verdict: none is skipped.
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, e := range entries {
		if e.Name() == "expected.tsv" {
			continue
		}
		if _, ok := expected[e.Name()]; !ok {
			t.Fatalf("%s has no expected verdict in expected.tsv", e.Name())
		}
		files = append(files, e.Name())
	}
	if len(files) != len(expected) {
		t.Fatalf("expected.tsv lists %d files, the directory holds %d", len(expected), len(files))
	}
	sort.Strings(files)
	cases := make([]corpusCase, len(files))
	for i, f := range files {
		want, ok := corpusVerdicts[expected[f]]
		if !ok {
			t.Fatalf("%s: unknown expected verdict %q", f, expected[f])
		}
		hf, err := history.ReadFile(filepath.Join(dir, f), history.Auto)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		cases[i] = corpusCase{file: f, ops: hf.Ops, want: want}
	}
	return cases
}

// TestCorpus checks every porcupine corpus history against its known verdict:
// the etcd Jepsen logs as a cas-register starting at nil, the kv logs as kv.
func TestCorpus(t *testing.T) {
	for _, corpus := range []struct{ name, model string }{
		{"porcupine-etcd", "cas-register"},
		{"porcupine-kv", "kv"},
	} {
		t.Run(corpus.name, func(t *testing.T) {
			c := mustLinearizable(t, corpus.model, nil)
			cases := loadCorpus(t, corpus.name)
			counts := map[Validity]int{}
			for _, cc := range cases {
				res := c.Check(context.Background(), cc.ops, Env{})
				counts[res.Valid]++
				if res.Valid != cc.want {
					t.Errorf("%s: got %s, want %s: %s", cc.file, res.Valid, cc.want, res.Summary)
				}
				if res.Consumed.Ops == 0 {
					t.Errorf("%s: consumed no ops", cc.file)
				}
			}
			t.Logf("%d histories: %d valid, %d invalid", len(cases), counts[Valid], counts[Invalid])
		})
	}
}
