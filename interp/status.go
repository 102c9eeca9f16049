package interp

import (
	"fmt"
	"io"
	"time"

	"github.com/faultline/faultline/builtins/gen"
)

// statusEvery is how often the live status line is redrawn.
const statusEvery = 250 * time.Millisecond

// startStatus redraws a one-line status on w (a terminal) until the returned
// func is called: elapsed/budget, ops/s, ok/fail/info and the active fault.
func startStatus(w io.Writer, stats *gen.Stats, budget time.Duration, virtual bool) func() {
	if w == nil {
		return func() {}
	}
	done := make(chan struct{})
	finished := make(chan struct{})
	start := time.Now()
	go func() {
		defer close(finished)
		t := time.NewTicker(statusEvery)
		defer t.Stop()
		for {
			select {
			case <-done:
				fmt.Fprint(w, "\r\033[K")
				return
			case <-t.C:
				fmt.Fprint(w, "\r\033[K"+statusLine(stats, time.Since(start), budget, virtual))
			}
		}
	}()
	return func() {
		close(done)
		<-finished
	}
}

// statusLine renders the status for elapsed wall time.
func statusLine(s *gen.Stats, elapsed, budget time.Duration, virtual bool) string {
	inv := s.Invoked.Load()
	rate := 0.0
	if elapsed > 0 {
		rate = float64(inv) / elapsed.Seconds()
	}
	clock := fmt.Sprintf("%s/%s", elapsed.Round(time.Second), budget)
	if virtual {
		clock = fmt.Sprintf("%s (simulated budget %s)", elapsed.Round(100*time.Millisecond), budget)
	}
	fault := "none"
	if n := s.LastNemesis(); n != nil {
		fault = fmt.Sprintf("%s %v", n.F, n.Value)
	}
	return fmt.Sprintf("%s  %.0f ops/s  ok %d  fail %d  info %d  fault: %s",
		clock, rate, s.OK.Load(), s.Fail.Load(), s.Info.Load(), fault)
}
