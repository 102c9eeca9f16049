package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/faultline/faultline/builtins/check"
	"github.com/faultline/faultline/builtins/check/mutate"
	"github.com/faultline/faultline/builtins/client"
	"github.com/faultline/faultline/builtins/control"
	"github.com/faultline/faultline/interp"
	"github.com/faultline/faultline/plans"
	"github.com/faultline/faultline/report"
	"github.com/faultline/faultline/verdict"
)

// planUnit is one compiled scenario or arm and what its run produced.
type planUnit struct {
	compiled plans.CompiledScenario
	decision verdict.Decision
	result   *interp.Result
	executed bool
}

// runPlan executes a test plan: lint (the halt rule stops everything), compile
// each scenario to Starlark under artifacts/harness/, run each in plan order
// under the tier, decide its verdict from measured evidence, and write the
// findings report. The exit code is the session verdict's.
func runPlan(ctx context.Context, cmd interface {
	OutOrStdout() io.Writer
	ErrOrStderr() io.Writer
}, f runFlags, path string, pool *control.Pool) error {
	stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
	p, ds, err := plans.Load(path)
	if err != nil {
		return &exitError{code: exitRejected, err: err}
	}
	for _, d := range ds {
		fmt.Fprintln(stderr, d.String())
	}
	if plans.HasErrors(ds) {
		return &exitError{code: exitRejected, err: fmt.Errorf("%s: BLOCKED: the plan cannot run as written (halt rule); nothing was run", path)}
	}
	src, err := os.ReadFile(path)
	if err != nil {
		return &exitError{code: exitRejected, err: err}
	}
	sess, err := report.NewSession(f.out, p.Slug, time.Now())
	if err != nil {
		return err
	}
	harness := filepath.Join(sess.Dir, "artifacts", "harness")
	if err := os.MkdirAll(harness, 0o755); err != nil {
		return err
	}
	suite, err := suitePath(f.suite, path, harness)
	if err != nil {
		return usageErr("run: %w", err)
	}
	f.suite = filepath.Join(harness, suite) // for the recorded schedule
	compiled, cds := plans.Compile(p, plans.CompileOptions{Suite: suite, Source: src})
	if f.author {
		wd, err := os.Getwd()
		if err != nil {
			return err
		}
		if err := authorWrite(stderr, p, compiled, wd); err != nil {
			return &exitError{code: exitRejected, err: err}
		}
	}
	header := report.Header{Plan: path, Seed: f.seed, Tier: f.tier, SUT: p.HeaderValue("SUT")}
	matrix, err := probeEnvironment(ctx, p, compiled, f, &header, stderr)
	if err != nil {
		return err
	}
	_ = sess.Event("", "capability probe", fmt.Sprintf("%d requirements checked", len(matrix.Rows)), header)

	var units []*planUnit
	for _, c := range compiled {
		if len(f.scenarios) > 0 && !selected(f.scenarios, c.ID) {
			continue
		}
		u := &planUnit{compiled: c}
		units = append(units, u)
		if why := compileErrors(cds, c.ID); why != "" {
			u.decision = notRun(c.ID, "the scenario could not be compiled: "+why)
			_ = sess.Event(c.ID, "not run", why, header)
			continue
		}
		file := filepath.Join(harness, c.File)
		if err := os.WriteFile(file, []byte(c.Source), 0o644); err != nil {
			return err
		}
		if ctx.Err() != nil {
			u.decision = notRun(c.ID, "the session was interrupted before it started")
			continue
		}
		if missing := matrix.Missing(c.ID); len(missing) > 0 {
			u.decision = verdict.Decide(verdict.Evidence{Scenario: c.ID, Attempted: true, MissingCapabilities: missing})
			_ = sess.Event(c.ID, "INCONCLUSIVE-env", matrix.Reason(c.ID), header)
			if err := writeUnitFile(sess, unitRow(units, u.decision, false)); err != nil {
				return err
			}
			continue
		}
		runPlanUnit(ctx, p, u, file, f, sess, header, pool, stderr)
		// Written as soon as the unit is decided, so a killed session keeps it.
		if err := writeUnitFile(sess, unitRow(units, u.decision, false)); err != nil {
			return err
		}
	}

	results := aggregate(p, units)
	sv, headline := verdict.Session(verdict.SessionEvidence{Scenarios: results})
	if err := writePlanReport(sess, p, path, f, units, results, sv, headline, header); err != nil {
		return err
	}
	printPlanSummary(stdout, units, sess.Dir, sv, headline)
	if code := sv.ExitCode(); code != exitOK {
		return &exitError{code: code}
	}
	return nil
}

