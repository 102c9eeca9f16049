package sqlmod

import (
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"testing"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/faultline/faultline/client"
	"github.com/faultline/faultline/client/errkind"
	"github.com/faultline/faultline/star"
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
		kind     errkind.ErrorKind
	}{
		{"refused in a transaction", serialization, inTx, true, "serialization-failure", errkind.Refused},
		{"refused at commit", serialization, autocommit, true, "serialization-failure", errkind.Refused},
		{"galera certification failure at commit", &mysql.MySQLError{Number: 1213, Message: "Deadlock found"}, autocommit, true, "deadlock", errkind.Refused},
		{"bad SQL in autocommit", &pgconn.PgError{Code: "42601", Message: "syntax error"}, autocommit, true, "sqlstate 42601: syntax error", errkind.Refused},
		{"connection lost before commit", io.ErrUnexpectedEOF, inTx, true, "unexpected EOF", errkind.NotSent},
		{"connection lost at commit", io.ErrUnexpectedEOF, autocommit, false, "unexpected EOF", errkind.Unknown},
		{"wrapped timeout at commit", fmt.Errorf("write: %w", errors.New("i/o timeout")), autocommit, false, "write: i/o timeout", errkind.Unknown},
		{"dial refused in autocommit", &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}, autocommit, true, "dial tcp: connection refused", errkind.NotSent},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := classified(tc.err, tc.st)
			if got := client.IsDefinite(err); got != tc.definite {
				t.Errorf("definite = %t, want %t", got, tc.definite)
			}
			if err.Error() != tc.msg {
				t.Errorf("message %q, want %q", err.Error(), tc.msg)
			}
			v, _ := failed(err, false)
			if got := v.(*star.ErrorValue).Kind; got != tc.kind {
				t.Errorf("error_kind %q, want %q", got, tc.kind)
			}
		})
	}
}
