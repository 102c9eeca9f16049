// Package client defines how scenarios reach the system under test — a Client
// starts a per-run session that opens one Worker per client process — and ships
// in-process reference clients used by tests and examples.
package client

import (
	"context"
	"io"

	"github.com/faultline/faultline/control"
	"github.com/faultline/faultline/history"
)

// Client describes how to reach the system under test. It is plain Go: a
// scenario script declares one through the star/client adapter, and a Go
// program may build one directly (see the Example).
type Client interface {
	// String is the client as a scenario declares it, such as
	// client.register(); it names the client in messages and recorded
	// scripts, so it must not hold secrets.
	String() string
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
// with an effect the history does not show; an empty how means the client
// cannot say.
type RetryReporter interface {
	Retries() (hidden bool, how string)
}

// PoolStarter is implemented by clients whose per-run code needs the run's
// nodes themselves (a client written in Starlark passes node values to its
// open, setup and teardown). A run with nodes calls StartPool instead of
// Start; ctx is the run's, and out is where the client's output goes (nil =
// stderr).
type PoolStarter interface {
	StartPool(ctx context.Context, seed uint64, pool *control.Pool, out io.Writer) (Session, error)
}

// Ender is implemented by sessions with work to do at the end of the run
// while the system under test still runs (a Starlark client's teardown).
// The run calls End before the db's teardown; Close still calls it if the
// run did not get that far.
type Ender interface {
	End() error
}
