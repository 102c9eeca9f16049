package session

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/faultline/faultline/check"
	"github.com/faultline/faultline/check/mutate"
	"github.com/faultline/faultline/client"
	"github.com/faultline/faultline/control"
	"github.com/faultline/faultline/interp"
	"github.com/faultline/faultline/logaudit"
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
	dbLeft   bool // a run left its db running (--leave-db-running)
}

// RunPlan executes a test plan: lint (the halt rule stops everything),
// compile each scenario to Starlark under artifacts/harness/, probe the
// capabilities the scenarios need, run each in plan order under o.Tier,
// decide its verdict from measured evidence, and write the findings report
// and results.json. The returned Results' exit code is the session
// verdict's; a plan that cannot run is a Rejected Error.
func RunPlan(ctx context.Context, o Options) (*Result, error) {
	f := o.withDefaults()
	if !interp.ValidTier(f.Tier) {
		return nil, usage("run: --tier %q: want one of %s", f.Tier, strings.Join(interp.Tiers, ", "))
	}
	if _, err := interp.ParseLibs(f.Libs); err != nil {
		return nil, usage("run: %w", err)
	}
	if _, err := interp.ParseParams(f.Params); err != nil {
		return nil, usage("run: %w", err)
	}
	if err := checkOverrides(f); err != nil {
		return nil, err
	}
	pool, release, err := openPool(f)
	if err != nil {
		return nil, err
	}
	defer release()
	path, stderr := f.Path, f.Progress
	p, ds, err := plans.Load(path)
	if err != nil {
		return nil, rejected(err)
	}
	for _, d := range ds {
		fmt.Fprintln(stderr, d.String())
	}
	if plans.HasErrors(ds) {
		return nil, rejected(fmt.Errorf("%s: BLOCKED: the plan cannot run as written (halt rule); nothing was run", path))
	}
	// Resolved as lint resolves it, so lint and run agree on a missing suite.
	if f.Suite, err = PlanSuite(f.Suite, path, p); err != nil {
		return nil, rejected(fmt.Errorf("%s: BLOCKED: %w; nothing was run", path, err))
	}
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, rejected(err)
	}
	sess, err := report.NewSession(f.Out, p.Slug, time.Now())
	if err != nil {
		return nil, err
	}
	noteLocalSession(pool, sess.Dir) // a killed --local run's node logs go here
	harness := filepath.Join(sess.Dir, "artifacts", "harness")
	if err := os.MkdirAll(harness, 0o755); err != nil {
		return nil, err
	}
	suite, err := suitePath(f.Suite, path, harness)
	if err != nil {
		return nil, usage("run: %w", err)
	}
	f.Suite = filepath.Join(harness, suite) // for the recorded schedule
	compiled, cds := plans.Compile(p, plans.CompileOptions{Suite: suite, Source: src})
	if f.Author {
		wd, err := os.Getwd()
		if err != nil {
			return nil, err
		}
		if err := authorWrite(stderr, p, compiled, wd); err != nil {
			return nil, rejected(err)
		}
	}
	header := report.Header{Plan: path, Seed: f.Seed, Tier: f.Tier, SUT: p.HeaderValue("SUT")}
	matrix, err := probeEnvironment(ctx, p, compiled, f, pool, &header, stderr)
	if err != nil {
		return nil, err
	}
	_ = sess.Event("", "capability probe", fmt.Sprintf("%d requirements checked", len(matrix.Rows)), header)

	// On a terminal, one live status line for the whole plan run; messages
	// printed meanwhile go through it, so they clear the line first. Not on
	// a CI log: the session log records the same phases as events.
	var status *interp.Status
	if f.Status {
		status = interp.NewStatus(stderr)
		defer status.Close()
		stderr = status
	}
	var units []*planUnit
	for _, c := range compiled {
		if len(f.Scenarios) > 0 && !selected(f.Scenarios, c.ID) {
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
			return nil, err
		}
		if ctx.Err() != nil {
			u.decision = notRun(c.ID, "the session was interrupted before it started")
			continue
		}
		if missing := matrix.Missing(c.ID); len(missing) > 0 {
			u.decision = verdict.Decide(verdict.Evidence{Scenario: c.ID, Attempted: true, MissingCapabilities: missing})
			_ = sess.Event(c.ID, "INCONCLUSIVE-env", matrix.Reason(c.ID), header)
			if err := writeUnitFile(sess, unitRow(units, u.decision, false)); err != nil {
				return nil, err
			}
			continue
		}
		if err := runPlanUnit(ctx, p, u, file, f, sess, header, pool, stderr); err != nil {
			return nil, err
		}
		// Written as soon as the unit is decided, so a killed session keeps it.
		if err := writeUnitFile(sess, unitRow(units, u.decision, false)); err != nil {
			return nil, err
		}
	}

	status.Close() // the summary goes to the same terminal
	results := aggregate(p, units)
	sv, headline := verdict.Session(verdict.SessionEvidence{Scenarios: results})
	doc, err := writePlanReport(sess, p, path, f, units, results, sv, headline, header)
	if err != nil {
		return nil, err
	}
	res := &Result{Results: *doc}
	for _, u := range units {
		unit := Unit{ID: u.compiled.ID, Decision: u.decision}
		if u.dbLeft {
			res.DBLeftRunning = append(res.DBLeftRunning, u.compiled.ID)
		}
		if u.decision.Verdict.IsFail() && u.result != nil {
			v := violation(u.result.Check)
			unit.Violation = &v
		}
		if u.result != nil && res.Replay == "" {
			// Every executed scenario recorded its schedule.
			res.Replay = ReplayCommand(sess.Dir, f.Nodes)
		}
		res.Units = append(res.Units, unit)
	}
	return res, nil
}

