package client

import (
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/faultline/faultline/history"
)

// postgresSQL is the statement text of one run's workload, its table name
// already spliced in (the name is generated, never user input).
type postgresSQL struct {
	create, seed          string
	append, write, read   string
	balance, add, readAll string
}

// sql returns the statements for s's workload and table.
func (s *postgresSession) sql() postgresSQL {
	t := s.table
	switch s.cfg.Workload {
	case "bank":
		return postgresSQL{
			create: "CREATE TABLE IF NOT EXISTS " + t + " (id bigint PRIMARY KEY, balance bigint NOT NULL)",
			// Every account gets total/accounts; account 0 also takes the remainder.
			seed: "INSERT INTO " + t + " (id, balance) SELECT i, $2::bigint / $1::bigint + " +
				"CASE WHEN i = 0 THEN $2::bigint % $1::bigint ELSE 0 END " +
				"FROM generate_series(0, $1::bigint - 1) AS i ON CONFLICT (id) DO NOTHING",
			balance: "SELECT balance FROM " + t + " WHERE id = $1",
			add:     "UPDATE " + t + " SET balance = balance + $2 WHERE id = $1",
			readAll: "SELECT id, balance FROM " + t + " ORDER BY id",
		}
	case "rw-register":
		return postgresSQL{
			create: "CREATE TABLE IF NOT EXISTS " + t + " (k bigint PRIMARY KEY, val bigint NOT NULL)",
			write: "INSERT INTO " + t + " AS cur (k, val) VALUES ($1, $2) " +
				"ON CONFLICT (k) DO UPDATE SET val = EXCLUDED.val",
			read: "SELECT val FROM " + t + " WHERE k = $1",
		}
	default: // list-append: one array per key, appended in place
		return postgresSQL{
			create: "CREATE TABLE IF NOT EXISTS " + t + " (k bigint PRIMARY KEY, val bigint[] NOT NULL)",
			append: "INSERT INTO " + t + " AS cur (k, val) VALUES ($1, ARRAY[$2::bigint]) " +
				"ON CONFLICT (k) DO UPDATE SET val = cur.val || EXCLUDED.val",
			read: "SELECT val FROM " + t + " WHERE k = $1",
		}
	}
}

// stage is how far a transaction got when it failed, which decides whether
// it may have committed.
type stage uint8

const (
	stageBefore stage = iota // COMMIT was not sent: nothing can have committed
	stageCommit              // COMMIT was sent: without a clear answer, it may have
)

// SQLSTATEs that mean the server rolled the transaction back.
const (
	sqlstateSerialization = "40001" // serialization_failure
	sqlstateDeadlock      = "40P01" // deadlock_detected
)

// classify turns an error into the op's completion type: fail when the
// transaction certainly did not commit, info when it may have.
func classify(err error, st stage) history.Type {
	if st == stageBefore {
		return history.Fail
	}
	if errors.Is(err, pgx.ErrTxCommitRollback) {
		return history.Fail // the server answered COMMIT with ROLLBACK
	}
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		// Class 40 (transaction rollback) and 23 (integrity violation, e.g. a
		// deferred constraint) are the server refusing to commit. Anything
		// else at COMMIT, say an admin shutdown, leaves the outcome open.
		if len(pg.Code) == 5 && (pg.Code[:2] == "40" || pg.Code[:2] == "23") {
			return history.Fail
		}
	}
	return history.Info // a lost connection or timeout mid-COMMIT
}

// errorName is the short, stable error text recorded in the history.
func errorName(err error) string {
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		switch pg.Code {
		case sqlstateSerialization:
			return "serialization-failure"
		case sqlstateDeadlock:
			return "deadlock"
		}
		return fmt.Sprintf("sqlstate %s: %s", pg.Code, pg.Message)
	}
	return err.Error()
}

// badOp marks an op the client cannot express in SQL; nothing is sent for it.
func badOp(err error) error { return fmt.Errorf("postgres: %w", err) }

// sqlMop is one parsed micro-op. raw is its function as the history spelled
// it, echoed in the completion.
type sqlMop struct {
	raw  any
	f    string // "append", "r" or "w"
	k, v int64
}

// parseMops reads a transaction's micro-ops [f k v] for workload, which
// needs integer keys and values.
func parseMops(value any, workload string) ([]sqlMop, error) {
	list, ok := value.([]any)
	if !ok {
		return nil, fmt.Errorf("txn value must be a list of [f key value], got %s", history.FormatEDN(value))
	}
	out := make([]sqlMop, len(list))
	for i, x := range list {
		m, ok := x.([]any)
		if !ok || len(m) < 2 || len(m) > 3 {
			return nil, fmt.Errorf("micro-op %d: want [f key value], got %s", i, history.FormatEDN(x))
		}
		f, err := mopName(m[0], workload)
		if err != nil {
			return nil, fmt.Errorf("micro-op %d: %w", i, err)
		}
		k, ok := m[1].(int64)
		if !ok {
			return nil, fmt.Errorf("micro-op %d: key must be an integer, got %s", i, history.FormatEDN(m[1]))
		}
		out[i] = sqlMop{raw: m[0], f: f, k: k}
		if f == "r" {
			continue
		}
		if len(m) != 3 {
			return nil, fmt.Errorf("micro-op %d: %s needs a value", i, f)
		}
		if out[i].v, ok = m[2].(int64); !ok {
			return nil, fmt.Errorf("micro-op %d: value must be an integer, got %s", i, history.FormatEDN(m[2]))
		}
	}
	return out, nil
}

// mopName normalises a micro-op function and checks it suits workload.
func mopName(f any, workload string) (string, error) {
	var name string
	switch x := f.(type) {
	case string:
		name = x
	case history.Keyword:
		name = string(x)
	default:
		return "", fmt.Errorf("function must be a string, got %s", history.FormatEDN(f))
	}
	switch name {
	case "r", "read":
		return "r", nil
	case "append":
		if workload == "list-append" {
			return "append", nil
		}
	case "w", "write":
		if workload == "rw-register" {
			return "w", nil
		}
	default:
		return "", fmt.Errorf("unknown function %q", name)
	}
	return "", fmt.Errorf("%q is not a %s operation", name, workload)
}

// transfer is a parsed bank transfer.
type transfer struct{ from, to, amount int64 }

// parseTransfer reads {"from": a, "to": b, "amount": n} with distinct
// accounts below accounts and a positive amount.
func parseTransfer(value any, accounts int64) (transfer, error) {
	m, ok := value.(map[string]any)
	if !ok {
		return transfer{}, fmt.Errorf("transfer value must be {from, to, amount}, got %s", history.FormatEDN(value))
	}
	var t transfer
	for _, f := range []struct {
		name string
		dst  *int64
	}{{"from", &t.from}, {"to", &t.to}, {"amount", &t.amount}} {
		n, ok := m[f.name].(int64)
		if !ok {
			return transfer{}, fmt.Errorf("transfer %s must be an integer, got %s", f.name, history.FormatEDN(m[f.name]))
		}
		*f.dst = n
	}
	switch {
	case t.from < 0 || t.from >= accounts || t.to < 0 || t.to >= accounts:
		return transfer{}, fmt.Errorf("transfer between %d and %d: accounts are 0..%d", t.from, t.to, accounts-1)
	case t.from == t.to:
		return transfer{}, fmt.Errorf("transfer from account %d to itself", t.from)
	case t.amount <= 0:
		return transfer{}, fmt.Errorf("transfer amount must be positive, got %d", t.amount)
	}
	return t, nil
}
