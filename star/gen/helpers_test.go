package gen

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/gen"
	"github.com/faultline/faultline/history"
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
	checkHistory(t, ops)
	return ops
}

// checkHistory asserts what every history must satisfy: times never go back,
// each process has at most one op in flight, every invocation completes with
// ok/fail/info, and a client process never runs again after an info.
func checkHistory(t testing.TB, ops []history.Op) {
	t.Helper()
	inflight := map[int]history.Op{}
	crashed := map[int]bool{}
	var last int64
	for i, op := range ops {
		if op.Time < last {
			t.Fatalf("op %d: time %d goes back from %d", i, op.Time, last)
		}
		last = op.Time
		switch op.Type {
		case history.Invoke:
			if _, busy := inflight[op.Process]; busy {
				t.Fatalf("op %d: process %d invoked while busy", i, op.Process)
			}
			if crashed[op.Process] {
				t.Fatalf("op %d: crashed process %d reused", i, op.Process)
			}
			if op.Process != history.NemesisProcess && (op.Process < 0) {
				t.Fatalf("op %d: bad process %d", i, op.Process)
			}
			inflight[op.Process] = op
		case history.OK, history.Fail, history.Info:
			inv, ok := inflight[op.Process]
			if !ok {
				t.Fatalf("op %d: completion of process %d with nothing in flight", i, op.Process)
			}
			if inv.F != op.F {
				t.Fatalf("op %d: completion f %q for invocation f %q", i, op.F, inv.F)
			}
			delete(inflight, op.Process)
			if op.Type == history.Info && op.Process != history.NemesisProcess {
				crashed[op.Process] = true
			}
		default:
			t.Fatalf("op %d: recorded type %q", i, op.Type)
		}
	}
	if len(inflight) > 0 {
		t.Fatalf("%d invocations never completed", len(inflight))
	}
}

// brief renders invocations as "ms:process:f" (process "n" for the nemesis),
// the form the table tests compare.
func brief(ops []history.Op) string {
	var parts []string
	for _, op := range ops {
		if op.Type != history.Invoke {
			continue
		}
		p := fmt.Sprint(op.Process)
		if op.Process == history.NemesisProcess {
			p = "n"
		}
		ms := float64(op.Time) / float64(time.Millisecond)
		parts = append(parts, fmt.Sprintf("%g:%s:%s", ms, p, op.F))
	}
	return strings.Join(parts, " ")
}
