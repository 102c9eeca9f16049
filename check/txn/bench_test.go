package txn

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/faultline/faultline/history"
	"github.com/faultline/faultline/internal/measure"
)

// BenchmarkValid1M checks a 1,000,000-transaction list-append history from a
// simulated strict-serializable database (10 processes, 1-4 micro-ops, keys
// retired after 16 appends, 1% failed and 1% indeterminate transactions)
// against strict-serializable, so realtime edges are built. It reports
// transactions per second, the heap the history itself holds, and the peak
// heap during the check.
func BenchmarkValid1M(b *testing.B) {
	ops := sim{Txns: 1_000_000, Procs: 10, Keys: 10, MaxWrites: 16, MaxLen: 4, FailRate: 0.01, InfoRate: 0.01, Seed: 1}.run()
	benchCheck(b, ops, la("strict-serializable"), Valid)
}

// BenchmarkLargeSCC checks histories whose dependency graph has one very
// large strongly connected component:
//
//   - stale-reads: 200,000 transactions from a simulated database whose reads
//     lag 20 commits behind, against strict-serializable. Stale reads make rw
//     edges point back in time, and with realtime edges about half of all
//     transactions fall into one component, which the cycle search must take
//     apart.
//   - write-skew-ring: 100,000 transactions forming a single anti-dependency
//     cycle, against serializable: the searches for G-single and
//     G-nonadjacent must rule out 100,000 candidate edges before the G2-item
//     search walks the whole ring.
func BenchmarkLargeSCC(b *testing.B) {
	b.Run("stale-reads", func(b *testing.B) {
		ops := sim{Txns: 200_000, Procs: 10, Keys: 10, MaxWrites: 16, MaxLen: 4, StaleLag: 20, Seed: 2}.run()
		r := benchCheck(b, ops, la("strict-serializable"), Invalid)
		b.ReportMetric(float64(largestSCC(b, ops, true)), "scc-txns")
		b.Logf("%s %v", r.Summary, r.Incomplete)
	})
	b.Run("write-skew-ring", func(b *testing.B) {
		ops := ring(100_000)
		r := benchCheck(b, ops, la("serializable"), Invalid)
		b.ReportMetric(float64(largestSCC(b, ops, false)), "scc-txns")
		b.Logf("%s %v", r.Summary, r.Incomplete)
	})
}

// benchCheck runs Check on ops in the benchmark loop and reports metrics.
func benchCheck(b *testing.B, ops []history.Op, o Options, want string) *Result {
	b.Helper()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	peak := measure.StartPeak()
	var r *Result
	start := time.Now()
	for b.Loop() {
		var err error
		if r, err = Check(context.Background(), ops, o); err != nil {
			b.Fatal(err)
		}
		if r.Valid != want {
			b.Fatalf("got %s, want %s: %s", r.Valid, want, r.Summary)
		}
	}
	elapsed := time.Since(start)
	_, top := peak.Stop()
	b.ReportMetric(float64(r.Txns)*float64(b.N)/elapsed.Seconds(), "txn/s")
	b.ReportMetric(float64(base)/(1<<20), "history-heap-MB")
	b.ReportMetric(float64(top)/(1<<20), "peak-heap-MB")
	return r
}

// largestSCC is the size of the largest strongly connected component of the
// dependency graph of a list-append history, with or without realtime edges.
func largestSCC(b *testing.B, ops []history.Op, rt bool) int {
	h, err := parse(ops, ListAppend)
	if err != nil {
		b.Fatal(err)
	}
	e := &edges{h: h}
	h.analyzeAppend(newFound(), e, true)
	if rt {
		h.realtimeEdges(e)
	}
	g := buildGraph(len(h.txns), e)
	comp, n := tarjan(g, allRels)
	big := 0
	for _, vs := range components(comp, n) {
		big = max(big, len(vs))
	}
	return big
}
