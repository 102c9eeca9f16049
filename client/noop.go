package client

import (
	"context"

	"github.com/faultline/faultline/history"
)

// Noop completes every operation ok at once, echoing its value. It measures
// the engine's own overhead; it checks nothing about any system.
type Noop struct{}

var _ Client = Noop{}

// String implements Client: the client as a scenario declares it.
func (Noop) String() string { return "client.noop()" }

// Simulated implements Client.
func (Noop) Simulated() bool { return true }

// Start implements Client.
func (Noop) Start(uint64) (Session, error) { return noopSession{}, nil }

type noopSession struct{}

func (noopSession) Open(int, int, string) (Worker, error) { return noopWorker{}, nil }
func (noopSession) Close() error                          { return nil }

type noopWorker struct{}

func (noopWorker) Invoke(_ context.Context, op history.Op) history.Op {
	op.Type = history.OK
	return op
}
func (noopWorker) Close() error { return nil }