// runPlanUnit loads and runs one compiled unit and decides its verdict. A
// violation found in simulated time is re-run once with the same seed: the
// same history must come back for FAIL-reproducible.
func runPlanUnit(ctx context.Context, p *plans.Plan, u *planUnit, file string, f runFlags,
	sess *report.Session, header report.Header, pool *control.Pool, stderr io.Writer) {
	id := u.compiled.ID
	script, err := interp.Load(ctx, file, interp.LoadOptions{Seed: f.seed, Print: stderr, Pool: pool})
	if err != nil {
		u.decision = notRun(id, "the compiled scenario does not load: "+err.Error())
		_ = sess.Event(id, "not run", err.Error(), header)
		return
	}
	sc := script.Scenarios[0]
	_ = sess.Event(id, "start", fmt.Sprintf("tier %s, seed %d", f.tier, f.seed), header)
	dir := sess.ArtifactDir(strings.ReplaceAll(id, "/", "_"))
	res, err := interp.Run(ctx, sc, interp.RunOptions{Tier: f.tier, Seed: f.seed, Dir: dir,
		Realtime: f.realtime, CheckTimeout: f.checkTimeout, Print: stderr, Pool: pool, Script: file, Suite: f.suite})
	if err != nil {
		u.decision = notRun(id, "the run failed: "+err.Error())
		_ = sess.Event(id, "error", err.Error(), header)
		return
	}
	u.result, u.executed = res, true
	if err := writePlot(dir, res); err != nil {
		fmt.Fprintf(stderr, "faultline: %s: plot: %v\n", id, err)
	}
	nodes := len(sc.Nodes)
	if pool != nil {
		nodes = len(pool.Nodes())
	}
	ev := evidenceFor(p, id, res, nodes)
	if !sc.Client.Simulated() {
		// The db recipe saved the nodes' logs before its teardown.
		if scan, err := verdict.ScanLogFiles(filepath.Join(dir, "logs")); err == nil {
			ev.Logs = scan
		}
		ev.Retries = retriesOf(sc.Client)
	}
	if sc.Client.Simulated() {
		// An in-process system has no log files: its only output is the
		// errors it returns, which the history holds; grep those.
		ev.Logs = scanOpErrors(res)
		ev.Retries = verdict.Retries{Known: true, Evidence: "the in-process client makes exactly one call per op; nothing retries behind the history"}
	}
	if res.Check.Valid == check.Valid {
		ev.Sensitivity = sensitivity(ctx, sc.Checker, res, f.seed)
		_ = sess.Event(id, "sensitivity audit", fmt.Sprintf("%d mutants checked, %d caught, %d escaped", ev.Sensitivity.Checked, ev.Sensitivity.Caught, len(ev.Sensitivity.Escaped)), header)
	}
	if res.Check.Valid == check.Invalid {
		ev.Reruns = rerun(ctx, sc, f, sess, header, id, dir, file, pool, stderr)
		// The finding cites both runs: the original first.
		ev.Reruns.Runs = append([]string{fmt.Sprintf("artifacts/%s: the original run: %s",
			strings.ReplaceAll(id, "/", "_"), violation(res.Check).Summary)}, ev.Reruns.Runs...)
	}
	u.decision = verdict.Decide(ev)
	_ = sess.Event(id, "oracle: "+string(res.Check.Valid), res.Check.Summary, header)
	_ = sess.Event(id, "verdict: "+string(u.decision.Verdict), firstReason(u.decision), header)
}

