package session

import (
	"fmt"
	"strings"
	"time"

	"github.com/faultline/faultline/history"
	"github.com/faultline/faultline/nemesis"
	"github.com/faultline/faultline/report"
)

// maxContextOps bounds the ops a finding places in time.
const maxContextOps = 5

// anomalyContext places a violation's ops (history indexes, as
// check.Result.Ops names them) in the run that recorded h: when each was
// invoked and completed, by which process on which node, in which fault
// epoch, and which fault windows were open meanwhile. faulted says whether
// any window overlapped any of them: only then can the finding speak to a
// hypothesis about a fault. placed is false when no op could be found (the
// checker named none), and then nothing is claimed either way. timeline,
// when not "", is the link (relative to the finding) of the run's
// timeline.html: each op is then a Markdown link to its bar there.
func anomalyContext(h []history.Op, ops []int64, timeline string) (text string, faulted, placed bool) {
	if len(ops) == 0 {
		return "", false, false
	}
	pairs, err := history.Pair(h)
	if err != nil {
		return "", false, false
	}
	pairOf := make(map[int64]history.OpPair, 2*len(pairs))
	for _, p := range pairs {
		pairOf[h[p.Invoke].Index] = p
		if p.Complete >= 0 {
			pairOf[h[p.Complete].Index] = p
		}
	}
	windows := nemesis.FaultWindows(h)
	start := h[0].Time
	at := func(t int64) string { return time.Duration(t - start).Round(time.Millisecond).String() }
	var lines []string
	for _, idx := range ops[:min(len(ops), maxContextOps)] {
		p, ok := pairOf[idx]
		if !ok {
			continue
		}
		inv := h[p.Invoke]
		end := int64(-1) // never completed: open to the end of the history
		what := "never completed"
		done := inv
		if p.Complete >= 0 {
			done = h[p.Complete]
			end = done.Time
			what = "completed " + string(done.Type) + " at " + at(done.Time)
		}
		node := done.Node
		if node == "" {
			node = inv.Node
		}
		where := ""
		if node != "" {
			where = " on node " + node
		}
		var open []string
		for _, w := range windows {
			if overlaps(w, inv.Time, end) {
				faulted = true
				open = append(open, describeWindow(w, at))
			}
		}
		active := "no fault was active"
		if len(open) > 0 {
			active = "faults active: " + strings.Join(open, "; ")
		}
		name := fmt.Sprintf("op %d", inv.Index)
		if timeline != "" {
			name = fmt.Sprintf("[%s](%s#%s)", name, timeline, report.TimelineAnchor(inv.Index))
		}
		lines = append(lines, fmt.Sprintf("%s (%s by process %d%s): invoked at %s, %s, fault epoch %d; %s",
			name, inv.F, inv.Process, where, at(inv.Time), what, done.FaultEpoch, active))
	}
	if len(lines) == 0 {
		return "", false, false
	}
	if len(ops) > maxContextOps {
		lines = append(lines, fmt.Sprintf("(and %d more ops)", len(ops)-maxContextOps))
	}
	return strings.Join(lines, "\n  "), faulted, true
}

// overlaps reports whether window w was open at any time in [from, to]
// (to < 0: to the end of the history).
func overlaps(w nemesis.Window, from, to int64) bool {
	return (to < 0 || w.Start <= to) && (w.End < 0 || w.End >= from)
}

// describeWindow names a fault window for a finding: the fault, its shape,
// and when it opened and closed.
func describeWindow(w nemesis.Window, at func(int64) string) string {
	s := w.Fault
	if w.Shape != "" {
		s += " " + w.Shape
	}
	if len(w.Victims) > 0 {
		s += " on " + strings.Join(w.Victims, ", ")
	}
	if w.End < 0 {
		return fmt.Sprintf("%s from %s to the end", s, at(w.Start))
	}
	return fmt.Sprintf("%s from %s to %s", s, at(w.Start), at(w.End))
}

// creditedHypotheses is what a finding says about the hypotheses its
// scenario closes: they are credited only when a fault window overlapped
// the anomaly, since a fault hypothesis cannot explain what happened while
// no fault was active.
func creditedHypotheses(closes string, faulted, placed bool) string {
	switch {
	case closes == "":
		return ""
	case !placed:
		return closes + " (the checker names no op, so the anomaly is not placed in time)"
	case !faulted:
		return "none credited: no fault was active while the anomalous ops ran, so this finding does not speak to " + closes
	}
	return closes
}
