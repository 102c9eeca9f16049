package main

import (
	"time"

	"github.com/faultline/faultline/builtins/nemesis"
	"github.com/faultline/faultline/history"
	"github.com/faultline/faultline/verdict"
)

// minRecoveryWindow is the shortest stretch of load before the first fault
// and after the last heal that counts as a measurement of throughput.
const minRecoveryWindow = time.Second

// recoveryOf measures, from the history, whether the system came back to
// nominal (§3.1 #8): ok ops/s before the first fault against ok ops/s after
// the last fault was healed, and which nodes served ok ops afterwards. A
// fault still open when the load ended (healed only by the final heal)
// leaves nothing to measure: Measured stays false.
func recoveryOf(ops []history.Op, windows []nemesis.Window, nodes int) verdict.Recovery {
	rec := verdict.Recovery{Nodes: nodes}
	if len(windows) == 0 {
		return rec
	}
	first, last := windows[0].Start, int64(-1)
	for _, w := range windows {
		first = min(first, w.Start)
		if w.End < 0 {
			return rec
		}
		last = max(last, w.End)
	}
	var start, end int64 = -1, -1
	var before, after int
	up := map[string]bool{}
	nodeOf := map[int]string{} // process -> the node its client is bound to
	for _, op := range ops {
		if op.IsNemesis() {
			if op.F == "heal" {
				break // the final heal: the load is over
			}
			continue
		}
		if op.Type == history.Invoke {
			nodeOf[op.Process] = op.Node
			if start < 0 {
				start = op.Time
			}
		}
		if op.Type != history.OK {
			continue
		}
		end = op.Time
		switch {
		case op.Time < first:
			before++
		case op.Time > last:
			after++
			up[nodeOf[op.Process]] = true
		}
	}
	pre, post := time.Duration(first-start), time.Duration(end-last)
	if start < 0 || pre < minRecoveryWindow || post < minRecoveryWindow {
		return rec
	}
	rec.Measured = true
	rec.Baseline = float64(before) / pre.Seconds()
	rec.After = float64(after) / post.Seconds()
	rec.NodesUp = len(up)
	return rec
}
