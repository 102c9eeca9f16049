// Package sqlmod is the Starlark "sql" module: database/sql over pgx
// (PostgreSQL) and go-sql-driver (MySQL, MariaDB, Galera), for clients
// written in Starlark with client.starlark.
//
//	db = sql.open("postgres" | "mysql", dsn, max_conns = 2)
//	db.exec(query, *args) -> rows affected     (autocommit)
//	db.query(query, *args) -> [row tuple, ...]  (autocommit)
//	tx = db.begin(isolation = "serializable" | "repeatable-read" |
//	              "read-committed" | "read-uncommitted", read_only = False)
//	tx.exec(...), tx.query(...), tx.commit(), tx.rollback()
//	db.close()
//
// Starlark has no try/except, so an error raised here ends the op, and the
// module says what that means for the history: an error before COMMIT, or
// one the server returned (a serialization failure, a deadlock, a
// constraint), is a definite failure and the op is recorded as fail; a lost
// connection at COMMIT or in an autocommit statement leaves the outcome open
// and the op is recorded as info. Every call stops with the op's context.
package sqlmod

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	_ "github.com/go-sql-driver/mysql" // the "mysql" driver
	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver
	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"

	"github.com/faultline/faultline/client"
	"github.com/faultline/faultline/client/errkind"
	"github.com/faultline/faultline/star"
)

func init() { star.Register("sql", Module) }

// Module is the Starlark "sql" module.
var Module = &starlarkstruct.Module{
	Name:    "sql",
	Members: starlark.StringDict{"open": starlark.NewBuiltin("sql.open", open)},
}

// drivers maps the names scripts use to database/sql driver names.
var drivers = map[string]string{"postgres": "pgx", "mysql": "mysql"}

// isolations maps the isolation names scripts use to database/sql levels.
var isolations = map[string]sql.IsolationLevel{
	"":                 sql.LevelDefault,
	"serializable":     sql.LevelSerializable,
	"repeatable-read":  sql.LevelRepeatableRead,
	"read-committed":   sql.LevelReadCommitted,
	"read-uncommitted": sql.LevelReadUncommitted,
}

func open(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var (
		driver, dsn string
		maxConns    = 2
	)
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "driver", &driver, "dsn", &dsn, "max_conns?", &maxConns); err != nil {
		return nil, err
	}
	name, ok := drivers[driver]
	if !ok {
		return nil, fmt.Errorf("%s: unknown driver %q (want postgres or mysql)", b.Name(), driver)
	}
	if maxConns < 1 {
		return nil, fmt.Errorf("%s: max_conns must be at least 1, got %d", b.Name(), maxConns)
	}
	db, err := sql.Open(name, dsn)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	db.SetMaxOpenConns(maxConns)
	db.SetMaxIdleConns(maxConns)
	return &DB{db: db, driver: driver}, nil
}

// DB is an open database handle (a small connection pool) as a Starlark
// value.
type DB struct {
	db     *sql.DB
	driver string
}

// String renders sql.db("postgres").
func (d *DB) String() string { return fmt.Sprintf("sql.db(%q)", d.driver) }

// Type is "sql.db".
func (d *DB) Type() string { return "sql.db" }

// Freeze does nothing: the handle is safe for concurrent use.
func (d *DB) Freeze() {}

// Truth is always true.
func (d *DB) Truth() starlark.Bool { return true }

// Hash fails: handles are not dict keys.
func (d *DB) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable: sql.db") }

// Attr returns a bound method.
func (d *DB) Attr(name string) (starlark.Value, error) {
	switch name {
	case "exec":
		return method("sql.db.exec", func(ctx context.Context, q string, a []any) (starlark.Value, error) {
			return execOn(ctx, d.db, q, a, autocommit)
		}), nil
	case "query":
		return method("sql.db.query", func(ctx context.Context, q string, a []any) (starlark.Value, error) {
			return queryOn(ctx, d.db, q, a, autocommit)
		}), nil
	case "begin":
		return starlark.NewBuiltin("sql.db.begin", d.begin), nil
	case "close":
		return starlark.NewBuiltin("sql.db.close", func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
				return nil, err
			}
			return starlark.None, d.db.Close()
		}), nil
	}
	return nil, nil
}

// AttrNames lists the methods.
func (d *DB) AttrNames() []string { return []string{"begin", "close", "exec", "query"} }