// runPlanUnit loads and runs one compiled unit and decides its verdict. A
// violation found in simulated time is re-run once with the same seed: the
// same history must come back for FAIL-reproducible. The error is a -p the
// suite cannot use (every unit loads the same suite): a usage error that
// stops the session.
func runPlanUnit(ctx context.Context, p *plans.Plan, u *planUnit, file string, f Options,
	sess *report.Session, header report.Header, pool *control.Pool, stderr io.Writer) error {
	id := u.compiled.ID
	params, _ := interp.ParseParams(f.Params) // checked when the plan started
	script, err := interp.Load(ctx, file, interp.LoadOptions{Seed: f.Seed, Print: stderr, Pool: pool, Params: params})
	if pe := (*interp.ParamError)(nil); errors.As(err, &pe) {
		_ = sess.Event(id, "not run", err.Error(), header)
		return usage("run: %w (a plan's -p values are read by its suite)", pe)
	}
	if err != nil {
		u.decision = notRun(id, "the compiled scenario does not load: "+err.Error())
		_ = sess.Event(id, "not run", err.Error(), header)
		return nil
	}
	o := runUnit(ctx, unitRun{spec: planSpec(p, id), sc: script.Scenarios[0], file: file, status: interp.StatusOf(stderr).Writer()}, f, sess, header, pool, stderr)
	u.decision, u.result, u.executed, u.dbLeft = o.decision, o.result, o.executed, o.dbLeftRunning()
	return nil
}

