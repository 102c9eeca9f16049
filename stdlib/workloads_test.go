package stdlib_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faultline/faultline/history"
	"github.com/faultline/faultline/interp"
)

// invocations runs workload expr (a Starlark expression over the loaded
// workloads) in simulated time against client.noop() and returns the client
// invocations in order.
func invocations(t *testing.T, expr string, seed uint64) []history.Op {
	t.Helper()
	ops, err := runWorkload(t, expr, seed)
	if err != nil {
		t.Fatal(err)
	}
	return ops
}

func runWorkload(t *testing.T, expr string, seed uint64) ([]history.Op, error) {
	t.Helper()
	src := fmt.Sprintf(`
load("@stdlib//workloads.star", "list_append", "rw_register", "bank", "set", "counter", "unique_ids", "queue", "register", "cas_register")
scenario(name = "w", client = client.noop(), workload = gen.stagger("1ms", %s), checker = check.stats(),
         concurrency = 4, budgets = {"smoke": budget(duration = "60s", ops = 400)})
`, expr)
	dir := t.TempDir()
	path := filepath.Join(dir, "w.star")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	script, err := interp.Load(context.Background(), path, interp.LoadOptions{Seed: seed})
	if err != nil {
		return nil, err
	}
	res, err := interp.Run(context.Background(), script.Scenarios[0], interp.RunOptions{Seed: seed, Dir: filepath.Join(dir, "run")})
	if err != nil {
		return nil, err
	}
	if !res.Virtual {
		t.Fatal("client.noop() should run in simulated time")
	}
	var out []history.Op
	for _, op := range res.Ops {
		if op.Type == history.Invoke && op.Process >= 0 {
			out = append(out, op)
		}
	}
	if len(out) < 300 {
		t.Fatalf("only %d invocations", len(out))
	}
	return out, nil
}

// mops returns a txn invocation's micro-ops as (f, key, value) triples.
func mops(t *testing.T, op history.Op) [][]any {
	t.Helper()
	if op.F != "txn" {
		t.Fatalf("op %d: f = %q, want txn", op.Index, op.F)
	}
	list, ok := op.Value.([]any)
	if !ok {
		t.Fatalf("op %d: value %v is not a list", op.Index, op.Value)
	}
	out := make([][]any, len(list))
	for i, x := range list {
		m, ok := x.([]any)
		if !ok || len(m) != 3 {
			t.Fatalf("op %d: micro-op %v is not [f k v]", op.Index, x)
		}
		out[i] = m
	}
	return out
}

// checkTxns checks the Elle workload contract: lengths within bounds, only
// the workload's functions, values unique per key and within
// 1..maxWrites, never a key used again once its last value was written,
// never more than keyCount live keys, and rotation bringing in new keys.
// (The generator may draw an op that the engine then discards, so values can
// skip; they never repeat.)
func checkTxns(t *testing.T, ops []history.Op, writeF string, keyCount, minLen, maxLen, maxWrites int) {
	t.Helper()
	seen := map[[2]int64]bool{}
	written := map[int64]bool{}
	retired := map[int64]bool{}
	live := map[int64]bool{}
	for _, op := range ops {
		ms := mops(t, op)
		if len(ms) < minLen || len(ms) > maxLen {
			t.Fatalf("op %d: %d micro-ops, want %d..%d", op.Index, len(ms), minLen, maxLen)
		}
		for _, m := range ms {
			k, ok := m[1].(int64)
			if !ok {
				t.Fatalf("op %d: key %v is not an int", op.Index, m[1])
			}
			if retired[k] {
				t.Fatalf("op %d: key %d used after it retired", op.Index, k)
			}
			if live[k] = true; len(live) > keyCount {
				t.Fatalf("op %d: %d live keys, want at most %d", op.Index, len(live), keyCount)
			}
			switch m[0] {
			case "r":
				if m[2] != nil {
					t.Fatalf("op %d: read %v carries a value", op.Index, m)
				}
			case writeF:
				v, _ := m[2].(int64)
				if v < 1 || v > int64(maxWrites) || seen[[2]int64{k, v}] {
					t.Fatalf("op %d: %v: want a value of key %d unique and within 1..%d", op.Index, m, k, maxWrites)
				}
				seen[[2]int64{k, v}] = true
				written[k] = true
				if v == int64(maxWrites) {
					retired[k] = true
					delete(live, k)
				}
			default:
				t.Fatalf("op %d: unexpected micro-op %v", op.Index, m)
			}
		}
	}
	if len(written) <= keyCount {
		t.Errorf("only %d keys written: keys never rotated", len(written))
	}
}

