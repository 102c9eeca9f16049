// Package errkind is the one classification of a failed request that every
// protocol module gives a client author: not sent, sent with the outcome
// unknown, or refused by the system. It is its own small package so that
// the Starlark skin (package star) can use it without the clients.
package errkind

import (
	"context"
	"errors"
	"net"
	"os"
	"syscall"

	"github.com/faultline/faultline/history"
)

// ErrorKind is what a failed request means for the op that made it, the
// one classification every protocol module (net, http, redis, sql) gives a
// client author who asked for errors as values.
type ErrorKind string

const (
	// NotSent: the request never reached the system (connection refused, a
	// name that does not resolve, a dial that timed out), or nothing that
	// could take effect was sent. The op certainly did not happen: fail.
	NotSent ErrorKind = "not-sent"
	// Unknown: the request may have reached the system and then the
	// connection was reset, closed or timed out before an answer. The op
	// may or may not have happened: info.
	Unknown ErrorKind = "unknown"
	// Refused: the system answered with an error (a Redis error reply, a
	// SQL error). It said no, so the op did not happen: fail.
	Refused ErrorKind = "refused"
)

// Definite reports whether an op that ended with an error of kind k
// certainly did not take effect.
func (k ErrorKind) Definite() bool { return k == NotSent || k == Refused }

// OpType is the completion type an op that ended with an error of kind k
// is recorded as: fail when definite, info otherwise.
func (k ErrorKind) OpType() history.Type {
	if k.Definite() {
		return history.Fail
	}
	return history.Info
}

// DialErrorKind classifies an error from dialling a connection: every
// dial failure is NotSent, since no byte of any request was written. It
// exists so that the modules say so in one place.
func DialErrorKind(error) ErrorKind { return NotSent }

// IOErrorKind classifies an error reading or writing an open connection.
// written is how many bytes of the current request had been written when
// it failed: none means the request never left (NotSent), any means the
// system may have acted on it (Unknown). A connection the peer reset or
// closed before a write of zero bytes is NotSent too; a write that failed
// with a timeout after writing some bytes is Unknown.
func IOErrorKind(err error, written int) ErrorKind {
	if err == nil {
		return ""
	}
	if written == 0 && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
		return NotSent
	}
	return Unknown
}

// IsDialError reports whether err is a failure to establish a connection:
// nothing was sent over it.
func IsDialError(err error) bool {
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return true
	}
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return true
	}
	var sys *os.SyscallError
	if errors.As(err, &sys) && sys.Syscall == "connect" {
		return true
	}
	return errors.Is(err, syscall.ECONNREFUSED)
}