// rerun runs a failed unit again f.Reruns times with the same seed: a run
// in simulated time from the seed alone, a real-time run from its recorded
// schedule (the same ops on the same threads at the same times, the same
// faults on the same nodes). Each re-run is a session artifact of its own,
// cited in the finding.
func rerun(ctx context.Context, sc *interp.Scenario, f Options, sess *report.Session, header report.Header, id, dir, file string,
	pool *control.Pool, orig check.Result, stderr io.Writer) verdict.Reruns {
	var out verdict.Reruns
	was := check.Signature(orig)
	var replay *interp.Replay
	if _, events, err := interp.ReadSchedule(filepath.Join(dir, interp.ScheduleFile)); err == nil {
		replay = &interp.Replay{Events: events}
	} else {
		fmt.Fprintf(stderr, "faultline: %s: re-run from the seed alone: %v\n", id, err)
	}
	for i := 1; i <= f.Reruns && ctx.Err() == nil; i++ {
		name := fmt.Sprintf("%s-rerun%d", plans.ScenarioName(id), i)
		o := interp.RunOptions{Tier: f.Tier, Seed: f.Seed, Dir: sess.ArtifactDir(name),
			Realtime: f.Realtime, CheckTimeout: f.CheckTimeout, Print: stderr, Pool: pool, Script: file, Suite: f.Suite,
			LeaveDBRunning: f.LeaveDBRunning}
		if sc.Client.Simulated() && !f.Realtime {
			o.Replay = nil // the seed alone reproduces a simulated run byte for byte
		} else {
			o.Replay = replay
		}
		if st := interp.StatusOf(stderr); st != nil {
			st.Unit(fmt.Sprintf("%s re-run %d/%d", id, i, f.Reruns))
			o.Status = st
		}
		_ = sess.Event(id, "re-run", fmt.Sprintf("%d of %d (artifacts/%s)", i, f.Reruns, name), header)
		again, err := interp.Run(ctx, sc, o)
		out.Attempted++
		switch {
		case err != nil:
			out.Runs = append(out.Runs, fmt.Sprintf("artifacts/%s: the re-run failed: %v", name, err))
		case again.Check.Valid == check.Invalid:
			out.Reproduced++
			out.Runs = append(out.Runs, rerunLine(name, was, again.Check, &out))
		default:
			out.Runs = append(out.Runs, fmt.Sprintf("artifacts/%s: %s: %s", name, again.Check.Valid, again.Check.Summary))
		}
	}
	return out
}

// rerunLine says what an invalid re-run found, measured against the
// original's anomalies (was): the same violation again, or a violation
// again but a different one, which it counts in r.Different.
func rerunLine(name string, was []string, again check.Result, r *verdict.Reruns) string {
	now := check.Signature(again)
	summary := violation(again).Summary
	switch compareAnomalies(was, now) {
	case matchSame:
		return fmt.Sprintf("artifacts/%s: invalid again: %s", name, summary)
	case matchSameClass:
		return fmt.Sprintf("artifacts/%s: invalid again, the same anomaly on other keys (%s; the original: %s): %s", name, OrNone(now), OrNone(was), summary)
	}
	r.Different++
	return fmt.Sprintf("artifacts/%s: a violation again, a different one (%s; the original: %s): %s", name, OrNone(now), OrNone(was), summary)
}