// rerun runs a failed unit again f.reruns times with the same seed: a run
// in simulated time from the seed alone, a real-time run from its recorded
// schedule (the same ops on the same threads at the same times, the same
// faults on the same nodes). Each re-run is a session artifact of its own,
// cited in the finding.
func rerun(ctx context.Context, sc *interp.Scenario, f runFlags, sess *report.Session, header report.Header, id, dir, file string,
	pool *control.Pool, stderr io.Writer) verdict.Reruns {
	var out verdict.Reruns
	var replay *interp.Replay
	if _, events, err := interp.ReadSchedule(filepath.Join(dir, interp.ScheduleFile)); err == nil {
		replay = &interp.Replay{Events: events}
	} else {
		fmt.Fprintf(stderr, "faultline: %s: re-run from the seed alone: %v\n", id, err)
	}
	for i := 1; i <= f.reruns && ctx.Err() == nil; i++ {
		name := fmt.Sprintf("%s-rerun%d", strings.ReplaceAll(id, "/", "_"), i)
		o := interp.RunOptions{Tier: f.tier, Seed: f.seed, Dir: sess.ArtifactDir(name),
			Realtime: f.realtime, CheckTimeout: f.checkTimeout, Print: stderr, Pool: pool, Script: file, Suite: f.suite}
		if sc.Client.Simulated() && !f.realtime {
			o.Replay = nil // the seed alone reproduces a simulated run byte for byte
		} else {
			o.Replay = replay
		}
		_ = sess.Event(id, "re-run", fmt.Sprintf("%d of %d (artifacts/%s)", i, f.reruns, name), header)
		again, err := interp.Run(ctx, sc, o)
		out.Attempted++
		switch {
		case err != nil:
			out.Runs = append(out.Runs, fmt.Sprintf("artifacts/%s: the re-run failed: %v", name, err))
		case again.Check.Valid == check.Invalid:
			out.Reproduced++
			out.Runs = append(out.Runs, fmt.Sprintf("artifacts/%s: invalid again: %s", name, violation(again.Check).Summary))
		default:
			out.Runs = append(out.Runs, fmt.Sprintf("artifacts/%s: %s: %s", name, again.Check.Valid, again.Check.Summary))
		}
	}
	return out
}

// sensitivity runs the checker-sensitivity audit on a green result: the
// history mutated in ways the oracle must reject. Mutants wrong only under
// real-time order are left out unless the oracle promises real-time order.
func sensitivity(ctx context.Context, c check.Checker, r *interp.Result, seed uint64) verdict.Sensitivity {
	rep := mutate.Audit(ctx, c, r.Ops, mutate.Options{Seed: seed, SkipRealtime: !realtimeOracle(r.Check), Baseline: &r.Check})
	s := verdict.Sensitivity{Ran: true, Checked: rep.Checked, Caught: rep.Caught, Kinds: rep.Kinds, Skipped: rep.Skipped}
	for _, m := range rep.Escaped {
		s.Escaped = append(s.Escaped, m.Kind+": "+m.Description)
	}
	return s
}

// realtimeOracle says whether a checker (or a child of compose) promises
// real-time order: linearizability, or a strict consistency model.
func realtimeOracle(r check.Result) bool {
	if r.Checker == "linearizable" {
		return true
	}
	if models, ok := r.Details["consistency_models"].([]string); ok {
		for _, m := range models {
			if strings.HasPrefix(m, "strict") || m == "linearizable" {
				return true
			}
		}
	}
	for _, c := range r.Children {
		if realtimeOracle(c) {
			return true
		}
	}
	return false
}

