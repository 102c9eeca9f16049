package client

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/faultline/faultline/history"
)

// Postgres is a real PostgreSQL database reached over the network. Each run
// gets fresh tables; each client process gets its own connection, and every
// operation runs as one SQL transaction at the chosen isolation level.
//
// Workloads and their op shapes:
//
//   - "list-append": F "txn", Value a list of micro-ops [f k v] with f
//     "append" or "r" and integer keys and values; reads complete with the
//     list they saw (nil when the key has no row).
//   - "rw-register": F "txn" with micro-ops "w" (upsert) and "r" (the value
//     read, nil when unwritten).
//   - "bank": F "transfer" with Value {"from": a, "to": b, "amount": n}
//     (fails with Error "insufficient-funds" rather than go negative), and F
//     "read" completing with {"<account>": balance, ...} for every account.
type Postgres struct {
	DSN       string
	Isolation string // "serializable", "repeatable-read" or "read-committed"
	Workload  string // "list-append", "rw-register" or "bank"
	Accounts  int64  // bank: number of accounts, 0..Accounts-1
	Total     int64  // bank: the conserved sum of all balances
}

var _ Client = (*Postgres)(nil)

// postgresIsolation maps the isolation names scripts use to pgx's levels.
var postgresIsolation = map[string]pgx.TxIsoLevel{
	"serializable":    pgx.Serializable,
	"repeatable-read": pgx.RepeatableRead,
	"read-committed":  pgx.ReadCommitted,
}

// postgresWorkloads are the workloads Postgres implements.
var postgresWorkloads = []string{"list-append", "rw-register", "bank"}

// Validate reports a configuration that cannot work, before any connection.
func (p *Postgres) Validate() error {
	if p.DSN == "" {
		return errors.New("postgres: dsn is required")
	}
	if _, err := pgx.ParseConfig(p.DSN); err != nil {
		return fmt.Errorf("postgres: dsn: %w", err)
	}
	if _, ok := postgresIsolation[p.Isolation]; !ok {
		return fmt.Errorf("postgres: unknown isolation %q (want serializable, repeatable-read or read-committed)", p.Isolation)
	}
	switch p.Workload {
	case "list-append", "rw-register":
	case "bank":
		if p.Accounts < 2 {
			return fmt.Errorf("postgres: bank needs at least 2 accounts, got %d", p.Accounts)
		}
		if p.Total < 0 {
			return fmt.Errorf("postgres: bank total must not be negative, got %d", p.Total)
		}
	default:
		return fmt.Errorf("postgres: unknown workload %q (want one of %q)", p.Workload, postgresWorkloads)
	}
	return nil
}

// String implements Client: the client as a scenario declares it, without
// the DSN, which may hold a password.
func (p *Postgres) String() string {
	if p.Workload == "bank" {
		return fmt.Sprintf("client.postgres(isolation=%q, workload=%q, accounts=%d, total=%d)", p.Isolation, p.Workload, p.Accounts, p.Total)
	}
	return fmt.Sprintf("client.postgres(isolation=%q, workload=%q)", p.Isolation, p.Workload)
}

// Simulated implements Client: a real database runs in real time.
func (p *Postgres) Simulated() bool { return false }

// postgresSetupTimeout bounds connecting and creating tables in Start and
// Open, which have no context of their own.
const postgresSetupTimeout = 15 * time.Second

// Start implements Client: it creates this run's table, named after the seed
// and the clock so that runs never see each other's rows.
func (p *Postgres) Start(seed uint64) (Session, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), postgresSetupTimeout)
	defer cancel()
	conn, err := pgx.Connect(ctx, p.DSN)
	if err != nil {
		return nil, fmt.Errorf("postgres: connect: %w", err)
	}
	defer conn.Close(ctx)
	s := &postgresSession{cfg: *p, iso: postgresIsolation[p.Isolation],
		table: fmt.Sprintf("faultline_%x_%x", seed&0xffffffff, time.Now().UnixNano())}
	if _, err := conn.Exec(ctx, s.sql().create); err != nil {
		return nil, fmt.Errorf("postgres: create table %s: %w", s.table, err)
	}
	if p.Workload == "bank" {
		if _, err := conn.Exec(ctx, s.sql().seed, p.Accounts, p.Total); err != nil {
			return nil, fmt.Errorf("postgres: seed accounts in %s: %w", s.table, err)
		}
	}
	return s, nil
}

// postgresSession is one run: its table and settings.
type postgresSession struct {
	cfg   Postgres
	iso   pgx.TxIsoLevel
	table string
}

// Open implements Session with one connection per process.
func (s *postgresSession) Open(thread, process int, node string) (Worker, error) {
	w := &postgresWorker{s: s, q: s.sql()}
	ctx, cancel := context.WithTimeout(context.Background(), postgresSetupTimeout)
	defer cancel()
	if err := w.connect(ctx); err != nil {
		return nil, err
	}
	return w, nil
}

// Close implements Session. The run's table is kept so a failed run's final
// state can be inspected in the database.
func (s *postgresSession) Close() error { return nil }

// postgresWorker is one process's connection. A broken connection is
// replaced before the next operation.
type postgresWorker struct {
	s    *postgresSession
	q    postgresSQL
	conn *pgx.Conn
}

