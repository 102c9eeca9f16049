package gen

import (
	"context"
	"errors"
	"fmt"

	"github.com/faultline/faultline/history"
)

// Worker executes ops for one thread. Invoke is never called concurrently on
// one Worker. Its ctx is cancelled when the op times out (the worker is then
// abandoned and Closed once Invoke returns). A panic in Invoke becomes an info
// completion.
type Worker interface {
	// Invoke performs op and returns its completion: Type ok, fail or info,
	// with Value and Error. Process, Time and Node are filled in by the
	// interpreter; an empty F or nil Key is taken from the invocation.
	Invoke(ctx context.Context, op history.Op) history.Op
	// Close releases the worker's resources.
	Close() error
}

// WorkerFactory opens a worker for a client thread running process. It is
// called lazily, before the first op of each process; an error completes that
// op as fail with error ["no-client", message], and the next op tries again.
type WorkerFactory func(thread, process int) (Worker, error)

// crashed reports whether a completion of this type ends the process: any
// answer other than a definite ok or fail leaves the client's state unknown.
func crashed(t history.Type) bool { return t != history.OK && t != history.Fail }

// noClient is the completion of an op whose worker could not be opened.
func noClient(err error) history.Op {
	return history.Op{Type: history.Fail, Error: []any{"no-client", err.Error()}}
}

// openWorker calls the factory, turning a panic or a nil worker into an error.
func openWorker(f WorkerFactory, thread, process int) (w Worker, err error) {
	defer func() {
		if p := recover(); p != nil {
			w, err = nil, fmt.Errorf("worker factory panicked: %v", p)
		}
	}()
	w, err = f(thread, process)
	if err == nil && w == nil {
		err = errors.New("worker factory returned no worker")
	}
	return w, err
}

// invoke calls w.Invoke, turning a panic into an info completion as Jepsen
// does with exceptions: the op may or may not have happened.
func invoke(ctx context.Context, w Worker, op history.Op) (res history.Op) {
	defer func() {
		if p := recover(); p != nil {
			res = history.Op{Type: history.Info, Error: fmt.Sprintf("indeterminate: worker panicked: %v", p)}
		}
	}()
	return w.Invoke(ctx, op)
}
