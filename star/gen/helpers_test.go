package gen

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/faultline/faultline/gen"
	"github.com/faultline/faultline/history"
	"github.com/faultline/faultline/internal/testhist"
)

// okWorker answers every op ok with its value, as package gen's tests'
// in-memory worker does.
type okWorker struct{}

func (okWorker) Invoke(_ context.Context, op history.Op) history.Op {
	return history.Op{Type: history.OK, Value: op.Value}
}

func (okWorker) Close() error { return nil }

func okClients(int, int) (gen.Worker, error) { return okWorker{}, nil }

// nopNemesis completes every nemesis op info at once, as Jepsen's noop
// nemesis does.
type nopNemesis struct{}

func (nopNemesis) Invoke(_ context.Context, op history.Op) history.Op {
	return history.Op{Type: history.Info, Value: op.Value}
}

func (nopNemesis) Close() error { return nil }

// virtualRun runs g in virtual mode with cfg's defaults filled in (ok
// workers, 10ms latency, seed 1), checks the invariants every history
// keeps, and returns the recorded ops.
func virtualRun(t testing.TB, g gen.Generator, cfg gen.Config) []history.Op {
	t.Helper()
	var ops []history.Op
	if cfg.Client == nil {
		cfg.Client = okClients
	}
	cfg.Latency = func(*rand.Rand, history.Op) time.Duration { return 10 * time.Millisecond }
	if cfg.Seed == 0 {
		cfg.Seed = 1
	}
	cfg.Virtual = true
	cfg.Record = func(op history.Op) error { ops = append(ops, op); return nil }
	if _, err := gen.Run(context.Background(), g, cfg); err != nil {
		t.Fatalf("Run: %v", err)
	}
	testhist.WellFormed(t, ops)
	return ops
}
