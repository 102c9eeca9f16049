package sqlmod

import (
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/faultline/faultline/client"
)

// TestClassified: what an error means for the op depends on where it
// happened and who raised it.
func TestClassified(t *testing.T) {
	serialization := &pgconn.PgError{Code: "40001", Message: "could not serialize access"}
	for _, tc := range []struct {
		name     string
		err      error
		st       stage
		definite bool
		msg      string
	}{
		{"refused in a transaction", serialization, inTx, true, "serialization-failure"},
		{"refused at commit", serialization, autocommit, true, "serialization-failure"},
		{"galera certification failure at commit", &mysql.MySQLError{Number: 1213, Message: "Deadlock found"}, autocommit, true, "deadlock"},
		{"bad SQL in autocommit", &pgconn.PgError{Code: "42601", Message: "syntax error"}, autocommit, true, "sqlstate 42601: syntax error"},
		{"connection lost before commit", io.ErrUnexpectedEOF, inTx, true, "unexpected EOF"},
		{"connection lost at commit", io.ErrUnexpectedEOF, autocommit, false, "unexpected EOF"},
		{"wrapped timeout at commit", fmt.Errorf("write: %w", errors.New("i/o timeout")), autocommit, false, "write: i/o timeout"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := classified(tc.err, tc.st)
			if got := client.IsDefinite(err); got != tc.definite {
				t.Errorf("definite = %t, want %t", got, tc.definite)
			}
			if err.Error() != tc.msg {
				t.Errorf("message %q, want %q", err.Error(), tc.msg)
			}
		})
	}
}