// evidenceFor turns what a run measured into the verdict's evidence. Facts
// the run cannot establish stay unknown, so the audits say cannot-judge.
func evidenceFor(p *plans.Plan, id string, r *interp.Result, nodes int) verdict.Evidence {
	sid, _, _ := strings.Cut(id, "/")
	s := p.Scenario(sid)
	e := verdict.Evidence{Scenario: id, Attempted: true}
	if s != nil {
		e.Claims.Categories = s.Gate.Categories
		e.Budgets = map[verdict.Tier]verdict.TierRequirement{}
		for t := range verdict.Tiers() {
			if b := s.Budgets.Tier(t); b != nil && b.NotProvided == nil {
				req := verdict.TierRequirement{Nodes: b.Nodes, Duration: b.Duration, Ops: b.Ops, Seeds: b.Seeds, Repetitions: b.Repetitions}
				if b.Faults != nil {
					req.Faults = *b.Faults
				}
				e.Budgets[t] = req
			}
		}
	}
	e.Run = verdict.Run{Nodes: nodes, Topologies: 1, Duration: r.Summary.Duration, Ops: r.Summary.Invoked, Seeds: 1, Repetitions: 1}
	consumed, dropped, keys := oracleCounts(r.Check)
	e.Oracle = verdict.Oracle{Name: r.Check.Checker, Outcome: verdict.Outcome(r.Check.Valid), Summary: violation(r.Check).Summary,
		Consumed: consumed, Dropped: dropped, Keys: keys}
	e.Faults = faultsOf(r)
	e.Recovery = recoveryOf(r.Ops, r.Faults, nodes)
	var model string
	if s != nil && s.Model != nil {
		model = s.Model.Model
	}
	e.Oracle.MatchesModel, e.Oracle.Kinds = matchesModel(model, r.Check)
	clock := "Go's monotonic clock"
	if r.Virtual {
		clock = "the simulated clock of the run"
	}
	e.History = verdict.HistoryQuality{
		Complete:       verdict.Yes("the journal closed cleanly with every op of the run"),
		Timestamps:     verdict.Yes("every invocation and completion carries its time"),
		Monotonic:      verdict.Yes("times come from " + clock),
		TimeoutMarkers: verdict.Yes("unknown outcomes are recorded as info with no output"),
		FaultEpoch:     verdict.Yes("every op carries fault_epoch"),
		NodeSeen:       verdict.No("ops record the node their client is bound to, not the node that served them"),
	}
	return e
}

// closes lists the hypotheses the unit's scenario closes.
func closes(p *plans.Plan, id string) string {
	sid, _, _ := strings.Cut(id, "/")
	if s := p.Scenario(sid); s != nil {
		return strings.Join(s.Closes, ", ")
	}
	return ""
}

// violation returns the innermost invalid checker result: the one whose
// summary and explanation say what went wrong.
func violation(r check.Result) check.Result {
	for _, c := range r.Children {
		if c.Valid == check.Invalid {
			return violation(c)
		}
	}
	return r
}

// faultsOf turns the nemesis's fault windows into the verdict's faults: the
// victim-side read-back the nemesis recorded, what clients saw in the window,
// and whether the final heal was verified.
func faultsOf(r *interp.Result) []verdict.Fault {
	declaredClient := false
	for _, f := range r.Landing {
		if strings.Contains(f.Decl, "op_errors") {
			declaredClient = true
		}
	}
	var out []verdict.Fault
	for _, w := range r.Faults {
		f := verdict.Fault{Name: w.Fault, ClientDeclared: declaredClient,
			Injector: verdict.Yes("the nemesis completed " + w.Fault)}
		if w.Landed {
			f.Victim = verdict.Yes("read back on the victims after inject (rules, counters, /proc state)")
		} else {
			f.Victim = verdict.No("the read-back on the victims did not show the fault")
		}
		seen := fmt.Sprintf("clients in the window: %d ok, %d fail, %d info", w.ClientOK, w.ClientFail, w.ClientInfo)
		if w.ClientFail+w.ClientInfo > 0 {
			f.Client = verdict.Yes(seen)
		} else {
			f.Client = verdict.No(seen)
		}
		switch {
		case w.Held == nil:
		case *w.Held:
			f.Held = verdict.Yes("still in effect when the hold ended, read back before healing")
		default:
			f.Held = verdict.No("gone before the hold ended (reverted or bypassed behind faultline's back)")
		}
		if w.End >= 0 && r.Healed != nil {
			f.Healed = verdict.Yes("healed, and the final heal found no faultline rules left")
		}
		out = append(out, f)
	}
	return out
}

// scanOpErrors greps the error of every recorded op for the alarm pattern.
func scanOpErrors(r *interp.Result) verdict.LogScan {
	l := verdict.LogScan{Scanned: true, Files: 1}
	for _, op := range r.Ops {
		if op.Error == nil {
			continue
		}
		l.Lines++
		text := fmt.Sprint(op.Error)
		if _, hit := verdict.MatchLogLine([]byte(text)); hit {
			l.Matches++
			if len(l.Samples) < 3 {
				l.Samples = append(l.Samples, fmt.Sprintf("history.jsonl:op %d: %s", op.Index, text))
			}
		}
	}
	return l
}

