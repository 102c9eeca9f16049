package check

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faultline/faultline/history"
	"github.com/faultline/faultline/internal/testcorpus"
)

// knossosCase is one line of testdata/corpus/knossos/expected.tsv.
type knossosCase struct {
	file, model, init, want, source string
}

// loadKnossos reads the Knossos corpus's expected.tsv (file, model, init,
// expected, source) and checks that every .edn file in the corpus is listed.
func loadKnossos(t *testing.T) (string, []knossosCase) {
	t.Helper()
	dir := testcorpus.Dir(t, "knossos")
	f, err := os.Open(filepath.Join(dir, "expected.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []knossosCase
	listed := map[string]bool{}
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		if line == 1 || strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		cols := strings.Split(sc.Text(), "\t")
		if len(cols) != 5 {
			t.Fatalf("expected.tsv:%d: want 5 tab-separated columns, got %d", line, len(cols))
		}
		cases = append(cases, knossosCase{cols[0], cols[1], cols[2], cols[3], cols[4]})
		listed[cols[0]] = true
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	err = filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(path) != ".edn" {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		if !listed[filepath.ToSlash(rel)] {
			t.Errorf("%s has no expected verdict in expected.tsv", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return dir, cases
}

// knossosOutcome checks one file the way `faultline check --model M --init V
// FILE` does (read with format detection, --init parsed by ParseInit, the
// checker built by Linearizable) and names the outcome in expected.tsv's words.
func knossosOutcome(t *testing.T, path, model, init string) (string, Result) {
	t.Helper()
	iv, err := ParseInit(init)
	if err != nil {
		t.Fatalf("--init %s: %v", init, err)
	}
	c, err := Linearizable(LinearizableOptions{Model: model, Init: iv})
	if err != nil {
		t.Fatalf("--model %s: %v", model, err)
	}
	hf, err := history.ReadFile(path, history.Auto)
	if err != nil {
		return "rejected", Result{Summary: err.Error()}
	}
	res := c.Check(context.Background(), hf.Ops, Env{})
	switch {
	case res.Input != nil:
		return "rejected", res
	case res.Valid == Valid:
		return "linearizable", res
	case res.Valid == Invalid:
		return "not-linearizable", res
	}
	return "unknown", res
}

// knossosDivergences are the corpus histories where faultline answers
// differently from Knossos on purpose, with the answer it gives and why.
// expected.tsv keeps Knossos' assertion.
var knossosDivergences = map[string]struct{ got, why string }{
	// 28 nemesis ops and no client op: Knossos calls it linearizable, but a
	// history that asked the system nothing proves nothing, so faultline
	// answers unknown (faultline check exits 2) and says it holds no client op.
	"cas-register/good/mongodb-v0-ack-rollback-.edn": {"unknown", "the history holds no client ops"},
}

// TestKnossosCorpus asserts Knossos' own verdict on every history its tests
// check (see testdata/corpus/knossos/README.md), but for the divergences
// above.
func TestKnossosCorpus(t *testing.T) {
	dir, cases := loadKnossos(t)
	matched := 0
	for _, kc := range cases {
		got, res := knossosOutcome(t, filepath.Join(dir, kc.file), kc.model, kc.init)
		if d, ok := knossosDivergences[kc.file]; ok {
			if got != d.got || !strings.Contains(res.Summary, d.why) {
				t.Errorf("%s: got %s (%s), want the divergence from Knossos' %s: %s, %q", kc.file, got, res.Summary, kc.want, d.got, d.why)
			}
			matched++
			continue
		}
		if got != kc.want {
			t.Errorf("%s (--model %s --init %s): got %s, want %s (%s): %s", kc.file, kc.model, kc.init, got, kc.want, kc.source, res.Summary)
			continue
		}
		matched++
	}
	t.Logf("Knossos corpus: %d of %d cases match", matched, len(cases))
}

// TestUninvokedInfoDropped: a client info with no open invocation (Knossos'
// crash record) is dropped and counted, while an ok with none is still refused.
func TestUninvokedInfoDropped(t *testing.T) {
	h := []history.Op{
		{Index: 0, Process: 2, Type: history.Info, F: "crash"},
		{Index: 1, Process: 0, Type: history.Invoke, F: "write", Value: int64(1)},
		{Index: 2, Process: 0, Type: history.OK, F: "write", Value: int64(1)},
		{Index: 3, Process: 3, Type: history.Info, F: "crash"},
		{Index: 4, Process: 1, Type: history.Invoke, F: "read"},
		{Index: 5, Process: 1, Type: history.OK, F: "read", Value: int64(1)},
	}
	res := run(t, mustLinearizable(t, "register", int64(0)), h)
	if res.Valid != Valid || res.Details["uninvoked_infos_dropped"] != 2 || res.Consumed.Ops != 2 {
		t.Fatalf("got %s (%v), consumed %d: %s", res.Valid, res.Details["uninvoked_infos_dropped"], res.Consumed.Ops, res.Summary)
	}
	// The read is checked at its own position: a read of a value never
	// written is still found after the positions were remapped.
	h[5].Value = int64(9)
	if res := run(t, mustLinearizable(t, "register", int64(0)), h); res.Valid != Invalid {
		t.Fatalf("read of 9: got %s: %s", res.Valid, res.Summary)
	}
	bad := []history.Op{{Index: 0, Process: 0, Type: history.OK, F: "read", Value: int64(1)}}
	if res := run(t, mustLinearizable(t, "register", int64(0)), bad); res.Input == nil {
		t.Fatalf("an ok with no invocation was accepted: %s %s", res.Valid, res.Summary)
	}
}
