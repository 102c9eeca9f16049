package client_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/faultline/faultline/check"
	"github.com/faultline/faultline/history"
	"github.com/faultline/faultline/internal/integration"
	"github.com/faultline/faultline/interp"
)

// isolationScript declares one list-append scenario per isolation level,
// all checked against serializable, with enough contention (few keys, many
// clients) that weak levels show their anomalies within seconds; and a bank
// scenario at SERIALIZABLE.
const isolationScript = `
load("@stdlib//db/postgres.star", "bank", "list_append")

DSN = %q

def pg(level):
    scenario(name = level, **list_append(
        dsn = DSN, isolation = level, consistency_models = ["serializable"],
        key_count = 4, max_txn_len = 4, concurrency = 12, duration = "4s", min_ops = 100))

pg("serializable")
pg("repeatable-read")
pg("read-committed")
scenario(name = "bank", **bank(dsn = DSN, isolation = "serializable", accounts = 5, total = 100,
                               concurrency = 8, duration = "3s", min_ops = 100))
`

// TestPostgres runs scenarios of the stdlib's PostgreSQL recipes against a
// private, real PostgreSQL server (started once; it takes seconds). The
// client's own operations are tested against one in package client.
func TestPostgres(t *testing.T) {
	dsn := integration.StartPostgres(t)
	t.Run("isolation levels", func(t *testing.T) { testIsolationLevels(t, dsn) })
}

// testIsolationLevels runs list-append against a real PostgreSQL at
// each isolation level and checks Elle's verdicts for PostgreSQL: nothing at
// SERIALIZABLE; snapshot isolation (G2-item possible, never G-single) at
// REPEATABLE READ; named, explained anomalies at READ COMMITTED, which still
// honours read committed. A bank run at SERIALIZABLE conserves the total.
func testIsolationLevels(t *testing.T, dsn string) {
	dir := t.TempDir()
	keepOnFailure(t, dir)
	path := filepath.Join(dir, "pg.star")
	if err := os.WriteFile(path, []byte(fmt.Sprintf(isolationScript, dsn)), 0o644); err != nil {
		t.Fatal(err)
	}
	script, err := interp.Load(context.Background(), path, interp.LoadOptions{Seed: 1})
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	runs := map[string]*interp.Result{}
	for _, s := range script.Scenarios {
		res, err := interp.Run(context.Background(), s, interp.RunOptions{Seed: 1, Dir: filepath.Join(dir, s.Name)})
		if err != nil {
			t.Fatalf("%s: Run: %v", s.Name, err)
		}
		if res.Virtual {
			t.Errorf("%s: a real database ran in simulated time", s.Name)
		}
		if len(res.Problems) != 0 {
			t.Errorf("%s: problems: %v", s.Name, res.Problems)
		}
		t.Logf("%s: ok=%d fail=%d info=%d; serializable: %s %s", s.Name, res.Summary.OK, res.Summary.Fail,
			res.Summary.Info, res.Check.Valid, res.Check.Summary)
		runs[s.Name] = res
	}

	t.Run("serializable", func(t *testing.T) {
		res := runs["serializable"]
		if res.Check.Valid != check.Valid {
			t.Fatalf("SERIALIZABLE is not serializable: %s\n%s", res.Check.Summary, res.Check.Explanation)
		}
		if res.Summary.Fail == 0 {
			t.Error("no transaction failed at SERIALIZABLE: the contention this test relies on is missing")
		}
	})

	t.Run("bank", func(t *testing.T) {
		res := runs["bank"]
		if res.Check.Valid != check.Valid {
			t.Fatalf("bank at SERIALIZABLE: %s: %s\n%s", res.Check.Valid, res.Check.Summary, res.Check.Explanation)
		}
		if reads, _ := res.Check.Details["reads"].(int); reads == 0 {
			t.Errorf("no ok read of the balances: %v", res.Check.Details)
		}
	})

	t.Run("repeatable-read", func(t *testing.T) {
		res := runs["repeatable-read"]
		if types := anomalyTypes(t, res.Check); slices.Contains(types, "G-single-item") {
			t.Fatalf("REPEATABLE READ showed G-single, which snapshot isolation forbids: %v\n%s", types, res.Check.Explanation)
		}
		if si := recheck(t, res.Ops, "snapshot-isolation"); si.Valid != check.Valid {
			t.Fatalf("REPEATABLE READ is not snapshot isolation: %s\n%s", si.Summary, si.Explanation)
		}
	})

	t.Run("read-committed", func(t *testing.T) {
		res := runs["read-committed"]
		if res.Check.Valid != check.Invalid {
			t.Fatalf("READ COMMITTED under contention passed as serializable (%s): %s", res.Check.Valid, res.Check.Summary)
		}
		types := anomalyTypes(t, res.Check)
		if !slices.ContainsFunc(types, isWriteSkewClass) {
			t.Errorf("anomalies %v include none of G-single, G2-item, lost-update", types)
		}
		if strings.TrimSpace(res.Check.Explanation) == "" {
			t.Error("anomalies came without an explanation")
		}
		t.Logf("READ COMMITTED anomalies: %v\n%s", types, firstLines(res.Check.Explanation, 12))
		if rc := recheck(t, res.Ops, "read-committed"); rc.Valid != check.Valid {
			t.Fatalf("READ COMMITTED is not read committed: %s\n%s", rc.Summary, rc.Explanation)
		}
	})
}

// isWriteSkewClass reports whether an anomaly type is one READ COMMITTED is
// known to allow: a single anti-dependency cycle, an item anti-dependency
// cycle, or a lost update (with any -process or -realtime suffix).
func isWriteSkewClass(a string) bool {
	for _, base := range []string{"G-single", "G2-item", "lost-update"} {
		if a == base || strings.HasPrefix(a, base+"-") {
			return true
		}
	}
	return false
}

// anomalyTypes returns the forbidden anomaly types a transactional check found.
func anomalyTypes(t *testing.T, r check.Result) []string {
	t.Helper()
	types, ok := r.Details["anomaly_types"].([]string)
	if !ok && r.Details["anomaly_types"] != nil {
		t.Fatalf("anomaly_types is %T, want []string", r.Details["anomaly_types"])
	}
	return types
}

// recheck checks a recorded list-append history against another model.
func recheck(t *testing.T, ops []history.Op, model string) check.Result {
	t.Helper()
	c, err := check.Transactional(check.TransactionalOptions{Workload: "list-append", ConsistencyModels: []string{model}})
	if err != nil {
		t.Fatal(err)
	}
	return c.Check(context.Background(), ops, check.Env{})
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}

// keepOnFailure copies dir, with every run's history, somewhere the test's
// cleanup does not remove when the test fails: a rare false verdict is only
// worth something if its history survives to be read.
func keepOnFailure(t *testing.T, dir string) {
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		keep, err := os.MkdirTemp("", "faultline-failed-"+strings.ReplaceAll(t.Name(), "/", "-")+"-")
		if err == nil {
			err = os.CopyFS(keep, os.DirFS(dir))
		}
		if err != nil {
			t.Logf("keeping the failed run's files: %v", err)
			return
		}
		t.Logf("the failed run's files, histories included, are kept in %s", keep)
	})
}
