package client

import (
	"errors"
	"fmt"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// SQLError names a database error briefly and stably for the history, and
// says whether the server refused the work: an error the server itself
// returned (a serialization failure, a deadlock, a constraint, bad SQL)
// means the statement or the COMMIT it answered did not take effect; any
// other error (a lost connection, a timeout) leaves the outcome open.
// PostgreSQL (pgx) and MySQL/MariaDB (go-sql-driver) errors are known.
func SQLError(err error) (name string, refused bool) {
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		switch pg.Code {
		case sqlstateSerialization:
			return "serialization-failure", true
		case sqlstateDeadlock:
			return "deadlock", true
		}
		return fmt.Sprintf("sqlstate %s: %s", pg.Code, pg.Message), true
	}
	if errors.Is(err, pgx.ErrTxCommitRollback) {
		return "commit-rolled-back", true
	}
	var my *mysql.MySQLError
	if errors.As(err, &my) {
		switch my.Number {
		case 1213: // ER_LOCK_DEADLOCK, also Galera's certification failure
			return "deadlock", true
		case 1205: // ER_LOCK_WAIT_TIMEOUT
			return "lock-wait-timeout", true
		}
		return fmt.Sprintf("mysql %d: %s", my.Number, my.Message), true
	}
	return err.Error(), false
}
