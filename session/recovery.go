package session

import (
	"slices"
	"time"

	"github.com/faultline/faultline/history"
	"github.com/faultline/faultline/nemesis"
	"github.com/faultline/faultline/verdict"
)

// minRecoveryWindow is the shortest stretch of load before the first fault,
// and the shortest quiescent stretch after the last heal, that counts as a
// measurement. Half a second of a smoke run's ~150 ops/s is ~75 answers:
// enough for a median latency and an ok share, and short enough that a
// fault one second into the run leaves a baseline.
const minRecoveryWindow = 500 * time.Millisecond

// recoveryOf measures, from the history, whether the system came back to
// nominal (§3.1 #8): the load before the first fault against the quiescent
// second half of the load after the last heal (the first half is the
// system's settling time). Each window yields ok ops/s, the share of client
// completions that were answered (ok, or refused for a reason of the data:
// nemesis.Refused), the median latency of ok ops, and (after) which
// nodes' clients got ok answers. A fault still open when the load ended
// (healed only by the final heal) leaves nothing to measure: Measured stays
// false.
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
	// The load's span: the first client invocation to the last client
	// completion before the final heal.
	var start, end int64 = -1, -1
	for _, op := range ops {
		if op.IsNemesis() {
			if op.F == "heal" {
				break // the final heal: the load is over
			}
			continue
		}
		if op.Type == history.Invoke && start < 0 {
			start = op.Time
		}
		if op.Type != history.Invoke {
			end = op.Time
		}
	}
	settled := last + (end-last)/2
	pre, post := time.Duration(first-start), time.Duration(end-settled)
	if start < 0 || pre < minRecoveryWindow || post < minRecoveryWindow {
		return rec
	}
	before := measure(ops, start, first)
	after := measure(ops, settled, end+1)
	if before.ok == 0 {
		return rec
	}
	rec.Measured = true
	rec.Baseline = float64(before.ok) / pre.Seconds()
	rec.After = float64(after.ok) / post.Seconds()
	rec.AnsweredBefore, rec.AnsweredAfter = before.share(), after.share()
	rec.LatencyBefore, rec.LatencyAfter = before.median(), after.median()
	rec.NodesUp = len(after.nodes)
	rec.BeforeWindow, rec.AfterWindow = [2]int64{start, first}, [2]int64{settled, end}
	return rec
}

// windowStats is what clients saw of the system in one stretch of time.
type windowStats struct {
	ok, answered, done int
	latencies          []time.Duration // of ok ops
	nodes              map[string]bool // nodes whose clients got an ok answer
}

// measure counts the client completions in [from, to) before the final
// heal; an op counts in the window its completion falls in.
func measure(ops []history.Op, from, to int64) windowStats {
	w := windowStats{nodes: map[string]bool{}}
	type call struct {
		at   int64
		node string
	}
	open := map[int]call{} // process -> its outstanding invocation
	for _, op := range ops {
		if op.IsNemesis() {
			if op.F == "heal" {
				break
			}
			continue
		}
		if op.Type == history.Invoke {
			open[op.Process] = call{op.Time, op.Node}
			continue
		}
		inv, ok := open[op.Process]
		delete(open, op.Process)
		if !ok || op.Time < from || op.Time >= to {
			continue
		}
		w.done++
		if nemesis.Refused(op) {
			w.answered++
		}
		if op.Type == history.OK {
			w.ok++
			w.answered++
			w.latencies = append(w.latencies, time.Duration(op.Time-inv.at))
			w.nodes[inv.node] = true
		}
	}
	return w
}

func (w windowStats) share() float64 {
	if w.done == 0 {
		return 0
	}
	return float64(w.answered) / float64(w.done)
}

func (w windowStats) median() time.Duration {
	if len(w.latencies) == 0 {
		return 0
	}
	s := slices.Clone(w.latencies)
	slices.Sort(s)
	return s[len(s)/2]
}
