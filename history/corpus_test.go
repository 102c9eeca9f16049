package history

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/faultline/faultline/internal/testcorpus"
)

// corpusFiles lists the history files of a testdata/corpus corpus and checks that they
// are exactly the files its expected.tsv names.
func corpusFiles(t testing.TB, name, pattern string) []string {
	t.Helper()
	dir := testcorpus.Dir(t, name)
	expected := testcorpus.Expected(t, name)
	files, err := filepath.Glob(filepath.Join(dir, pattern))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		names = append(names, filepath.Base(f))
	}
	for file := range expected {
		if !slices.Contains(names, file) {
			t.Errorf("%s/expected.tsv lists %s, which is not in the corpus", name, file)
		}
	}
	for _, file := range names {
		if _, ok := expected[file]; !ok {
			t.Errorf("%s/%s has no verdict in expected.tsv", name, file)
		}
	}
	if len(files) == 0 {
		t.Fatalf("corpus %s has no %s files", name, pattern)
	}
	return files
}

// TestCorpora reads every file of both shared corpora, checks the detected
// format, and checks that every op belongs to exactly one invocation/completion
// pair.
func TestCorpora(t *testing.T) {
	corpora := []struct {
		name, pattern string
		format        Format
	}{
		{"porcupine-etcd", "*.log", JepsenLog},
		{"porcupine-kv", "*.txt", EDN},
	}
	for _, c := range corpora {
		for _, path := range corpusFiles(t, c.name, c.pattern) {
			t.Run(c.name+"/"+filepath.Base(path), func(t *testing.T) {
				file, err := ReadFile(path, Auto)
				if err != nil {
					t.Fatal(err)
				}
				if fi, err := os.Stat(path); err != nil {
					t.Fatal(err)
				} else if fi.Size() == 0 {
					// An empty history (etcd_095 in porcupine's set) is zero ops, not an error.
					if len(file.Ops) != 0 {
						t.Fatalf("empty file gave %d ops", len(file.Ops))
					}
					return
				}
				if file.Format != c.format || len(file.Ops) == 0 {
					t.Fatalf("read %d ops as %s, want some as %s", len(file.Ops), file.Format, c.format)
				}
				pairs, err := Pair(file.Ops)
				if err != nil {
					t.Fatal(err)
				}
				seen := 0
				for _, p := range pairs {
					if inv := file.Ops[p.Invoke]; inv.Type != Invoke && !(inv.IsNemesis() && inv.Type == Info) {
						t.Fatalf("pair %+v starts with a %s", p, inv.Type)
					}
					seen++
					if p.Complete >= 0 {
						seen++
					}
				}
				if seen != len(file.Ops) {
					t.Errorf("pairs cover %d of %d ops", seen, len(file.Ops))
				}
			})
		}
	}
}

// BenchmarkReadEtcdCorpus reads the whole etcd corpus (53 Jepsen logs) from
// memory, so the number is parsing alone.
func BenchmarkReadEtcdCorpus(b *testing.B) {
	var inputs [][]byte
	ops := 0
	for _, path := range corpusFiles(b, "porcupine-etcd", "*.log") {
		data, err := os.ReadFile(path)
		if err != nil {
			b.Fatal(err)
		}
		file, err := ReadFile(path, JepsenLog)
		if err != nil {
			b.Fatal(err)
		}
		inputs = append(inputs, data)
		ops += len(file.Ops)
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, data := range inputs {
			if _, err := parse(data, "etcd", JepsenLog); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*ops), "ns/histop")
}