func TestListAppend(t *testing.T) {
	ops := invocations(t, "list_append(key_count = 3, min_txn_len = 2, max_txn_len = 5, max_writes_per_key = 8)", 1)
	checkTxns(t, ops, "append", 3, 2, 5, 8)
}

func TestRWRegister(t *testing.T) {
	ops := invocations(t, "rw_register(key_count = 2, max_txn_len = 3, max_writes_per_key = 5, read_ratio = 0.3)", 2)
	checkTxns(t, ops, "w", 2, 1, 3, 5)
}

func TestTxnWorkloadIsSeeded(t *testing.T) {
	const expr = "list_append(key_count = 4)"
	a := fmt.Sprint(valuesOf(invocations(t, expr, 5)))
	if b := fmt.Sprint(valuesOf(invocations(t, expr, 5))); a != b {
		t.Error("the same seed generated different transactions")
	}
	if c := fmt.Sprint(valuesOf(invocations(t, expr, 6))); a == c {
		t.Error("different seeds generated the same transactions")
	}
}

func valuesOf(ops []history.Op) []any {
	out := make([]any, len(ops))
	for i, op := range ops {
		out[i] = op.Value
	}
	return out
}

func TestBank(t *testing.T) {
	reads, transfers := 0, 0
	for _, op := range invocations(t, "bank(accounts = 4, total = 40, max_transfer = 6)", 3) {
		switch op.F {
		case "read":
			reads++
		case "transfer":
			transfers++
			m, _ := op.Value.(map[string]any)
			from, _ := m["from"].(int64)
			to, _ := m["to"].(int64)
			amount, _ := m["amount"].(int64)
			if from == to || from < 0 || from >= 4 || to < 0 || to >= 4 || amount < 1 || amount > 6 {
				t.Fatalf("op %d: bad transfer %v", op.Index, op.Value)
			}
		default:
			t.Fatalf("op %d: unexpected f %q", op.Index, op.F)
		}
	}
	if reads == 0 || transfers == 0 {
		t.Errorf("reads=%d transfers=%d: want both", reads, transfers)
	}
}

func TestSet(t *testing.T) {
	added, reads := map[int64]bool{}, 0
	for _, op := range invocations(t, "set(read_ratio = 0.2)", 4) {
		switch op.F {
		case "read":
			reads++
		case "add":
			n, ok := op.Value.(int64)
			if !ok || n < 0 || added[n] {
				t.Fatalf("op %d: added %v, want a fresh non-negative int", op.Index, op.Value)
			}
			added[n] = true
		default:
			t.Fatalf("op %d: unexpected f %q", op.Index, op.F)
		}
	}
	if reads == 0 || len(added) == 0 {
		t.Errorf("reads=%d adds=%d: want both", reads, len(added))
	}
}

func TestCounter(t *testing.T) {
	adds := 0
	for _, op := range invocations(t, "counter(max_add = 3)", 5) {
		if op.F == "read" {
			continue
		}
		n, _ := op.Value.(int64)
		if op.F != "add" || n < 1 || n > 3 {
			t.Fatalf("op %d: unexpected %s %v", op.Index, op.F, op.Value)
		}
		adds++
	}
	if adds == 0 {
		t.Error("no adds")
	}
}

func TestUniqueIDs(t *testing.T) {
	for _, op := range invocations(t, "unique_ids()", 6) {
		if op.F != "generate" {
			t.Fatalf("op %d: f = %q, want generate", op.Index, op.F)
		}
	}
}