// sensitivity runs the checker-sensitivity audit on a green result: the
// history mutated in ways the oracle must reject, each mutant judged by the
// one oracle (compose child) whose claim it breaks. Mutants wrong only under
// real-time order are left out unless the oracle promises real-time order.
// Oracles no mutant fits on this history are named in Unfit.
func sensitivity(ctx context.Context, c check.Checker, r *interp.Result, seed uint64) verdict.Sensitivity {
	rep := mutate.Audit(ctx, c, r.Ops, mutate.Options{Seed: seed, SkipRealtime: !realtimeOracle(r.Check), Baseline: &r.Check})
	s := verdict.Sensitivity{Ran: true, Checked: rep.Checked, Caught: rep.Caught, Kinds: rep.Kinds, Skipped: rep.Skipped, Unfit: rep.Unfit}
	for _, m := range rep.Escaped {
		s.Escaped = append(s.Escaped, m.Kind+" (accepted by "+m.Oracle+"): "+m.Description)
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

// scanOpErrors reads the error of every recorded op of an in-process
// system (it keeps no log files) with the scenario's log patterns.
func scanOpErrors(r *interp.Result, spec logaudit.Spec) (verdict.LogScan, error) {
	set, err := spec.Compile()
	if err != nil {
		return verdict.LogScan{}, err
	}
	a := set.NewScan()
	for _, op := range r.Ops {
		if op.Error == nil {
			continue
		}
		a.Line(fmt.Sprintf("history.jsonl:op %d", op.Index), []byte(fmt.Sprint(op.Error)))
	}
	l := a.Result()
	l.Source = "history"
	return l, nil
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

// writePlanReport writes the plan session's findings, results.json (which
// it returns) and, with --junit, the JUnit file.
func writePlanReport(sess *report.Session, p *plans.Plan, path string, f Options, units []*planUnit,
	results []verdict.ScenarioResult, sv verdict.SessionVerdict, headline string, header report.Header) (*report.Results, error) {
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
				return nil, err
			}
		}
	}
	fd := &report.Findings{Plan: p, PlanPath: path, SessionDir: sess.Dir, Started: sess.Started,
		Session: sv, Headline: headline, Units: rows, Confidence: confidence(sv), ConfidenceWhy: headline}
	for _, u := range units {
		if u.decision.Verdict.IsFail() && u.result != nil {
			// The run that failed may be a later seed's: cite its artifacts.
			art := artifactName(u.compiled.ID, u.result.Seed, f.Seed)
			bad := violation(u.result.Check)
			context, faulted, placed := anomalyContext(u.result.Ops, bad.Ops, "../"+filepath.ToSlash(filepath.Join("artifacts", art, "timeline.html")))
			fd.Findings = append(fd.Findings, report.Finding{
				Title: bad.Summary, Scenario: u.compiled.ID, Hypothesis: creditedHypotheses(closes(p, u.compiled.ID), faulted, placed),
				WhatHappened: bad.Explanation, Context: context,
				Reproducer: fmt.Sprintf("%s --scenario %s (the recorded schedule); from the seed alone: %s",
					ReplayCommand(sess.Dir, f.Nodes), art, planReproduce(path, u.compiled.ID, u.result.Seed, f)),
				Reduction:      fmt.Sprintf("not reduced in this session; faultline reduce %s --scenario %s shrinks the history and the schedule", sess.Dir, art),
				Classification: string(u.decision.Verdict),
				Evidence:       filepath.Join("artifacts", art, "checker.txt"),
			})
		}
	}
	if err := os.WriteFile(filepath.Join(sess.Dir, "findings", "report.md"), []byte(report.RenderFindings(fd)), 0o644); err != nil {
		return nil, err
	}
	if f.JUnit != "" {
		if err := writeJUnit(f.JUnit, p.Slug, rows, time.Since(sess.Started)); err != nil {
			return nil, err
		}
	}
	doc := &report.Results{SchemaVersion: report.ResultsSchemaVersion, Kind: report.KindPlan, Plan: path, Seed: f.Seed,
		Tier: f.Tier, SessionDir: sess.Dir, SessionVerdict: sv, Headline: headline, ExitCode: sv.ExitCode(),
		Units: report.UnitResults(rows), Scenarios: results}
	if err := sess.WriteJSON("results.json", doc); err != nil {
		return nil, err
	}
	return doc, sess.Finish(header, logRows)
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
	name := filepath.Join(sess.Dir, "findings", plans.ScenarioName(row.ID)+".md")
	return os.WriteFile(name, []byte(report.RenderUnit(row)), 0o644)
}

func unitRow(units []*planUnit, d verdict.Decision, agg bool) report.Unit {
	row := report.Unit{ID: d.Scenario, Decision: d, Aggregate: agg}
	for _, u := range units {
		if u.compiled.ID == d.Scenario && u.executed {
			row.Executed = true
			row.Artifact = filepath.Join("artifacts", plans.ScenarioName(d.Scenario)) + "/"
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

// retriesOf asks the client how it retries; a client that cannot say
// leaves the audit unable to judge.
func retriesOf(c client.Client) verdict.Retries {
	rr, ok := c.(client.RetryReporter)
	if !ok {
		return verdict.Retries{}
	}
	hidden, how := rr.Retries()
	if how == "" {
		return verdict.Retries{} // the client could not say
	}
	return verdict.Retries{Known: true, Hidden: hidden, Evidence: how}
}
