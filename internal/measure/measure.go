// Package measure is what benchmarks report beside ns/op: the process's CPU
// time, which leaves out other processes on a loaded machine, and the heap's
// peak while something runs.
package measure

import (
	"runtime/metrics"
	"sync"
	"time"
)

// Peak samples the heap in use every few milliseconds from StartPeak to
// Stop. It reads runtime/metrics, which does not stop the world as
// runtime.ReadMemStats does: stopping it 200 times a second preempted every
// running goroutine each time, and that cost was a part of what the
// benchmarks measured.
type Peak struct {
	done      chan struct{}
	wg        sync.WaitGroup
	base, max uint64
}

// heapInuse is MemStats.HeapInuse read from runtime/metrics: the bytes of
// spans in use, whether by objects or not.
func heapInuse(samples []metrics.Sample) uint64 {
	metrics.Read(samples)
	return samples[0].Value.Uint64() + samples[1].Value.Uint64()
}

// StartPeak starts sampling; the heap in use now is the base Stop's first
// result is measured from.
func StartPeak() *Peak {
	samples := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/memory/classes/heap/unused:bytes"}}
	in := heapInuse(samples)
	p := &Peak{done: make(chan struct{}), base: in, max: in}
	p.wg.Go(func() {
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			p.max = max(p.max, heapInuse(samples))
			select {
			case <-p.done:
				return
			case <-tick.C:
			}
		}
	})
	return p
}

// Stop ends sampling and returns the peak above the base and the peak
// itself, in bytes.
func (p *Peak) Stop() (above, peak uint64) {
	close(p.done)
	p.wg.Wait()
	return p.max - p.base, p.max
}