func (d *DB) begin(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var (
		isolation string
		readOnly  bool
		raise     = true
	)
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "isolation?", &isolation, "read_only?", &readOnly, "raise_errors?", &raise); err != nil {
		return nil, err
	}
	level, ok := isolations[isolation]
	if !ok {
		return nil, fmt.Errorf("%s: unknown isolation %q (want serializable, repeatable-read, read-committed or read-uncommitted)", b.Name(), isolation)
	}
	// A transaction this thread left open (invoke returned without commit
	// or rollback) is rolled back: it never committed, and holding its
	// connection would starve the pool.
	if prev, ok := thread.Local(openTxLocal).(*Tx); ok && !prev.done {
		prev.end(prev.tx.Rollback() == nil)
	}
	ctx := star.Context(thread)
	conn, err := d.db.Conn(ctx)
	if err != nil {
		return failed(fmt.Errorf("%s: %w", b.Name(), classified(err, inTx)), raise)
	}
	tx, err := conn.BeginTx(ctx, &sql.TxOptions{Isolation: level, ReadOnly: readOnly})
	if err != nil {
		// Nothing can commit without a transaction.
		discard(conn)
		return failed(fmt.Errorf("%s: %w", b.Name(), classified(err, inTx)), raise)
	}
	t := &Tx{conn: conn, tx: tx}
	thread.SetLocal(openTxLocal, t)
	return t, nil
}

// openTxLocal is the thread-local key of the last transaction a thread
// began.
const openTxLocal = "faultline.sql.tx"

// Tx is an open transaction as a Starlark value. Its statements run on one
// connection of its own; an error in any of them rolls it back.
type Tx struct {
	conn *sql.Conn
	tx   *sql.Tx
	done bool
}

// end releases t's connection once the transaction is over: back to the
// pool when it ended cleanly, else discarded. A connection whose COMMIT or
// ROLLBACK failed may still be inside the transaction on the server (a
// Galera node without quorum refuses even ROLLBACK), and MySQL commits an
// open transaction implicitly at the next BEGIN: reused, it could commit
// work the history records as failed.
func (t *Tx) end(clean bool) {
	t.done = true
	if clean {
		t.conn.Close()
		return
	}
	discard(t.conn)
}

// discard closes conn for good instead of returning it to the pool; the
// server rolls back whatever it had open when the connection goes.
func discard(conn *sql.Conn) {
	_ = conn.Raw(func(any) error { return driver.ErrBadConn })
	conn.Close()
}

// String renders sql.tx.
func (t *Tx) String() string { return "sql.tx" }

// Type is "sql.tx".
func (t *Tx) Type() string { return "sql.tx" }

// Freeze does nothing.
func (t *Tx) Freeze() {}

// Truth is always true.
func (t *Tx) Truth() starlark.Bool { return true }

// Hash fails: transactions are not dict keys.
func (t *Tx) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable: sql.tx") }

// Attr returns a bound method.
func (t *Tx) Attr(name string) (starlark.Value, error) {
	switch name {
	case "exec":
		return method("sql.tx.exec", func(ctx context.Context, q string, a []any) (starlark.Value, error) {
			return t.statement(execOn(ctx, t.tx, q, a, inTx))
		}), nil
	case "query":
		return method("sql.tx.query", func(ctx context.Context, q string, a []any) (starlark.Value, error) {
			return t.statement(queryOn(ctx, t.tx, q, a, inTx))
		}), nil
	case "commit":
		return starlark.NewBuiltin("sql.tx.commit", t.commit), nil
	case "rollback":
		return starlark.NewBuiltin("sql.tx.rollback", t.rollback), nil
	}
	return nil, nil
}

// AttrNames lists the methods.
func (t *Tx) AttrNames() []string { return []string{"commit", "exec", "query", "rollback"} }

// statement passes a statement's result on, rolling the transaction back
// when it failed: the error ends the op, so nothing will commit it.
func (t *Tx) statement(v starlark.Value, err error) (starlark.Value, error) {
	if err != nil && !t.done {
		t.end(t.tx.Rollback() == nil)
	}
	return v, err
}

func (t *Tx) commit(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	raise := true
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "raise_errors?", &raise); err != nil {
		return nil, err
	}
	if t.done || t.tx == nil {
		return failed(client.Definite(kinded{fmt.Errorf("%s: the transaction already ended", b.Name()), errkind.NotSent}), raise)
	}
	err := t.tx.Commit()
	t.end(err == nil)
	if err != nil {
		return failed(fmt.Errorf("%s: %w", b.Name(), classified(err, autocommit)), raise)
	}
	return starlark.None, nil
}

func (t *Tx) rollback(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
		return nil, err
	}
	if !t.done {
		t.end(t.tx.Rollback() == nil)
	}
	return starlark.None, nil
}

// stage says whether a failed call could have committed anything.
type stage bool

const (
	inTx       stage = false // inside a transaction, before COMMIT: nothing committed
	autocommit stage = true  // COMMIT, or a statement that commits itself
)

