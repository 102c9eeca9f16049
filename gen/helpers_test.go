package gen

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/faultline/faultline/history"
	"github.com/faultline/faultline/internal/testhist"
)

// memWorker is an in-memory worker: it answers with respond (ok with the op's
// value by default) and counts its lifecycle in a shared log.
type memWorker struct {
	thread, process int
	respond         func(op history.Op) history.Op
	log             *workerLog
}

func (w *memWorker) Invoke(_ context.Context, op history.Op) history.Op {
	if w.respond != nil {
		return w.respond(op)
	}
	return history.Op{Type: history.OK, Value: op.Value}
}

func (w *memWorker) Close() error {
	w.log.add(fmt.Sprintf("close %d/%d", w.thread, w.process))
	return nil
}

// nopNemesis completes every nemesis op info at once, as Jepsen's noop
// nemesis does.
type nopNemesis struct{}

func (nopNemesis) Invoke(_ context.Context, op history.Op) history.Op {
	return history.Op{Type: history.Info, Value: op.Value}
}

func (nopNemesis) Close() error { return nil }

// workerLog records opens and closes, safely across worker goroutines.
type workerLog struct {
	mu      sync.Mutex
	entries []string
}

func (l *workerLog) add(s string) {
	l.mu.Lock()
	l.entries = append(l.entries, s)
	l.mu.Unlock()
}

func (l *workerLog) list() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.entries...)
}

// factory returns a WorkerFactory of memWorkers that answer with respond.
func factory(log *workerLog, respond func(history.Op) history.Op) WorkerFactory {
	return func(thread, process int) (Worker, error) {
		log.add(fmt.Sprintf("open %d/%d", thread, process))
		return &memWorker{thread: thread, process: process, respond: respond, log: log}, nil
	}
}

// fixedLatency makes every virtual op take d, so test timings are exact.
func fixedLatency(d time.Duration) func(*rand.Rand, history.Op) time.Duration {
	return func(*rand.Rand, history.Op) time.Duration { return d }
}

// latencyByF gives ops named in m their latency and others 10ms.
func latencyByF(m map[string]time.Duration) func(*rand.Rand, history.Op) time.Duration {
	return func(_ *rand.Rand, op history.Op) time.Duration {
		if d, ok := m[op.F]; ok {
			return d
		}
		return 10 * time.Millisecond
	}
}

// recorder collects recorded ops.
type recorder struct {
	mu  sync.Mutex
	ops []history.Op
}

func (r *recorder) record(op history.Op) error {
	r.mu.Lock()
	r.ops = append(r.ops, op)
	r.mu.Unlock()
	return nil
}

// virtualRun runs g in virtual mode with defaults filled into cfg (3 threads,
// 10ms latency, seed 1, in-memory ok workers) and returns the recorded ops.
func virtualRun(t testing.TB, g Generator, cfg Config) ([]history.Op, Summary) {
	t.Helper()
	rec := &recorder{}
	if cfg.Concurrency == 0 {
		cfg.Concurrency = 3
	}
	if cfg.Client == nil {
		cfg.Client = factory(&workerLog{}, nil)
	}
	if cfg.Latency == nil {
		cfg.Latency = fixedLatency(10 * time.Millisecond)
	}
	if cfg.Seed == 0 {
		cfg.Seed = 1
	}
	cfg.Virtual = true
	cfg.Record = rec.record
	sum, err := Run(context.Background(), g, cfg)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	testhist.WellFormed(t, rec.ops)
	return rec.ops, sum
}

// invocations returns the invocations of a history.
func invocations(ops []history.Op) []history.Op {
	var out []history.Op
	for _, op := range ops {
		if op.Type == history.Invoke {
			out = append(out, op)
		}
	}
	return out
}

// opF is an op template with just a function name; rep repeats one for ever.
func opF(f string) history.Op { return history.Op{F: f} }

func rep(f string) Generator { return Repeat(Op(opF(f))) }