// oracleCounts reads what the history checker consumed and what it rightly
// set aside (failed ops, reads of unknown outcome), so the audit can match
// them against the ops issued. Without a history checker it is the oracle's
// own count with nothing set aside.
func oracleCounts(res check.Result) (consumed, dropped int64, keys int) {
	var hist *check.Result
	var walk func(r *check.Result)
	walk = func(r *check.Result) {
		if r.Checker == "linearizable" && hist == nil {
			hist = r
		}
		for i := range r.Children {
			walk(&r.Children[i])
		}
	}
	walk(&res)
	if hist == nil {
		return int64(res.Consumed.Ops), 0, res.Consumed.Keys
	}
	for _, k := range []string{"failed_ops_dropped", "unknown_reads_dropped"} {
		if n, ok := hist.Details[k].(int); ok {
			dropped += int64(n)
		}
	}
	return int64(hist.Consumed.Ops), dropped, hist.Consumed.Keys
}

// historyCheckers are the checkers the §4.1 picker names for each model of
// "Model under test".
var historyCheckers = map[string][]string{
	"register": {"linearizable"},
	"map":      {"linearizable", "transactional"},
	"queue":    {"queue", "total-queue"},
	"counter":  {"counter"},
	"ledger":   {"bank"},
	"session":  {"monotonic-reads", "read-your-writes", "transactional"},
}

// matchesModel says whether a checker the model calls for actually ran
// (§4.1), and what kinds of oracle ran.
func matchesModel(model string, res check.Result) (verdict.Fact, []verdict.OracleKind) {
	var ran []string
	var walk func(r check.Result)
	walk = func(r check.Result) {
		if len(r.Children) == 0 {
			ran = append(ran, r.Checker)
		}
		for _, c := range r.Children {
			walk(c)
		}
	}
	walk(res)
	var kinds []verdict.OracleKind
	for _, c := range ran {
		switch c {
		case "linearizable", "transactional", "monotonic-reads", "read-your-writes", "recovery":
			kinds = append(kinds, verdict.KindHistory)
		case "no-lost-ack":
			kinds = append(kinds, verdict.KindNoLostAck)
		case "final-state":
			kinds = append(kinds, verdict.KindFinalState)
		case "replicas":
			kinds = append(kinds, verdict.KindReconciliation)
		case "slo":
			kinds = append(kinds, verdict.KindMetricSLO)
		case "fairness":
			kinds = append(kinds, verdict.KindPerGroup)
		}
	}
	want, ok := historyCheckers[model]
	if !ok {
		return verdict.Fact{}, kinds
	}
	for _, c := range ran {
		for _, w := range want {
			if c == w {
				return verdict.Yes(fmt.Sprintf("model %s calls for %s, and %s ran", model, strings.Join(want, " or "), c)), kinds
			}
		}
	}
	return verdict.No(fmt.Sprintf("model %s calls for %s; ran: %s", model, strings.Join(want, " or "), strings.Join(ran, ", "))), kinds
}

// aggregate groups units into the session's scenarios, folding arms with
// the §2.4 downgrade rule.
func aggregate(p *plans.Plan, units []*planUnit) []verdict.ScenarioResult {
	var out []verdict.ScenarioResult
	byScenario := map[string][]verdict.Decision{}
	var order []string
	for _, u := range units {
		sid, arm, _ := strings.Cut(u.compiled.ID, "/")
		if arm == "" {
			out = append(out, verdict.ScenarioResult{Decision: u.decision})
			continue
		}
		if _, ok := byScenario[sid]; !ok {
			order = append(order, sid)
		}
		byScenario[sid] = append(byScenario[sid], u.decision)
	}
	for _, sid := range order {
		arms := byScenario[sid]
		out = append(out, verdict.ScenarioResult{Decision: verdict.AggregateArms(sid, arms), Arms: arms})
	}
	return out
}

