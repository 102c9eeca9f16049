package session

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/faultline/faultline/nemesis"
	"github.com/faultline/faultline/report"
	"github.com/faultline/faultline/verdict"
)

// The text forms of the results, as `faultline` prints them without -o
// json: beside each result type so a Go caller shows what the CLI shows.

// WriteText writes the run's summary: for a plan, each unit's verdict, the
// violation behind each FAIL, the session verdict and the replay command;
// for a script, the counts and verdict of each scenario, the landing
// evidence and each anomaly with its reproduce command.
func (r *Result) WriteText(w io.Writer) error {
	if r.Results.Kind == report.KindPlan {
		r.writePlanText(w)
		return nil
	}
	t := tablewriter.NewTable(w, tablewriter.WithHeaderAutoFormat(tw.Off))
	t.Header("scenario", "ops", "ok", "fail", "info", "checker", "verdict", "why")
	for _, o := range r.Outcomes {
		if err := t.Append(o.Scenario, fmt.Sprint(o.Invoked), fmt.Sprint(o.OK), fmt.Sprint(o.Fail), fmt.Sprint(o.Info), o.Result, string(o.Decision.Verdict), whyCell(o.Decision)); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return fmt.Errorf("render table: %w", err)
	}
	res := r.Results
	fmt.Fprintf(w, "verdict: %s — %s\n", res.SessionVerdict, report.Headline(res.SessionVerdict, res.Headline, res.Units))
	fmt.Fprintf(w, "session: %s\n", res.SessionDir)
	writeWhere(w, res.SessionDir)
	for _, o := range r.Outcomes {
		for _, l := range o.Landing {
			mark := "landed"
			if !l.Pass {
				mark = "NOT LANDED"
			}
			fmt.Fprintf(w, "%s: landing evidence %s: %s (%s)\n", o.Scenario, l.Decl, mark, l.Evidence)
		}
		if o.Result != "invalid" {
			continue
		}
		fmt.Fprintf(w, "\n%s: %s\n", o.Scenario, o.Check.Summary)
		WriteIndented(w, o.Check.Explanation)
		fmt.Fprintf(w, "reproduce: %s\n", o.Replay)
	}
	return nil
}

// whyCell is a table row's why: one line of reason and, when a gate
// withheld the PASS, one line of what to change; the findings have the rest.
func whyCell(d verdict.Decision) string {
	why, fix := report.WhyLines(d, report.WhyWidth)
	if fix == "" {
		return why
	}
	return why + "\n" + fix
}

// writePlanText is WriteText of a plan run.
func (r *Result) writePlanText(w io.Writer) {
	t := tablewriter.NewTable(w, tablewriter.WithHeaderAutoFormat(tw.Off))
	t.Header("scenario", "verdict", "why")
	for _, u := range r.Units {
		_ = t.Append(u.ID, string(u.Decision.Verdict), whyCell(u.Decision))
	}
	if err := t.Render(); err != nil {
		fmt.Fprintf(w, "(table: %v)\n", err)
	}
	for _, u := range r.Units {
		if u.Violation != nil {
			fmt.Fprintf(w, "\n%s: %s\n", u.ID, u.Violation.Summary)
			WriteIndented(w, u.Violation.Explanation)
		}
	}
	res := r.Results
	fmt.Fprintf(w, "session: %s — %s\n", res.SessionVerdict, report.Headline(res.SessionVerdict, res.Headline, res.Units))
	writeWhere(w, res.SessionDir)
	if r.Replay != "" {
		fmt.Fprintf(w, "replay: %s\n", r.Replay)
	}
}

// WriteText writes, per scenario replayed, whether the anomaly reproduced
// and what each run found, then where the new session is.
func (r *ReplayResult) WriteText(w io.Writer) {
	for _, o := range r.Scenarios {
		fmt.Fprintf(w, "%s: reproduced: %s\n  original %s: %s\n  replay   %s: %s\n", o.Scenario, o.Reproduced,
			o.Original, orNoneVerdict(o.OriginalVerdict, o.Was), o.Replay, orNoneVerdict(o.ReplayVerdict, o.Now))
	}
	fmt.Fprintf(w, "session: %s\n", r.SessionDir)
	writeWhere(w, r.SessionDir)
}

