package session

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/faultline/faultline/check"
	"github.com/faultline/faultline/control"
	"github.com/faultline/faultline/interp"
	"github.com/faultline/faultline/nemesis"
	"github.com/faultline/faultline/report"
	"github.com/faultline/faultline/verdict"
)

// Result is a finished run. Results is its results.json, what `run -o
// json` prints; the rest is what a text summary shows beside it.
type Result struct {
	Results report.Results
	// Units are the units run, in order (a plan's compiled scenarios and
	// arms, without the arms' aggregates; a script's scenarios).
	Units []Unit
	// Outcomes are a script's scenario runs, the slice Results.Scenarios
	// holds; nil for a plan.
	Outcomes []ScenarioOutcome
	// Replay is the command that replays the session's recorded
	// schedules; "" when nothing ran.
	Replay string
	// DBLeftRunning names the scenarios (or plan units) whose db was set
	// up and left running (--leave-db-running).
	DBLeftRunning []string
}

// Unit is one unit of a run as a summary shows it: its decision, and the
// violation behind a FAIL.
type Unit struct {
	ID       string
	Decision verdict.Decision
	// Violation is the innermost invalid checker result of a failed
	// unit's run (its summary and explanation); nil unless the unit
	// failed with a run to show.
	Violation *check.Result
}

// Run runs o.Path: a plan when it ends in .md, else a script.
func Run(ctx context.Context, o Options) (*Result, error) {
	if strings.HasSuffix(strings.ToLower(o.Path), ".md") {
		return RunPlan(ctx, o)
	}
	return RunScript(ctx, o)
}

// ScenarioOutcome is one scenario run of a script: its line in
// results.json's scenarios and in the summary.
type ScenarioOutcome struct {
	Scenario  string            `json:"scenario"`
	Tier      string            `json:"tier"`
	Seed      uint64            `json:"seed"`
	Virtual   bool              `json:"simulated_time"`
	Invoked   int64             `json:"invoked"`
	OK        int64             `json:"ok"`
	Fail      int64             `json:"fail"`
	Info      int64             `json:"info"`
	Cancelled bool              `json:"cancelled"`
	Result    string            `json:"result"` // valid, invalid, unknown, error
	Summary   string            `json:"summary"`
	Problems  []string          `json:"problems,omitempty"`
	History   string            `json:"history,omitempty"`
	Check     check.Result      `json:"check"`
	Faults    []nemesis.Window  `json:"faults,omitempty"`
	Landing   []nemesis.Finding `json:"landing,omitempty"`
	Replay    string            `json:"replay"`
	// Context places an invalid verdict's ops in the run (anomalyContext).
	Context     string  `json:"context,omitempty"`
	Error       string  `json:"error,omitempty"`
	ElapsedSecs float64 `json:"elapsed_seconds"`
	// Decision is the scenario's verdict with the evidence behind it, by
	// the same decision tree, gates and audits as a plan unit.
	Decision verdict.Decision `json:"decision"`
	// DBLeftRunning: the scenario's db was left running after its run,
	// as --leave-db-running asked.
	DBLeftRunning bool `json:"db_left_running,omitempty"`
}

// openPool returns o.Pool, or opens o.Nodes' pool, with the func that
// releases what was opened (reporting a failure on Progress).
func openPool(o Options) (*control.Pool, func(), error) {
	if o.Pool != nil {
		return o.Pool, func() {}, nil
	}
	pool, release, err := o.Nodes.Open(o.Seed, o.Progress)
	if err != nil {
		return nil, nil, err
	}
	return pool, func() {
		if err := release(); err != nil {
			fmt.Fprintf(o.Progress, "faultline: releasing the nodes: %v\n", err)
		}
	}, nil
}