func writePlanReport(sess *report.Session, p *plans.Plan, path string, f runFlags, units []*planUnit,
	results []verdict.ScenarioResult, sv verdict.SessionVerdict, headline string, header report.Header) error {
	var rows []report.Unit
	var logRows []report.ScenarioRow
	for _, r := range results {
		for _, a := range r.Arms {
			rows = append(rows, unitRow(units, a, false))
		}
		rows = append(rows, unitRow(units, r.Decision, len(r.Arms) > 0))
	}
	for _, row := range rows {
		logRows = append(logRows, report.ScenarioRow{Scenario: row.ID, TierMet: string(row.Decision.TierMet),
			Verdict: string(row.Decision.Verdict), Notes: firstReason(row.Decision)})
		if !row.Aggregate {
			if err := writeUnitFile(sess, row); err != nil {
				return err
			}
		}
	}
	fd := &report.Findings{Plan: p, PlanPath: path, SessionDir: sess.Dir, Started: sess.Started,
		Session: sv, Headline: headline, Units: rows, Confidence: confidence(sv), ConfidenceWhy: headline}
	for _, u := range units {
		if u.decision.Verdict.IsFail() && u.result != nil {
			fd.Findings = append(fd.Findings, report.Finding{
				Title: violation(u.result.Check).Summary, Scenario: u.compiled.ID, Hypothesis: closes(p, u.compiled.ID), WhatHappened: violation(u.result.Check).Explanation,
				Reproducer: fmt.Sprintf("faultline replay %s --scenario %s (the recorded schedule); from the seed alone: faultline run %s --scenario %s --seed %d --tier %s%s",
					sess.Dir, strings.ReplaceAll(u.compiled.ID, "/", "_"), path, u.compiled.ID, f.seed, f.tier, nodesFlag(f.nodes)),
				Reduction:      fmt.Sprintf("not reduced in this session; faultline reduce %s --scenario %s shrinks the history and the schedule", sess.Dir, strings.ReplaceAll(u.compiled.ID, "/", "_")),
				Classification: string(u.decision.Verdict),
				Evidence:       filepath.Join("artifacts", strings.ReplaceAll(u.compiled.ID, "/", "_"), "checker.txt"),
			})
		}
	}
	if err := os.WriteFile(filepath.Join(sess.Dir, "findings", "report.md"), []byte(report.RenderFindings(fd)), 0o644); err != nil {
		return err
	}
	if f.junit != "" {
		if err := writeJUnit(f.junit, p.Slug, rows, time.Since(sess.Started)); err != nil {
			return err
		}
	}
	if err := sess.WriteJSON("results.json", map[string]any{"plan": path, "seed": f.seed, "tier": f.tier,
		"session_dir": sess.Dir, "session_verdict": sv, "headline": headline, "exit_code": sv.ExitCode(), "scenarios": results}); err != nil {
		return err
	}
	return sess.Finish(header, logRows)
}

// writePlot draws the run's latency and throughput with its fault windows
// into plot.svg beside its history.
func writePlot(dir string, r *interp.Result) error {
	var windows []report.Window
	for _, w := range r.Faults {
		windows = append(windows, report.Window{Name: w.Fault, Start: w.Start, End: w.End, Landed: w.Landed})
	}
	var b bytes.Buffer
	if err := report.PlotSVG(&b, r.Ops, windows); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "plot.svg"), b.Bytes(), 0o644)
}

// writeJUnit writes the units' verdicts as JUnit XML for CI systems.
func writeJUnit(path, suite string, rows []report.Unit, elapsed time.Duration) error {
	var b bytes.Buffer
	if err := report.WriteJUnit(&b, suite, rows, elapsed); err != nil {
		return err
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		return fmt.Errorf("--junit: %w", err)
	}
	return nil
}

// writeUnitFile writes findings/<ID>.md for one scenario or arm.
func writeUnitFile(sess *report.Session, row report.Unit) error {
	name := filepath.Join(sess.Dir, "findings", strings.ReplaceAll(row.ID, "/", "_")+".md")
	return os.WriteFile(name, []byte(report.RenderUnit(row)), 0o644)
}

