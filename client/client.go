// Package client defines how scenarios reach the system under test — a Client
// starts a per-run session that opens one Worker per client process — and ships
// in-process reference clients used by tests and examples.
package client

import (
	"context"

	"go.starlark.net/starlark"

	"github.com/faultline/faultline/history"
)

// Client is a Starlark value describing how to reach the system under test.
type Client interface {
	starlark.Value
	// Start prepares one run. For in-process clients this creates a fresh
	// system; seed makes any randomness in it reproducible.
	Start(seed uint64) (Session, error)
	// Simulated reports whether the client is in-process and deterministic, so
	// the run may use simulated time and reproduce byte for byte from its seed.
	Simulated() bool
}

// Session is one run's connection to the system under test.
type Session interface {
	// Open makes the worker for a client process bound to node.
	Open(thread, process int, node string) (Worker, error)
	// Close releases what Start acquired.
	Close() error
}

// Worker executes operations for one client process.
type Worker interface {
	// Invoke performs op and returns its completion (type ok, fail or info).
	Invoke(ctx context.Context, op history.Op) history.Op
	// Close releases the worker; a crashed process gets a fresh one.
	Close() error
}

// FromStarlark returns the Client behind a Starlark value.
func FromStarlark(v starlark.Value) (Client, bool) {
	c, ok := v.(Client)
	return c, ok
}

// complete returns op turned into a completion of type t carrying value.
func complete(op history.Op, t history.Type, value any) history.Op {
	op.Type = t
	op.Value = value
	return op
}

// failWith returns op completed as a definite failure with the given error.
func failWith(op history.Op, err string) history.Op {
	op.Type = history.Fail
	op.Error = err
	return op
}

// RetryReporter is implemented by clients that can say how they retry, for
// the audit that a client library does not hide retries from the history
// (weak-oracle item 8). Hidden means a request may be sent more than once
// with an effect the history does not show.
type RetryReporter interface {
	Retries() (hidden bool, how string)
}
