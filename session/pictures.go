package session

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/faultline/faultline/check"
	"github.com/faultline/faultline/interp"
	"github.com/faultline/faultline/nemesis"
	"github.com/faultline/faultline/report"
	"github.com/faultline/faultline/verdict"
)

// writePictures draws a run beside its history: plot.svg (latency per op,
// its quantiles and the rate per op and outcome, under the fault bands with
// their victims, the anomalous ops marked and what the recovery audit
// compared) and timeline.html (a lane per process, a bar per op).
func writePictures(dir, title string, r *interp.Result, rec verdict.Recovery) error {
	windows := make([]report.Window, 0, len(r.Faults))
	for _, w := range r.Faults {
		windows = append(windows, report.Window{Name: w.Fault, Start: w.Start, End: w.End, Landed: w.Proven,
			Victims: w.Victims, Shape: w.Shape})
	}
	var anomalous []int64
	if r.Check.Valid == check.Invalid {
		anomalous = violation(r.Check).Ops
	}
	in := report.PlotInput{Windows: windows, Anomalous: anomalous, Refused: nemesis.Refused, Recovery: recoverySpans(rec)}
	var b bytes.Buffer
	if err := report.PlotSVG(&b, r.Ops, in); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "plot.svg"), b.Bytes(), 0o644); err != nil {
		return fmt.Errorf("write plot: %w", err)
	}
	b.Reset()
	if err := report.TimelineHTML(&b, r.Ops, report.TimelineInput{Title: title, Windows: windows,
		Anomalous: anomalous, Refused: nemesis.Refused}); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "timeline.html"), b.Bytes(), 0o644); err != nil {
		return fmt.Errorf("write timeline: %w", err)
	}
	return nil
}

// recoverySpans is what RF8 compared, labelled with what it measured in
// each window; nil when it measured nothing.
func recoverySpans(r verdict.Recovery) *report.RecoverySpans {
	if !r.Measured {
		return nil
	}
	label := func(side string, rate, answered float64, nodes string) string {
		s := fmt.Sprintf("RF8 %s: %.0f ok/s, %.0f%% answered", side, rate, answered*100)
		if nodes != "" {
			s += ", " + nodes
		}
		return s
	}
	return &report.RecoverySpans{
		Before:      report.Span{Start: r.BeforeWindow[0], End: r.BeforeWindow[1]},
		After:       report.Span{Start: r.AfterWindow[0], End: r.AfterWindow[1]},
		BeforeLabel: label("before the faults", r.Baseline, r.AnsweredBefore, ""),
		AfterLabel:  label("after the last heal", r.After, r.AnsweredAfter, fmt.Sprintf("%d of %d nodes answering", r.NodesUp, r.Nodes)),
	}
}
