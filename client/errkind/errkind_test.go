package errkind

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"syscall"
	"testing"

	"github.com/faultline/faultline/history"
)

func TestClassification(t *testing.T) {
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: &os.SyscallError{Syscall: "connect", Err: syscall.ECONNREFUSED}}
	for _, tc := range []struct {
		name    string
		err     error
		written int
		want    ErrorKind
	}{
		{"no error", nil, 3, ""},
		{"reset before any byte", syscall.ECONNRESET, 0, NotSent},
		{"EOF after the request", io.EOF, 5, Unknown},
		{"timeout after the request", os.ErrDeadlineExceeded, 1, Unknown},
		{"op cancelled before writing", context.Canceled, 0, Unknown},
	} {
		if got := IOErrorKind(tc.err, tc.written); got != tc.want {
			t.Errorf("%s: IOErrorKind = %q, want %q", tc.name, got, tc.want)
		}
	}
	for _, tc := range []struct {
		err  error
		dial bool
	}{
		{refused, true},
		{&net.DNSError{Err: "no such host", Name: "x.invalid"}, true},
		{syscall.ECONNREFUSED, true},
		{&net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}, false},
		{errors.New("i/o timeout"), false},
	} {
		if got := IsDialError(tc.err); got != tc.dial {
			t.Errorf("IsDialError(%v) = %t, want %t", tc.err, got, tc.dial)
		}
	}
	for k, want := range map[ErrorKind]history.Type{NotSent: history.Fail, Refused: history.Fail, Unknown: history.Info} {
		if got := k.OpType(); got != want {
			t.Errorf("%s.OpType() = %s, want %s", k, got, want)
		}
	}
}
