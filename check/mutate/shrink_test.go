package mutate

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/faultline/faultline/check"
	"github.com/faultline/faultline/history"
	"github.com/faultline/faultline/internal/testcorpus"
)

// corpusHistory reads one corpus history and checks it is listed with the
// verdict the test expects.
func corpusHistory(t *testing.T, corpus, file, verdict string) []history.Op {
	t.Helper()
	if got := testcorpus.Expected(t, corpus)[file]; got != verdict {
		t.Fatalf("%s/%s is listed as %q, want %q", corpus, file, got, verdict)
	}
	f, err := history.ReadFile(filepath.Join(testcorpus.Dir(t, corpus), file), history.Auto)
	if err != nil {
		t.Fatal(err)
	}
	return f.Ops
}

// wellFormed fails the test unless every op of small is an op of big, in the
// same order, and small pairs.
func wellFormed(t *testing.T, big, small []history.Op) {
	t.Helper()
	if _, err := history.Pair(small); err != nil {
		t.Fatalf("shrunk history is malformed: %v", err)
	}
	at := 0
	for _, o := range small {
		for at < len(big) && big[at].Index != o.Index {
			at++
		}
		if at == len(big) {
			t.Fatalf("op %d is not in the original history, or out of order", o.Index)
		}
	}
}

// TestShrinkCorpus shrinks non-linearizable Jepsen histories: the result is
// still invalid, strictly smaller and well formed.
func TestShrinkCorpus(t *testing.T) {
	for _, tt := range []struct{ corpus, file, model string }{
		{"porcupine-etcd", "etcd_000.log", "cas-register"},
		{"porcupine-kv", "c01-bad.txt", "kv"},
	} {
		t.Run(tt.file, func(t *testing.T) {
			h := corpusHistory(t, tt.corpus, tt.file, "not-linearizable")
			before := clone(h)
			c := linearizable(t, tt.model)
			s, err := Shrink(context.Background(), c, h, ShrinkOptions{MaxRuns: 300})
			if err != nil {
				t.Fatal(err)
			}
			unchanged(t, before, h)
			wellFormed(t, h, s.Ops)
			if len(s.Ops) >= len(h) || s.Runs > 300 {
				t.Errorf("%s in %d runs", s.Description, s.Runs)
			}
			if r := c.Check(context.Background(), s.Ops, check.Env{}); r.Valid != check.Invalid {
				t.Errorf("shrunk history is %s: %s", r.Valid, r.Summary)
			}
			if !strings.HasPrefix(s.Description, strings.Split(s.Description, " ")[0]+" ops -> ") {
				t.Errorf("description %q", s.Description)
			}
			t.Logf("%s in %d runs", s.Description, s.Runs)
		})
	}
}

// TestShrinkTransactional shrinks list-append histories with a G1c and a
// G-single cycle buried among unrelated transactions, keeping the class.
func TestShrinkTransactional(t *testing.T) {
	noise := cat(
		whole(3, "txn", "[[:append :z 1]]", "[[:append :z 1]]"),
		whole(4, "txn", "[[:r :z nil]]", "[[:r :z [1]]]"),
		whole(3, "txn", "[[:append :w 1] [:append :z 2]]", "[[:append :w 1] [:append :z 2]]"),
		whole(4, "txn", "[[:r :w nil] [:r :z nil]]", "[[:r :w [1]] [:r :z [1 2]]]"),
	)
	for _, tt := range []struct {
		name, anomaly string
		cycle         []string
	}{
		{"G1c", "G1c", cat(
			whole(0, "txn", "[[:append :x 1] [:r :y nil]]", "[[:append :x 1] [:r :y [1]]]"),
			whole(1, "txn", "[[:append :x 2] [:append :y 1]]", "[[:append :x 2] [:append :y 1]]"),
			whole(2, "txn", "[[:r :x nil]]", "[[:r :x [1 2]]]"),
		)},
		{"G-single", "G-single-item", cat(
			whole(0, "txn", "[[:append :x 1] [:append :y 1]]", "[[:append :x 1] [:append :y 1]]"),
			whole(1, "txn", "[[:r :x nil] [:r :y nil]]", "[[:r :x []] [:r :y [1]]]"),
			whole(2, "txn", "[[:r :x nil]]", "[[:r :x [1]]]"),
		)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := edn(t, cat(noise[:4], tt.cycle, noise[4:])...)
			c := transactional(t, "serializable")
			s, err := Shrink(context.Background(), c, h, ShrinkOptions{})
			if err != nil {
				t.Fatal(err)
			}
			wellFormed(t, h, s.Ops)
			if s.Anomaly != tt.anomaly || len(s.Ops) > len(tt.cycle) {
				t.Errorf("kept %s, %s; want %s within the %d ops of the cycle", s.Anomaly, s.Description, tt.anomaly, len(tt.cycle))
			}
			r := c.Check(context.Background(), s.Ops, check.Env{})
			if types, _ := r.Details["anomaly_types"].([]string); !slices.Contains(types, tt.anomaly) {
				t.Errorf("shrunk history shows %q", types)
			}
		})
	}
}

// TestShrinkRefusesValid: there is nothing to shrink in a history the
// checker accepts.
func TestShrinkRefusesValid(t *testing.T) {
	_, err := Shrink(context.Background(), linearizable(t, "register"), registerHistory(t), ShrinkOptions{})
	if !errors.Is(err, ErrNotInvalid) {
		t.Errorf("err = %v, want ErrNotInvalid", err)
	}
}

// TestShrinkRunBudget: the run bound holds, and what comes back still fails.
func TestShrinkRunBudget(t *testing.T) {
	h := corpusHistory(t, "porcupine-etcd", "etcd_000.log", "not-linearizable")
	c := linearizable(t, "cas-register")
	s, err := Shrink(context.Background(), c, h, ShrinkOptions{MaxRuns: 5})
	if err != nil {
		t.Fatal(err)
	}
	if s.Runs > 5 || s.Result.Valid != check.Invalid {
		t.Errorf("%d runs, result %s", s.Runs, s.Result.Valid)
	}
	if r := c.Check(context.Background(), s.Ops, check.Env{}); r.Valid != check.Invalid {
		t.Errorf("shrunk history is %s", r.Valid)
	}
}
