package client

import (
	"context"
	"fmt"

	"go.starlark.net/starlark"

	"github.com/faultline/faultline/history"
)

// Noop completes every operation ok at once, echoing its value. It measures
// the engine's own overhead; it checks nothing about any system.
type Noop struct{}

var _ Client = Noop{}

func (Noop) String() string        { return "client.noop()" }
func (Noop) Type() string          { return "client" }
func (Noop) Freeze()               {}
func (Noop) Truth() starlark.Bool  { return true }
func (Noop) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable: client") }

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