// writeWhere says where a session's report and its page are, and how to
// browse every session under the same root.
func writeWhere(w io.Writer, dir string) {
	fmt.Fprintf(w, "report: %s\npage: %s (all sessions: faultline serve %s)\n", filepath.Join(dir, "findings", "report.md"),
		filepath.Join(dir, "index.html"), filepath.Dir(filepath.Dir(dir)))
}

// WriteText writes what the reduction came to: the shrunk history, the
// schedule's size before and after, and how to replay the minimal one.
func (r *Reduction) WriteText(w io.Writer) {
	if r.ShrunkHistory != "" {
		fmt.Fprintf(w, "history: %s\n", r.HistoryShrink)
	}
	fmt.Fprintf(w, "schedule: %d events -> %d, reproduced %d of %d runs (%d replays, 1-minimal: %v)\n",
		r.EventsBefore, r.EventsAfter, r.Reproduced, r.Of, r.Replays, r.OneMinimal)
	fmt.Fprintf(w, "minimal schedule: %s\nreplay: %s\n", r.Schedule, r.ReplayCommand)
}

// WriteText writes the file's line: its result and summary, a warning,
// the checker's explanation unless valid, and the files the checker wrote.
func (o FileOutcome) WriteText(w io.Writer) {
	fmt.Fprintf(w, "%s: %s: %s\n", o.File, strings.ToUpper(o.Valid), o.Summary)
	if o.Warning != "" {
		fmt.Fprintf(w, "%s: warning: %s\n", o.File, o.Warning)
	}
	if o.Valid != "valid" {
		WriteIndented(w, o.Result.Explanation)
	}
	for _, a := range o.Result.Artifacts {
		fmt.Fprintf(w, "  wrote %s\n", a)
	}
}

// WriteCheckTable writes one row per file checked and a footer counting
// the results.
func WriteCheckTable(w io.Writer, outs []FileOutcome) error {
	t := tablewriter.NewTable(w, tablewriter.WithHeaderAutoFormat(tw.Off))
	t.Header("history", "format", "ops", "result")
	for _, o := range outs {
		if err := t.Append(filepath.Base(o.File), o.Format, fmt.Sprint(o.Ops), o.Valid); err != nil {
			return err
		}
	}
	counts := map[string]int{}
	for _, o := range outs {
		counts[o.Valid]++
	}
	t.Footer("", "", "", fmt.Sprintf("%d valid, %d invalid, %d unknown, %d rejected",
		counts["valid"], counts["invalid"], counts["unknown"], counts["rejected"]))
	if err := t.Render(); err != nil {
		return fmt.Errorf("render table: %w", err)
	}
	return nil
}

// WriteHealReport writes one line per node: what heal removed, or that
// the node was not healed and why (err is nemesis.HealAll's). A node heal
// could not reach (or that still shows faultline rules) is never reported
// as having nothing to remove.
func WriteHealReport(out io.Writer, rep nemesis.HealReport, err error) {
	failed := nemesis.HealFailures(err)
	names := make([]string, 0, len(rep)+len(failed))
	for n := range rep {
		names = append(names, n)
	}
	for n := range failed {
		if _, ok := rep[n]; !ok {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	for _, n := range names {
		what := "nothing to remove"
		if len(rep[n]) > 0 {
			what = "removed " + strings.Join(rep[n], "; ")
		}
		if why, bad := failed[n]; bad {
			what = "NOT healed: " + why.Error()
			if len(rep[n]) > 0 {
				what += " (removed " + strings.Join(rep[n], "; ") + ")"
			}
		}
		fmt.Fprintf(out, "%s: %s\n", n, what)
	}
}

// WriteIndented writes text with each line indented, as checkers'
// explanations are shown.
func WriteIndented(w io.Writer, text string) {
	text = strings.TrimRight(text, "\n")
	if text == "" {
		return
	}
	for _, line := range strings.Split(text, "\n") {
		fmt.Fprintf(w, "  %s\n", line)
	}
}