func unitRow(units []*planUnit, d verdict.Decision, agg bool) report.Unit {
	row := report.Unit{ID: d.Scenario, Decision: d, Aggregate: agg}
	for _, u := range units {
		if u.compiled.ID == d.Scenario && u.executed {
			row.Executed = true
			row.Artifact = filepath.Join("artifacts", strings.ReplaceAll(d.Scenario, "/", "_")) + "/"
			if u.result != nil && len(u.result.Ops) > 0 {
				row.Plot = row.Artifact + "plot.svg"
			}
		}
	}
	if agg {
		row.Executed = true
		if len(d.Reasons) > 0 {
			row.Downgrade = d.Reasons[0]
		}
	}
	return row
}

func printPlanSummary(w io.Writer, units []*planUnit, dir string, sv verdict.SessionVerdict, headline string) {
	t := tablewriter.NewTable(w, tablewriter.WithHeaderAutoFormat(tw.Off))
	t.Header("scenario", "verdict", "why")
	for _, u := range units {
		_ = t.Append(u.compiled.ID, string(u.decision.Verdict), firstReason(u.decision))
	}
	if err := t.Render(); err != nil {
		fmt.Fprintf(w, "(table: %v)\n", err)
	}
	for _, u := range units {
		if u.decision.Verdict.IsFail() && u.result != nil {
			v := violation(u.result.Check)
			fmt.Fprintf(w, "\n%s: %s\n", u.compiled.ID, v.Summary)
			printIndented(w, v.Explanation)
		}
	}
	fmt.Fprintf(w, "session: %s — %s\nreport: %s\n", sv, headline, filepath.Join(dir, "findings", "report.md"))
	for _, u := range units {
		if u.result != nil {
			// Every executed scenario recorded its schedule.
			fmt.Fprintf(w, "replay: faultline replay %s\n", dir)
			break
		}
	}
}

// confidence reads the session verdict against the plan's §7d statement.
func confidence(sv verdict.SessionVerdict) string {
	switch sv {
	case verdict.Fail:
		return "Less"
	case verdict.Done:
		return "More"
	}
	return "Unchanged"
}

func notRun(id, why string) verdict.Decision {
	return verdict.Decide(verdict.Evidence{Scenario: id, NotRunReason: why})
}

func firstReason(d verdict.Decision) string {
	if len(d.Reasons) == 0 {
		return ""
	}
	return d.Reasons[0]
}

func compileErrors(ds []plans.Diagnostic, id string) string {
	var msgs []string
	for _, d := range ds {
		if d.Severity == plans.Error && (d.Scenario == id || strings.HasPrefix(id, d.Scenario+"/")) {
			msgs = append(msgs, d.String())
		}
	}
	return strings.Join(msgs, "; ")
}

func selected(names []string, id string) bool {
	sid, _, _ := strings.Cut(id, "/")
	for _, n := range names {
		if n == id || n == sid {
			return true
		}
	}
	return false
}

// suitePath returns the suite's load path relative to the harness directory:
// --suite, or faultline.star beside the plan.
func suitePath(flag, plan, harness string) (string, error) {
	s := flag
	if s == "" {
		s = filepath.Join(filepath.Dir(plan), "faultline.star")
	}
	abs, err := filepath.Abs(s)
	if err != nil {
		return "", err
	}
	absHarness, err := filepath.Abs(harness)
	if err != nil {
		return "", err
	}
	return filepath.Rel(absHarness, abs)
}

// nodesFlag repeats how the run reached its nodes, for a reproduce command.
func nodesFlag(n nodeFlags) string {
	switch {
	case n.local:
		return " --local --nodes " + n.nodes
	case n.nodesFile != "":
		return " --nodes-file " + n.nodesFile
	case n.nodes != "":
		return " --nodes " + n.nodes
	}
	return ""
}

// retriesOf asks the client how it retries; a client that cannot say
// leaves the audit unable to judge.
func retriesOf(c client.Client) verdict.Retries {
	rr, ok := c.(client.RetryReporter)
	if !ok {
		return verdict.Retries{}
	}
	hidden, how := rr.Retries()
	return verdict.Retries{Known: true, Hidden: hidden, Evidence: how}
}
