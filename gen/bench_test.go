package gen

import (
	"context"
	"testing"
	"time"

	"github.com/faultline/faultline/history"
	"github.com/faultline/faultline/internal/seed"
)

// noopWorker completes every op ok at once: the pool's own overhead is all
// that is measured.
type noopWorker struct{}

func (noopWorker) Invoke(context.Context, history.Op) history.Op {
	return history.Op{Type: history.OK}
}

func (noopWorker) Close() error { return nil }

func noopFactory(int, int) (Worker, error) { return noopWorker{}, nil }

func benchGen() Generator {
	return Repeat(Op(history.Op{F: "write", Key: "k", Value: int64(1)}))
}

func reportOps(b *testing.B, ops int) {
	b.ReportMetric(float64(ops)/b.Elapsed().Seconds(), "ops/s")
}

// BenchmarkPoolNoop is the pool target: real mode, 10 client threads, a no-op
// client, a Go-native generator and a journal sink that drops ops.
func BenchmarkPoolNoop(b *testing.B) {
	b.ReportAllocs()
	sum, err := Run(context.Background(), benchGen(), Config{
		Concurrency: 10, Client: noopFactory, OpLimit: int64(b.N),
		Record: func(history.Op) error { return nil },
	})
	if err != nil || sum.OK != int64(b.N) {
		b.Fatalf("sum %+v, err %v", sum, err)
	}
	reportOps(b, b.N)
}

// BenchmarkGeneratorOnly asks the same generator for the same number of ops,
// completing each at once, with no pool: the baseline the pool is compared to.
func BenchmarkGeneratorOnly(b *testing.B) {
	b.ReportAllocs()
	ctx := newContext(10, false, seed.New(1, "generator"))
	g := Limit(int64(b.N), benchGen())
	done := 0
	for {
		op, next, st := step(ctx, g)
		if st != Ready {
			break
		}
		g = next
		s, _ := ctx.slotOfProcess(op.Process)
		ctx.markBusy(s)
		g = tell(ctx, g, op)
		ctx.markFree(s)
		op.Type = history.OK
		g = tell(ctx, g, op)
		done++
	}
	if done != b.N {
		b.Fatalf("%d ops, want %d", done, b.N)
	}
	reportOps(b, b.N)
}

// BenchmarkVirtual runs the same workload in simulated time.
func BenchmarkVirtual(b *testing.B) {
	b.ReportAllocs()
	sum, err := Run(context.Background(), benchGen(), Config{
		Concurrency: 10, Client: noopFactory, OpLimit: int64(b.N), Virtual: true,
		Record: func(history.Op) error { return nil },
	})
	if err != nil || sum.OK != int64(b.N) {
		b.Fatalf("sum %+v, err %v", sum, err)
	}
	reportOps(b, b.N)
}

// BenchmarkVirtualComposite runs a typical test shape (staggered random mix on
// the clients, a nemesis schedule) in simulated time.
func BenchmarkVirtualComposite(b *testing.B) {
	b.ReportAllocs()
	g := Any(
		Clients(Stagger(time.Millisecond, Mix(
			FromFunc(func(ctx *Context) history.Op { return history.Op{F: "write", Value: ctx.Rand.Int64N(5)} }),
			FromFunc(func(*Context) history.Op { return history.Op{F: "read"} }),
		))),
		Nemesis(Cycle(Seq(Sleep(5*time.Second), Op(opF("start")), Sleep(5*time.Second), Op(opF("stop"))))),
	)
	sum, err := Run(context.Background(), g, Config{
		Concurrency: 10, Client: noopFactory, Nemesis: noopWorker{}, OpLimit: int64(b.N), Virtual: true,
		Record: func(history.Op) error { return nil },
	})
	if err != nil || sum.OK != int64(b.N) {
		b.Fatalf("sum %+v, err %v", sum, err)
	}
	reportOps(b, b.N)
}