func (w *postgresWorker) connect(ctx context.Context) error {
	conn, err := pgx.Connect(ctx, w.s.cfg.DSN)
	if err != nil {
		return fmt.Errorf("postgres: connect: %w", err)
	}
	w.conn = conn
	return nil
}

// Close implements Worker.
func (w *postgresWorker) Close() error {
	if w.conn == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	err := w.conn.Close(ctx)
	w.conn = nil
	return err
}

// Invoke implements Worker: the op runs in one transaction, and its outcome
// follows classify.
func (w *postgresWorker) Invoke(ctx context.Context, op history.Op) history.Op {
	if w.conn == nil || w.conn.IsClosed() {
		if err := w.connect(ctx); err != nil {
			return failWith(op, err.Error()) // nothing was sent
		}
	}
	var (
		value any
		err   error
		stage = stageBefore
	)
	tx, err := w.conn.BeginTx(ctx, pgx.TxOptions{IsoLevel: w.s.iso})
	if err == nil {
		value, err = w.run(ctx, tx, op)
		if err == nil {
			stage = stageCommit
			err = tx.Commit(ctx)
		} else {
			rollback(tx)
		}
	}
	if err == nil {
		return complete(op, history.OK, value)
	}
	op.Type = classify(err, stage)
	op.Error = errorName(err)
	if op.Type == history.Info {
		// The connection's state is unknown; never reuse it.
		w.Close()
	}
	return op
}

// rollback ends a transaction that will not commit. It gets its own short
// deadline because the op's context may be what ended the transaction.
func rollback(tx pgx.Tx) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = tx.Rollback(ctx) // on a broken connection the server rolls back anyway
}

// run executes op's statements inside tx and returns the completion value.
func (w *postgresWorker) run(ctx context.Context, tx pgx.Tx, op history.Op) (any, error) {
	switch w.s.cfg.Workload {
	case "bank":
		return w.bank(ctx, tx, op)
	default:
		return w.txn(ctx, tx, op)
	}
}

// txn runs a list-append or rw-register transaction, returning a fresh
// micro-op list with reads filled in (the invocation's list is shared with
// the recorded history, so it is never modified).
func (w *postgresWorker) txn(ctx context.Context, tx pgx.Tx, op history.Op) (any, error) {
	if op.F != "txn" {
		return nil, badOp(fmt.Errorf("%s has no operation %q (want txn)", w.s.cfg.Workload, op.F))
	}
	mops, err := parseMops(op.Value, w.s.cfg.Workload)
	if err != nil {
		return nil, badOp(err)
	}
	out := make([]any, len(mops))
	for i, m := range mops {
		var read any
		switch m.f {
		case "append":
			_, err = tx.Exec(ctx, w.q.append, m.k, m.v)
		case "w":
			_, err = tx.Exec(ctx, w.q.write, m.k, m.v)
		case "r":
			read, err = w.read(ctx, tx, m.k)
		}
		if err != nil {
			return nil, err
		}
		if m.f == "r" {
			out[i] = []any{m.raw, m.k, read}
		} else {
			out[i] = []any{m.raw, m.k, m.v}
		}
	}
	return out, nil
}

// read returns one key's value: a list of int64 for list-append (nil when
// absent), an int64 or nil for rw-register.
func (w *postgresWorker) read(ctx context.Context, tx pgx.Tx, k int64) (any, error) {
	row := tx.QueryRow(ctx, w.q.read, k)
	if w.s.cfg.Workload == "rw-register" {
		var v int64
		if err := row.Scan(&v); err != nil {
			if errors.Is(err, pgx.ErrNoRows) {
				return nil, nil
			}
			return nil, err
		}
		return v, nil
	}
	var vs []int64
	if err := row.Scan(&vs); err != nil {
		if errors.Is(err, pgx.ErrNoRows) {
			return nil, nil
		}
		return nil, err
	}
	list := make([]any, len(vs))
	for i, v := range vs {
		list[i] = v
	}
	return list, nil
}

// errInsufficientFunds aborts a transfer that would make a balance negative.
var errInsufficientFunds = errors.New("insufficient-funds")

// bank runs a transfer or a read of every balance.
func (w *postgresWorker) bank(ctx context.Context, tx pgx.Tx, op history.Op) (any, error) {
	switch op.F {
	case "read":
		rows, err := tx.Query(ctx, w.q.readAll)
		if err != nil {
			return nil, err
		}
		balances := make(map[string]any, w.s.cfg.Accounts)
		var id, bal int64
		_, err = pgx.ForEachRow(rows, []any{&id, &bal}, func() error {
			balances[strconv.FormatInt(id, 10)] = bal
			return nil
		})
		if err != nil {
			return nil, err
		}
		return balances, nil
	case "transfer":
		t, err := parseTransfer(op.Value, w.s.cfg.Accounts)
		if err != nil {
			return nil, badOp(err)
		}
		var from int64
		if err := tx.QueryRow(ctx, w.q.balance, t.from).Scan(&from); err != nil {
			return nil, err
		}
		if from < t.amount {
			return nil, errInsufficientFunds
		}
		if _, err := tx.Exec(ctx, w.q.add, t.from, -t.amount); err != nil {
			return nil, err
		}
		if _, err := tx.Exec(ctx, w.q.add, t.to, t.amount); err != nil {
			return nil, err
		}
		return op.Value, nil
	}
	return nil, badOp(fmt.Errorf("bank has no operation %q (want transfer or read)", op.F))
}
