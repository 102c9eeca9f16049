package sqlmod_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.starlark.net/starlark"

	"github.com/faultline/faultline/check"
	"github.com/faultline/faultline/control"
	"github.com/faultline/faultline/history"
	"github.com/faultline/faultline/internal/integration"
	"github.com/faultline/faultline/interp"
	"github.com/faultline/faultline/star"
	"github.com/faultline/faultline/star/dialect"
	"github.com/faultline/faultline/star/sqlmod"
)

// suite declares list-append scenarios written only in Starlark over the sql
// module (@stdlib//db/sql.star), each checked against the level it runs at,
// with enough contention (few keys, many clients) that the servers refuse
// transactions, and a probe scenario of the module's outcomes.
const suite = `
load("@stdlib//db/sql.star", "list_append")

scenario(name = "serializable", **list_append(driver = %[1]q, dsn = %[2]q, table = "la_ser",
    isolation = "serializable", key_count = 4, concurrency = 10, duration = "3s", min_ops = 100))
scenario(name = "read-committed", **list_append(driver = %[1]q, dsn = %[2]q, table = "la_rc",
    isolation = "read-committed", consistency_models = ["serializable"],
    key_count = 2, max_txn_len = 4, concurrency = 10, duration = "3s", min_ops = 100))
`

// TestListAppendOverSQL runs the Starlark client against private, real
// PostgreSQL and MariaDB servers: SERIALIZABLE must check serializable, with
// the servers' refusals recorded as fail (not info); READ COMMITTED under
// contention must show an anomaly serializable forbids, so the checker
// could fail on this history shape.
func TestListAppendOverSQL(t *testing.T) {
	for _, db := range []struct {
		driver string
		start  func(testing.TB) string
	}{
		{"postgres", integration.StartPostgres},
		{"mysql", integration.StartMariaDB},
	} {
		t.Run(db.driver, func(t *testing.T) {
			runs := runSuite(t, fmt.Sprintf(suite, db.driver, db.start(t)))
			ser := runs["serializable"]
			if ser.Check.Valid != check.Valid {
				t.Fatalf("SERIALIZABLE over %s: %s\n%s", db.driver, ser.Check.Summary, ser.Check.Explanation)
			}
			refused := 0
			for _, op := range ser.Ops {
				if op.Type == history.Info {
					t.Errorf("an op ended info with the server up: %v", op.Error)
				}
				msg := fmt.Sprint(op.Error)
				if op.Type == history.Fail && (strings.Contains(msg, "serialization-failure") || strings.Contains(msg, "deadlock")) {
					refused++
				}
			}
			if refused == 0 {
				t.Error("no transaction was refused at SERIALIZABLE: the contention the test relies on is missing, or refusals are not recorded as fail")
			}
			rc := runs["read-committed"]
			if rc.Check.Valid != check.Invalid {
				t.Errorf("READ COMMITTED under contention passed as serializable (%s): %s", rc.Check.Valid, rc.Check.Summary)
			}
		})
	}
}

// runSuite loads src and runs every scenario on one local node (the client
// ignores it: both servers are one DSN), returning the results by name.
func runSuite(t *testing.T, src string) map[string]*interp.Result {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "suite.star")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	pool, err := control.NewPool([]control.Node{{Name: "n1", Host: "127.0.0.1"}}, control.LocalDialer())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pool.Close() })
	ctx := context.Background()
	script, err := interp.Load(ctx, path, interp.LoadOptions{Seed: 1, Pool: pool})
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	runs := map[string]*interp.Result{}
	for _, s := range script.Scenarios {
		res, err := interp.Run(ctx, s, interp.RunOptions{Seed: 1, Dir: filepath.Join(dir, s.Name), Pool: pool})
		if err != nil {
			t.Fatalf("%s: Run: %v", s.Name, err)
		}
		if len(res.Problems) != 0 {
			t.Errorf("%s: problems: %v", s.Name, res.Problems)
		}
		t.Logf("%s: ok=%d fail=%d info=%d; %s", s.Name, res.Summary.OK, res.Summary.Fail, res.Summary.Info, res.Check.Summary)
		runs[s.Name] = res
	}
	return runs
}

// TestAbandonedTransaction: a transaction an invoke left open is rolled
// back by the thread's next begin, so its writes never commit and its
// connection comes back (with max_conns = 1 the next begin would wait for
// it forever).
func TestAbandonedTransaction(t *testing.T) {
	dsn := integration.StartPostgres(t)
	src := fmt.Sprintf(`
db = sql.open("postgres", %q, max_conns = 1)
db.exec("CREATE TABLE t (k BIGINT PRIMARY KEY)")
tx = db.begin(isolation = "serializable")
tx.exec("INSERT INTO t VALUES (1)")
# abandoned: neither committed nor rolled back
tx2 = db.begin()
rows = tx2.query("SELECT count(*) FROM t")
tx2.commit()
`, dsn)
	thread := &starlark.Thread{Name: "test"}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	star.SetContext(thread, ctx)
	g, err := starlark.ExecFileOptions(dialect.Options, thread, "abandon.star", src, starlark.StringDict{"sql": sqlmod.Module})
	if err != nil {
		t.Fatal(err)
	}
	if got := g["rows"].String(); got != "[(0,)]" {
		t.Errorf("rows = %s, want [(0,)]: the abandoned insert committed", got)
	}
}