// classified is err by its short name, with its kind (errkind): refused
// when the server returned it; not-sent when nothing can have committed
// (before COMMIT, or the connection was never made); unknown otherwise.
// A definite one is marked client.Definite, so a raised error makes the
// op fail.
func classified(err error, st stage) error {
	msg, refused := client.SQLError(err)
	k := kinded{errors.New(msg), errkind.Unknown}
	switch {
	case refused:
		k.kind = errkind.Refused
	case st == inTx || errkind.IsDialError(err):
		k.kind = errkind.NotSent
	}
	if k.kind.Definite() {
		return client.Definite(k)
	}
	return k
}

// kinded is an error with its classification.
type kinded struct {
	error
	kind errkind.ErrorKind
}

func (k kinded) Unwrap() error { return k.error }

// failed is a failure as a call reports it: raised, or returned as an
// error value when the script asked for errors as values.
func failed(err error, raise bool) (starlark.Value, error) {
	if raise {
		return nil, err
	}
	kind := errkind.Unknown
	var k kinded
	if errors.As(err, &k) {
		kind = k.kind
	}
	return star.NewError(kind, err), nil
}

// execer and querier are what *sql.DB and *sql.Tx share.
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// method is a builtin taking (query, *args) and running on the op's context.
func method(name string, fn func(ctx context.Context, query string, args []any) (starlark.Value, error)) *starlark.Builtin {
	return starlark.NewBuiltin(name, func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		raise := true
		for _, kv := range kwargs {
			if k := string(kv[0].(starlark.String)); k != "raise_errors" {
				return nil, fmt.Errorf("%s: unexpected keyword argument %q (the only one is raise_errors)", b.Name(), k)
			}
			r, ok := kv[1].(starlark.Bool)
			if !ok {
				return nil, fmt.Errorf("%s: raise_errors must be a bool, got %s", b.Name(), kv[1].Type())
			}
			raise = bool(r)
		}
		if len(args) == 0 {
			return nil, fmt.Errorf("%s: missing query", b.Name())
		}
		q, ok := starlark.AsString(args[0])
		if !ok {
			return nil, fmt.Errorf("%s: query must be a string, got %s", b.Name(), args[0].Type())
		}
		goArgs := make([]any, len(args)-1)
		for i, a := range args[1:] {
			v, err := star.ToGo(a)
			if err != nil {
				return nil, fmt.Errorf("%s: argument %d: %w", b.Name(), i+1, err)
			}
			switch v.(type) {
			case nil, bool, int64, float64, string:
			default:
				return nil, fmt.Errorf("%s: argument %d: want None, a bool, int, float or string, got %s", b.Name(), i+1, a.Type())
			}
			goArgs[i] = v
		}
		v, err := fn(star.Context(thread), q, goArgs)
		if err != nil {
			return failed(fmt.Errorf("%s: %w", b.Name(), err), raise)
		}
		return v, nil
	})
}

func execOn(ctx context.Context, e execer, query string, args []any, st stage) (starlark.Value, error) {
	res, err := e.ExecContext(ctx, query, args...)
	if err != nil {
		return nil, classified(err, st)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return starlark.None, nil // the driver cannot count; the statement ran
	}
	return starlark.MakeInt64(n), nil
}

func queryOn(ctx context.Context, q querier, query string, args []any, st stage) (starlark.Value, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, classified(err, st)
	}
	defer rows.Close()
	types, err := rows.ColumnTypes()
	if err != nil {
		return nil, classified(err, st)
	}
	var out []starlark.Value
	for rows.Next() {
		cells := make([]any, len(types))
		ptrs := make([]any, len(types))
		for i := range cells {
			ptrs[i] = &cells[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, classified(err, st)
		}
		row := make(starlark.Tuple, len(cells))
		for i, c := range cells {
			row[i] = cell(c, types[i].DatabaseTypeName())
		}
		out = append(out, row)
	}
	if err := rows.Err(); err != nil {
		return nil, classified(err, st)
	}
	return starlark.NewList(out), nil
}

// cell converts one column value. MySQL's text protocol returns numbers as
// bytes, so the column's type decides how bytes read.
func cell(v any, dbType string) starlark.Value {
	switch v := v.(type) {
	case nil:
		return starlark.None
	case bool:
		return starlark.Bool(v)
	case int64:
		return starlark.MakeInt64(v)
	case float64:
		return starlark.Float(v)
	case string:
		return starlark.String(v)
	case time.Time:
		return starlark.String(v.UTC().Format(time.RFC3339Nano))
	case []byte:
		s := string(v)
		switch t := strings.ToUpper(dbType); {
		case strings.Contains(t, "INT"):
			if n, err := strconv.ParseInt(s, 10, 64); err == nil {
				return starlark.MakeInt64(n)
			}
		case t == "FLOAT" || t == "DOUBLE" || t == "DECIMAL":
			if f, err := strconv.ParseFloat(s, 64); err == nil {
				return starlark.Float(f)
			}
		}
		return starlark.String(s)
	}
	return starlark.String(fmt.Sprint(v))
}