// RunScript runs the scenarios a script declares (o.Scenarios, else all)
// under o.Tier's budget, decides each one's verdict as a plan unit's, and
// writes the session. The returned Results' exit code is the session
// verdict's; a load error is a Rejected Error with the Starlark backtrace.
func RunScript(ctx context.Context, o Options) (*Result, error) {
	o = o.withDefaults()
	if !interp.ValidTier(o.Tier) {
		return nil, usage("run: --tier %q: want one of %s", o.Tier, strings.Join(interp.Tiers, ", "))
	}
	libs, err := interp.ParseLibs(o.Libs)
	if err != nil {
		return nil, usage("run: %w", err)
	}
	params, err := interp.ParseParams(o.Params)
	if err != nil {
		return nil, usage("run: %w", err)
	}
	if err := checkOverrides(o); err != nil {
		return nil, err
	}
	pool, release, err := openPool(o)
	if err != nil {
		return nil, err
	}
	defer release()
	path := o.Path
	print := o.ScriptPrint
	if print == nil {
		print = o.Progress
	}
	script, err := interp.Load(ctx, path, interp.LoadOptions{Libs: libs, Seed: o.Seed, Print: print, Pool: pool, Params: params})
	if err != nil {
		return nil, loadError(err)
	}
	selected, err := selectScenarios(script.Scenarios, o.Scenarios)
	if err != nil {
		return nil, usage("run: %w", err)
	}
	sess, err := report.NewSession(o.Out, report.Slug(path), time.Now())
	if err != nil {
		return nil, err
	}
	noteLocalSession(pool, sess.Dir) // a killed --local run's node logs go here
	header := report.Header{Plan: path, Seed: o.Seed, Tier: o.Tier, SUT: "in-process or as the script declares"}

	var outcomes []ScenarioOutcome
	for _, sc := range selected {
		if ctx.Err() != nil {
			break
		}
		outcomes = append(outcomes, runOne(ctx, sc, o, sess, pool))
	}

	// A script's scenarios get verdicts as a plan's do; the session verdict
	// (§2.5) gives the exit code.
	rows := make([]report.ScenarioRow, len(outcomes))
	scenarios := make([]verdict.ScenarioResult, len(outcomes))
	units := make([]report.Unit, 0, len(outcomes))
	res := &Result{Outcomes: outcomes}
	for i, o := range outcomes {
		if o.DBLeftRunning {
			res.DBLeftRunning = append(res.DBLeftRunning, o.Scenario)
		}
		rows[i] = report.ScenarioRow{Scenario: o.Scenario, TierMet: string(o.Decision.TierMet), Verdict: string(o.Decision.Verdict), Notes: firstReason(o.Decision)}
		scenarios[i] = verdict.ScenarioResult{Decision: o.Decision}
		// findings/<scenario>.md: the verdict with every audit box and its
		// evidence, as a plan unit's.
		unit := report.Unit{ID: o.Scenario, Decision: o.Decision, Executed: o.History != ""}
		if unit.Executed {
			unit.Artifact = filepath.Join("artifacts", o.Scenario) + "/"
			unit.Plot = unit.Artifact + "plot.svg"
		}
		if err := writeUnitFile(sess, unit); err != nil {
			return nil, err
		}
		units = append(units, unit)
		u := Unit{ID: o.Scenario, Decision: o.Decision}
		if o.Result == string(check.Invalid) {
			v := violation(o.Check)
			u.Violation = &v
		}
		res.Units = append(res.Units, u)
	}
	sv, headline := verdict.Session(verdict.SessionEvidence{Scenarios: scenarios})
	code := sv.ExitCode()
	res.Results = report.Results{SchemaVersion: report.ResultsSchemaVersion, Kind: report.KindScript, Script: path,
		Seed: o.Seed, Tier: o.Tier, SessionDir: sess.Dir, SessionVerdict: sv, Headline: headline,
		Result: Overall(runExitCode(outcomes)), ExitCode: code, Units: report.UnitResults(units), Scenarios: outcomes}
	for _, out := range outcomes {
		if out.History != "" {
			res.Replay = ReplayCommand(sess.Dir, o.Nodes) // every run recorded its schedule
			break
		}
	}
	if err := sess.WriteJSON("results.json", res.Results); err != nil {
		return nil, err
	}
	if o.JUnit != "" {
		if err := writeJUnit(o.JUnit, report.Slug(path), units, time.Since(sess.Started)); err != nil {
			return nil, err
		}
	}
	if err := writeScriptReport(sess, o, path, outcomes, code); err != nil {
		return nil, err
	}
	if err := sess.Finish(header, rows); err != nil {
		return nil, err
	}
	return res, nil
}

// runOne runs one scenario and turns what happened into its outcome.
func runOne(ctx context.Context, sc *interp.Scenario, f Options, sess *report.Session, pool *control.Pool) ScenarioOutcome {
	o := ScenarioOutcome{Scenario: sc.Name, Tier: f.Tier, Seed: f.Seed}
	var status io.Writer
	if f.Status {
		status = f.Progress
	}
	start := time.Now()
	header := report.Header{Plan: f.Path, Seed: f.Seed, Tier: f.Tier}
	u := runUnit(ctx, unitRun{spec: scriptSpec(sc), sc: sc, file: f.Path, status: status}, f, sess, header, pool, f.Progress)
	o.ElapsedSecs = time.Since(start).Seconds()
	o.Decision = u.decision
	o.DBLeftRunning = u.dbLeftRunning()
	res := u.result
	if res != nil {
		o.Virtual, o.History = res.Virtual, res.HistoryPath
		o.Invoked, o.OK, o.Fail, o.Info, o.Cancelled = res.Summary.Invoked, res.Summary.OK, res.Summary.Fail, res.Summary.Info, res.Summary.Cancelled
		o.Check, o.Problems = res.Check, res.Problems
		o.Faults, o.Landing = res.Faults, res.Landing
		o.Seed = res.Seed
		if res.Check.Valid == check.Invalid {
			o.Context, _, _ = anomalyContext(res.Ops, violation(res.Check).Ops, "")
		}
	}
	// Built once the run says whether it ran in real time, so --realtime
	// appears once whether the flag or the client asked for it.
	o.Replay = reproduceCommand(sc.Pos.Filename(), sc.Name, f, f.Realtime || (res != nil && !res.Virtual))
	if res == nil {
		o.Result, o.Error, o.Summary = "error", firstReason(u.decision), firstReason(u.decision)
		return o
	}
	o.Result, o.Summary = string(res.Check.Valid), res.Check.Summary
	if o.Result == string(check.Valid) && len(res.Problems) > 0 {
		// The checker found nothing wrong, but the run did not earn a pass.
		o.Result = string(check.Unknown)
		o.Summary = res.Check.Summary + "; but " + strings.Join(res.Problems, "; ")
	}
	return o
}

// runExitCode: an anomaly outranks an error, which outranks unknown.
func runExitCode(outs []ScenarioOutcome) int {
	results := make([]string, len(outs))
	for i, o := range outs {
		results[i] = o.Result
	}
	return ExitCode(results)
}

func selectScenarios(all []*interp.Scenario, names []string) ([]*interp.Scenario, error) {
	if len(names) == 0 {
		return all, nil
	}
	byName := map[string]*interp.Scenario{}
	var known []string
	for _, s := range all {
		byName[s.Name] = s
		known = append(known, s.Name)
	}
	var out []*interp.Scenario
	for _, n := range names {
		s, ok := byName[n]
		if !ok {
			return nil, fmt.Errorf("--scenario %q: no such scenario (have: %s)", n, strings.Join(known, ", "))
		}
		out = append(out, s)
	}
	return out, nil
}

// shellQuote quotes s for a POSIX shell when it needs quoting.
func shellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`!*?[]{}()<>|&;#~") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
