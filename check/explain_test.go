package check

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	goldenfile "github.com/faultline/faultline/internal/golden"
	"github.com/faultline/faultline/internal/testhist"
)

// golden compares got with testdata/name, or rewrites it under -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", name), []byte(got))
}

// staleRead is a register history that loses a write while a partition is on.
var staleRead = []string{
	"0 :invoke :write 1", "0 :ok :write 1",
	":nemesis :info :start-partition nil",
	`:nemesis :info :start-partition [:isolated {"n1" ["n2" "n3"]}]`,
	"1 :invoke :write 2", "1 :ok :write 2",
	"2 :invoke :read nil", "3 :invoke :write 3", "2 :ok :read 1",
	":nemesis :info :stop-partition nil", ":nemesis :info :stop-partition :network-healed",
	"3 :info :write :timed-out",
}

// resultText is the part of a result a person reads, for golden files.
func resultText(r Result) string {
	return "valid: " + string(r.Valid) + "\nsummary: " + r.Summary + "\n\n" + r.Explanation
}

func TestExplanationGolden(t *testing.T) {
	tests := []struct {
		golden string
		model  string
		init   any
		h      []string
	}{
		{"explain-register.txt", "register", nil, staleRead},
		{"explain-cas.txt", "cas-register", int64(0), []string{
			"0 :invoke :cas [0 1]", "0 :ok :cas [0 1]",
			"1 :invoke :read nil", "2 :invoke :cas [0 2]", "1 :ok :read 1", "2 :ok :cas [0 2]",
		}},
		{"explain-multi.txt", "multi-register", map[string]any{"x": int64(0), "y": int64(0)}, []string{
			"0 :invoke :txn [[:write :x 1] [:write :y 1]]", "0 :ok :txn [[:write :x 1] [:write :y 1]]",
			"1 :invoke :txn [[:read :x nil] [:read :y nil]]", "1 :ok :txn [[:read :x 1] [:read :y 0]]",
		}},
		{"explain-kv.txt", "kv", nil, []string{
			`0 :invoke :append [:k "a"]`, `0 :ok :append [:k "a"]`,
			`1 :invoke :append [:k "b"]`, `2 :invoke :get [:k nil]`, `2 :ok :get [:k "b"]`, `1 :ok :append [:k "b"]`,
			`3 :invoke :get [:j nil]`, `3 :ok :get [:j ""]`,
		}},
		{"explain-first-op.txt", "register", nil, []string{"0 :invoke :read nil", "0 :ok :read 5"}},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			res := run(t, mustLinearizable(t, tt.model, tt.init), testhist.JepsenLog(t, tt.h...))
			if res.Valid != Invalid {
				t.Fatalf("got %s: %s", res.Valid, res.Summary)
			}
			golden(t, tt.golden, resultText(res))
		})
	}
}

// TestExplanationContent pins the facts the text must carry, independent of layout.
func TestExplanationContent(t *testing.T) {
	res := run(t, mustLinearizable(t, "register", nil), testhist.JepsenLog(t, staleRead...))
	for _, want := range []string{
		"Longest linearizable prefix: 3 of 4 ops", // write 1, write 2, then the info write 3 fits too
		"#6->#8 (p2 read -> 1) cannot be linearized",
		"the state could only be: 2, 3", // 1 was overwritten before the read began; 3 may have landed
		"it returned 1, but the register holds 3",
		"start-partition .. stop-partition (ops 2..10)",
	} {
		if !strings.Contains(res.Explanation, want) {
			t.Errorf("explanation lacks %q:\n%s", want, res.Explanation)
		}
	}
	if res.Details["blocking_op"] != int64(6) || res.Details["prefix_ops"] != 3 {
		t.Errorf("details %v", res.Details)
	}
	if !strings.Contains(res.Summary, "#6->#8 (p2 read -> 1)") {
		t.Errorf("summary does not name the op: %s", res.Summary)
	}
}

// TestExplanationExtra: the extra fields a client recorded on an op (here
// a zxid) are named wherever the explanation names the op.
func TestExplanationExtra(t *testing.T) {
	h := testhist.JepsenLog(t, staleRead...)
	for i := range h {
		if h[i].Index == 8 { // the stale read's completion
			h[i].Extra = map[string]any{"zxid": int64(12), "server": "n1"}
		}
	}
	res := run(t, mustLinearizable(t, "register", nil), h)
	want := `#6->#8 (p2 read -> 1; server="n1" zxid=12)`
	if !strings.Contains(res.Explanation, want+" cannot be linearized") || !strings.Contains(res.Summary, want) {
		t.Errorf("explanation or summary lacks %q:\n%s\n%s", want, res.Summary, res.Explanation)
	}
}

func TestTimeoutGolden(t *testing.T) {
	res := mustLinearizable(t, "register", nil).Check(context.Background(), hardHistory(t, 30), Env{Timeout: 20 * time.Millisecond})
	golden(t, "timeout-register.txt", resultText(res))
}

func TestVisualization(t *testing.T) {
	t.Run("invalid writes the page with nemesis windows", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "out")
		res := mustLinearizable(t, "register", nil).Check(context.Background(), testhist.JepsenLog(t, staleRead...), Env{OutDir: dir})
		if res.Valid != Invalid || len(res.Artifacts) != 1 || res.Artifacts[0] != VisualizationFile {
			t.Fatalf("got %s, artifacts %v", res.Valid, res.Artifacts)
		}
		page, err := os.ReadFile(filepath.Join(dir, VisualizationFile))
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{`"Tag":"nemesis"`, `"Description":"start-partition .. stop-partition"`, `read -\u003e 1`, `op 6, process 2`} {
			if !strings.Contains(string(page), want) {
				t.Errorf("page lacks %s", want)
			}
		}
	})
	t.Run("unknown writes the page", func(t *testing.T) {
		dir := t.TempDir()
		res := mustLinearizable(t, "register", nil).Check(context.Background(), hardHistory(t, 30), Env{OutDir: dir, Timeout: 10 * time.Millisecond})
		if res.Valid != Unknown || len(res.Artifacts) != 1 {
			t.Fatalf("got %s, artifacts %v", res.Valid, res.Artifacts)
		}
		if _, err := os.Stat(filepath.Join(dir, VisualizationFile)); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("valid writes nothing", func(t *testing.T) {
		dir := t.TempDir()
		h := testhist.JepsenLog(t, "0 :invoke :write 1", "0 :ok :write 1")
		res := mustLinearizable(t, "register", nil).Check(context.Background(), h, Env{OutDir: dir})
		entries, _ := os.ReadDir(dir)
		if res.Valid != Valid || len(res.Artifacts) != 0 || len(entries) != 0 {
			t.Fatalf("got %s, artifacts %v, files %v", res.Valid, res.Artifacts, entries)
		}
	})
	t.Run("unwritable directory is reported", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "file")
		if err := os.WriteFile(file, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		res := mustLinearizable(t, "register", nil).Check(context.Background(), testhist.JepsenLog(t, staleRead...), Env{OutDir: file})
		if res.Valid != Invalid || len(res.Artifacts) != 0 || !strings.Contains(res.Explanation, "visualization could not be written") {
			t.Fatalf("got %s, artifacts %v:\n%s", res.Valid, res.Artifacts, res.Explanation)
		}
	})
}