// TestQueue: enqueues of unique values counting up (a value the engine
// drew and discarded is skipped), and dequeues.
func TestQueue(t *testing.T) {
	last, enq, deq := int64(-1), 0, 0
	for _, op := range invocations(t, "queue()", 200) {
		switch op.F {
		case "enqueue":
			v, ok := op.Value.(int64)
			if !ok || v <= last {
				t.Fatalf("op %d: enqueue %v after %d: want a larger int", op.Index, op.Value, last)
			}
			last, enq = v, enq+1
		case "dequeue":
			deq++
		default:
			t.Fatalf("op %d: f = %q", op.Index, op.F)
		}
	}
	if enq == 0 || deq == 0 {
		t.Errorf("%d enqueues, %d dequeues: want both", enq, deq)
	}
}

func TestWorkloadArgumentErrors(t *testing.T) {
	tests := []struct{ expr, want string }{
		{"list_append(key_count = 0)", "key_count must be at least 1"},
		{"list_append(min_txn_len = 3, max_txn_len = 2)", "min_txn_len <= max_txn_len"},
		{"rw_register(max_writes_per_key = 0)", "max_writes_per_key must be at least 1"},
		{"list_append(read_ratio = 1.5)", "read_ratio must be between 0 and 1"},
		{"bank(accounts = 1)", "at least 2 accounts"},
		{"bank(total = 3, max_transfer = 5)", "max_transfer <= total"},
		{"set(read_ratio = -1)", "read_ratio must be between 0 and 1"},
		{"queue(dequeue_ratio = 2)", "dequeue_ratio must be between 0 and 1"},
		{"counter(max_add = 0)", "max_add must be at least 1"},
	}
	for _, tt := range tests {
		_, err := runWorkload(t, tt.expr, 1)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want one containing %q", tt.expr, err, tt.want)
		}
	}
}

func TestPostgresRecipeLoads(t *testing.T) {
	// The recipes build their scenario arguments without touching the
	// database; connecting happens only when a run starts.
	src := `
load("@stdlib//db/postgres.star", "bank", "list_append")
DSN = "postgres://u@127.0.0.1:1/db"
scenario(name = "la", **list_append(dsn = DSN, isolation = "repeatable-read"))
scenario(name = "bank", **bank(dsn = DSN, isolation = "read-committed"))
`
	dir := t.TempDir()
	path := filepath.Join(dir, "pg.star")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	script, err := interp.Load(context.Background(), path, interp.LoadOptions{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(script.Scenarios) != 2 {
		t.Fatalf("got %d scenarios", len(script.Scenarios))
	}
	la := script.Scenarios[0]
	if la.Client.Simulated() || la.Time != "real" || !strings.Contains(la.Description, "snapshot-isolation") {
		t.Errorf("list-append recipe: client %v, time %q, description %q", la.Client, la.Time, la.Description)
	}
	if got := fmt.Sprint(la.Checker); !strings.Contains(got, "snapshot-isolation") {
		t.Errorf("REPEATABLE READ is checked against %s, want snapshot-isolation (what PostgreSQL claims)", got)
	}
	if got := fmt.Sprint(script.Scenarios[1].Checker); !strings.Contains(got, "check.bank(total=100") {
		t.Errorf("bank recipe checker = %s", got)
	}
}

// TestShellQuote: a value with quotes, spaces, $() and newlines stays one
// word of the command line the db recipes write into run.sh.
func TestShellQuote(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "argv")
	src := fmt.Sprintf(`
load("@stdlib//shell.star", "command")
line = command(["printf", "%%s\n", "it's", "a b", "$(touch %s/pwned)", "x\ny", "'"])
`, dir)
	path := filepath.Join(dir, "q.star")
	if err := os.WriteFile(path, []byte(src+"scenario(name = \"s\", client = client.noop(), workload = gen.limit(1, {\"f\": \"read\"}), checker = check.stats())\nprint(line)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var printed strings.Builder
	if _, err := interp.Load(context.Background(), path, interp.LoadOptions{Print: &printed}); err != nil {
		t.Fatal(err)
	}
	line := strings.TrimSuffix(printed.String(), "\n")
	cmd := exec.Command("sh", "-c", line+" > "+out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("sh -c %s: %v\n%s", line, err, b)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if want := "it's\na b\n$(touch " + dir + "/pwned)\nx\ny\n'\n"; string(got) != want {
		t.Errorf("words = %q, want %q", got, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "pwned")); err == nil {
		t.Error("a quoted $() ran")
	}
}
