package client_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/faultline/faultline/client"
	"github.com/faultline/faultline/history"
)

// openWorker starts a session of p and opens one worker, both closed when t
// ends.
func openWorker(t *testing.T, p *client.Postgres) client.Worker {
	t.Helper()
	s, err := p.Start(1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	w, err := s.Open(0, 0, "n1")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w
}

func txnOp(mops ...[]any) history.Op {
	v := make([]any, len(mops))
	for i, m := range mops {
		v[i] = m
	}
	return history.Op{Type: history.Invoke, F: "txn", Value: v}
}

// testWorker checks single operations' completions against a real server:
// reads see earlier appends, writes and transfers; what cannot run fails
// without touching the database.
func testWorker(t *testing.T, dsn string) {
	ctx := context.Background()
	k, v := int64(7), func(n int64) []any { return []any{"append", int64(7), n} }

	la := openWorker(t, &client.Postgres{DSN: dsn, Isolation: "serializable", Workload: "list-append"})
	inv := txnOp([]any{"r", k, nil}, v(1), v(2), []any{"r", k, nil})
	got := la.Invoke(ctx, inv)
	want := "[[r 7 <nil>] [append 7 1] [append 7 2] [r 7 [1 2]]]"
	if got.Type != history.OK || fmt.Sprint(got.Value) != want {
		t.Errorf("list-append: %s %v (error %q), want ok %s", got.Type, got.Value, got.Error, want)
	}
	if fmt.Sprint(inv.Value) != "[[r 7 <nil>] [append 7 1] [append 7 2] [r 7 <nil>]]" {
		t.Errorf("the invocation's value was modified: %v", inv.Value)
	}
	if got := la.Invoke(ctx, txnOp([]any{"append", "k", int64(1)})); got.Type != history.Fail || got.Error == "" {
		t.Errorf("a string key: %s %q, want fail with an error", got.Type, got.Error)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if got := la.Invoke(cancelled, txnOp(v(3))); got.Type != history.Fail {
		t.Errorf("a cancelled op: %s %q, want fail: COMMIT was never sent", got.Type, got.Error)
	}
	if got := la.Invoke(ctx, txnOp([]any{"r", k, nil})); got.Type != history.OK || fmt.Sprint(got.Value) != "[[r 7 [1 2]]]" {
		t.Errorf("after a cancelled op: %s %v (%q), want ok [[r 7 [1 2]]]: the worker should reconnect and 3 never land", got.Type, got.Value, got.Error)
	}

	rw := openWorker(t, &client.Postgres{DSN: dsn, Isolation: "repeatable-read", Workload: "rw-register"})
	got = rw.Invoke(ctx, txnOp([]any{"r", k, nil}, []any{"w", k, int64(5)}, []any{"r", k, nil}))
	if want := "[[r 7 <nil>] [w 7 5] [r 7 5]]"; got.Type != history.OK || fmt.Sprint(got.Value) != want {
		t.Errorf("rw-register: %s %v (%q), want ok %s", got.Type, got.Value, got.Error, want)
	}

	bank := openWorker(t, &client.Postgres{DSN: dsn, Isolation: "read-committed", Workload: "bank", Accounts: 3, Total: 10})
	read := func() string {
		got := bank.Invoke(ctx, history.Op{Type: history.Invoke, F: "read"})
		if got.Type != history.OK {
			t.Fatalf("bank read: %s %q", got.Type, got.Error)
		}
		return fmt.Sprint(got.Value)
	}
	if got := read(); got != "map[0:4 1:3 2:3]" {
		t.Errorf("seeded balances %s, want map[0:4 1:3 2:3]", got)
	}
	transfer := func(from, to, amount int64) history.Op {
		return bank.Invoke(ctx, history.Op{Type: history.Invoke, F: "transfer",
			Value: map[string]any{"from": from, "to": to, "amount": amount}})
	}
	if got := transfer(0, 2, 4); got.Type != history.OK {
		t.Errorf("transfer: %s %q", got.Type, got.Error)
	}
	if got := transfer(1, 0, 4); got.Type != history.Fail || got.Error != "insufficient-funds" {
		t.Errorf("overdraft: %s %q, want fail insufficient-funds", got.Type, got.Error)
	}
	if got := read(); got != "map[0:0 1:3 2:7]" {
		t.Errorf("balances %s after the transfers, want map[0:0 1:3 2:7]", got)
	}
}
