package check

import (
	"context"
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/faultline/faultline/history"
)

// BenchmarkCorpusCheck runs our checker over the whole etcd corpus, parsed
// once up front: pairing, conversion, search and result all count.
func BenchmarkCorpusCheck(b *testing.B) {
	cases := loadCorpus(b, "porcupine-etcd")
	c := mustLinearizable(b, "cas-register", nil)
	b.ResetTimer()
	for b.Loop() {
		for _, cc := range cases {
			if res := c.Check(context.Background(), cc.ops, Env{}); res.Valid != cc.want {
				b.Fatalf("%s: got %s, want %s", cc.file, res.Valid, cc.want)
			}
		}
	}
}

// BenchmarkCorpusPorcupineDirect is the baseline for BenchmarkCorpusCheck:
// porcupine.CheckOperations on the same operations, converted beforehand,
// with the cas-register model a porcupine user would write by hand.
func BenchmarkCorpusPorcupineDirect(b *testing.B) {
	cases := loadCorpus(b, "porcupine-etcd")
	s := mustLinearizable(b, "cas-register", nil).(*linearizable).s
	ops := make([][]porcupine.Operation, len(cases))
	for i, cc := range cases {
		p, err := s.prepare(cc.ops)
		if err != nil || len(p.parts) != 1 {
			b.Fatalf("%s: %v (%d partitions)", cc.file, err, len(p.parts))
		}
		ops[i] = p.parts[0].ops
	}
	b.ResetTimer()
	for b.Loop() {
		for i, cc := range cases {
			if ok := porcupine.CheckOperations(directCASModel, ops[i]); ok != (cc.want == Valid) {
				b.Fatalf("%s: linearizable=%v, want %s", cc.file, ok, cc.want)
			}
		}
	}
}

// directCASModel is a plain porcupine cas-register over our converted ops: no
// hashing, no cancellation, porcupine's default equality.
var directCASModel = porcupine.Model{
	Init: func() any { return nil },
	Step: func(state, in, out any) (bool, any) {
		i, o := in.(*input), out.(*output)
		switch i.kind {
		case opRead:
			return o.unknown || history.Equal(state, o.value), state
		case opWrite:
			return true, i.arg
		case opCAS:
			if history.Equal(state, i.arg) {
				return true, i.to
			}
			return o.unknown, state
		}
		return false, state
	},
}

// processCPU is the CPU time this process has used (user and system, every
// thread: porcupine searches on a goroutine of its own, and the collector
// works in the background). Unlike wall time it leaves out what other
// processes take on a loaded machine.
func processCPU(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatalf("getrusage: %v", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkInvalidEtcdRatio runs, in each iteration and over the same
// non-linearizable etcd histories, porcupine alone (CheckOperations on ops
// converted beforehand, the plain model above: a verdict and nothing else)
// and faultline's whole check (pairing, conversion, search, explanation),
// and reports the CPU time of each per pass and their ratio (check /
// porcupine; the goal is at most 1). They run one after the other and each
// is charged the process's CPU time while it ran, so load from other
// processes does not count; a collection that one half's garbage triggers
// may land in the other, which averages out over iterations.
func BenchmarkInvalidEtcdRatio(b *testing.B) {
	var invalid []corpusCase
	for _, cc := range loadCorpus(b, "porcupine-etcd") {
		if cc.want == Invalid {
			invalid = append(invalid, cc)
		}
	}
	c := mustLinearizable(b, "cas-register", nil)
	s := c.(*linearizable).s
	ops := make([][]porcupine.Operation, len(invalid))
	for i, cc := range invalid {
		p, err := s.prepare(cc.ops)
		if err != nil || len(p.parts) != 1 {
			b.Fatalf("%s: %v", cc.file, err)
		}
		ops[i] = p.parts[0].ops
	}
	var porc, ours time.Duration
	b.ResetTimer()
	for b.Loop() {
		start := processCPU(b)
		for i, cc := range invalid {
			if porcupine.CheckOperations(directCASModel, ops[i]) {
				b.Fatalf("%s: porcupine says linearizable", cc.file)
			}
		}
		mid := processCPU(b)
		for _, cc := range invalid {
			if res := c.Check(context.Background(), cc.ops, Env{}); res.Valid != Invalid || res.Explanation == "" {
				b.Fatalf("%s: got %s with explanation %q", cc.file, res.Valid, res.Explanation)
			}
		}
		end := processCPU(b)
		porc, ours = porc+mid-start, ours+end-mid
	}
	b.ReportMetric(float64(porc.Nanoseconds())/float64(b.N), "porcupine-cpu-ns/pass")
	b.ReportMetric(float64(ours.Nanoseconds())/float64(b.N), "check-cpu-ns/pass")
	b.ReportMetric(float64(ours)/float64(porc), "check/porcupine")
	b.ReportMetric(float64(len(invalid)), "histories")
}

// peakHeap samples the heap in use while f runs and returns the peak above
// what was in use before (the history itself is not counted) and the
// absolute peak (with it).
func peakHeap(f func()) (peak, total uint64) {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapInuse
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			total = max(total, m.HeapInuse)
			if m.HeapInuse > base {
				peak = max(peak, m.HeapInuse-base)
			}
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	})
	f()
	close(done)
	wg.Wait()
	return peak, total
}

// BenchmarkLongRegister checks long single-register histories generated by
// longRegisterHistory (4 clients, reads and writes of 0..9), reporting time
// per check and peak heap (runtime.MemStats, above the history itself):
// porcupine alone on 50k ops (its cache is quadratic, so 50k is about what
// it handles), faultline's check on the same 50k, and faultline's check on
// 1M ops, valid and with one impossible read that must be found.
func BenchmarkLongRegister(b *testing.B) {
	run := func(name string, n int, bad, porc bool) {
		b.Run(name, func(b *testing.B) {
			h := longRegisterHistory(11, 4, n, bad)
			c := mustLinearizable(b, "register", int64(0))
			var ops []porcupine.Operation
			if porc {
				p, err := c.(*linearizable).s.prepare(h)
				if err != nil {
					b.Fatal(err)
				}
				ops = p.parts[0].ops
			}
			want := Valid
			if bad {
				want = Invalid
			}
			var peak, total uint64
			b.ResetTimer()
			for b.Loop() {
				p, t := peakHeap(func() {
					if porc {
						if ok := porcupine.CheckOperations(directCASModel, ops); ok != !bad {
							b.Fatalf("porcupine: linearizable=%v", ok)
						}
						return
					}
					if res := c.Check(context.Background(), h, Env{}); res.Valid != want {
						b.Fatalf("got %s, want %s: %s", res.Valid, want, res.Summary)
					}
				})
				peak, total = max(peak, p), max(total, t)
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-MB")
			b.ReportMetric(float64(total)/(1<<20), "peak-with-history-MB")
			b.ReportMetric(float64(n), "ops")
		})
	}
	run("porcupine-50k", 50_000, false, true)
	run("check-50k", 50_000, false, false)
	run("check-1M-valid", 1_000_000, false, false)
	run("check-1M-bad", 1_000_000, true, false)
}
