package main

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
	"github.com/spf13/cobra"

	"github.com/faultline/faultline/check"
	"github.com/faultline/faultline/control"
	"github.com/faultline/faultline/interp"
	"github.com/faultline/faultline/nemesis"
	"github.com/faultline/faultline/report"
	"github.com/faultline/faultline/verdict"
)

type runFlags struct {
	tier         string
	scenarios    []string
	seed         uint64
	seedSet      bool
	out          string
	libs         []string
	realtime     bool
	json         bool
	checkTimeout time.Duration
	nodes        nodeFlags
	suite        string
	author       bool
	junit        string
	yes          bool
	skip         []string
	assume       []string
	reruns       int
	script       string // the .star file run (set by runScript), recorded for replay
}

func newRunCmd() *cobra.Command {
	var f runFlags
	var output func() error // set by registerOutput below, called first in RunE
	cmd := &cobra.Command{
		Use:   "run PLAN.md|SCENARIO.star [flags]",
		Short: "Run a test plan, or the scenarios of a Starlark script, and check their histories",
		Long: `A plan (PLAN.md) is linted, compiled scenario by scenario against its suite
file (--suite, else the plan's **Suite:** header, else faultline.star beside
the plan), run, and given a verdict per scenario in findings/report.md.

A script (SCENARIO.star): run every scenario(...) it declares (or those named with --scenario)
under the budget of the chosen tier, record the history as it goes, and check
it. Results land in a session directory:

  <out>/<script name>/<UTC time>/
    session-log.md  results.json  logs/  metrics/  findings/
    artifacts/<scenario>/history.jsonl, checker.json, checker.txt, *.html

In-process clients (client.register(), client.noop()) run in simulated time
by default: the same --seed reproduces the same history byte for byte. Pass
--realtime to drive them with real goroutines and wall-clock time instead.

Ctrl-C stops issuing operations, waits for those in flight (each has a
timeout), checks what was recorded, and writes the session.

Exit codes: 0 valid (a plan: DONE), 1 anomaly found (FAIL), 2 unknown
(INCONCLUSIVE: timeout, too little load, interrupted), 3 input rejected
(BLOCKED: the message names file:line), 64 usage error.`,
		Example: `  faultline run examples/plans/demo.md --local
  faultline run plan.md --suite suite/faultline.star --nodes-file nodes --yes
  faultline run examples/scenarios/register.star
  faultline run examples/scenarios/stale-register.star --seed 42
  faultline run my.star --scenario fast_path --tier hardening --lib mylib=./lib`,
		Args: exactlyOne("run", "PLAN.md or SCENARIO.star"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := output(); err != nil {
				return err
			}
			f.seedSet = cmd.Flags().Changed("seed")
			return runScript(cmd, f, args[0])
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.tier, "tier", "smoke", "budget tier: "+strings.Join(interp.Tiers, ", "))
	fl.StringArrayVar(&f.scenarios, "scenario", nil, "run only this scenario (repeatable)")
	fl.Uint64Var(&f.seed, "seed", 0, "root seed (default: random, printed at start)")
	fl.StringVar(&f.out, "out", "test-sessions", "session root directory")
	fl.StringArrayVar(&f.libs, "lib", nil, "load root: NAME=DIR makes @NAME//file.star loadable (repeatable)")
	fl.BoolVar(&f.realtime, "realtime", false, "wall-clock time and real goroutines even for in-process clients")
	output = registerOutput(cmd, &f.json)
	fl.DurationVar(&f.checkTimeout, "check-timeout", 2*time.Minute, "bound on each checker's search")
	fl.StringVar(&f.suite, "suite", "", "for a plan: the suite file defining nodes, db and client (default: the plan's Suite: header, else faultline.star beside the plan)")
	fl.BoolVar(&f.author, "author", false, "for a plan: also write each compiled scenario to its Target test file (never over a hand-written file; never commits)")
	fl.StringVar(&f.junit, "junit", "", "also write the verdicts as JUnit XML to FILE (one test case per scenario or arm)")
	fl.BoolVar(&f.yes, "yes", false, "for a plan: ask no questions; verify capabilities by probing only")
	fl.StringArrayVar(&f.skip, "skip", nil, "for a plan: a capability or scenario id to skip (repeatable)")
	fl.StringArrayVar(&f.assume, "assume", nil, "for a plan: CAPABILITY=present|absent, trusted without probing (repeatable)")
	fl.IntVar(&f.reruns, "reruns", 1, "for a plan: re-run a failed scenario this many times (same seed; a real-time run from its recorded schedule) to tell FAIL-reproducible from FAIL-nondeterministic")
	f.nodes.register(fl)
	f.nodes.registerLocal(fl)
	registerTierCompletion(cmd)
	return cmd
}

// scenarioOutcome is one scenario's line in results.json and the summary.
type scenarioOutcome struct {
	Scenario    string            `json:"scenario"`
	Tier        string            `json:"tier"`
	Seed        uint64            `json:"seed"`
	Virtual     bool              `json:"simulated_time"`
	Invoked     int64             `json:"invoked"`
	OK          int64             `json:"ok"`
	Fail        int64             `json:"fail"`
	Info        int64             `json:"info"`
	Cancelled   bool              `json:"cancelled"`
	Result      string            `json:"result"` // valid, invalid, unknown, error
	Summary     string            `json:"summary"`
	Problems    []string          `json:"problems,omitempty"`
	History     string            `json:"history,omitempty"`
	Check       check.Result      `json:"check"`
	Faults      []nemesis.Window  `json:"faults,omitempty"`
	Landing     []nemesis.Finding `json:"landing,omitempty"`
	Replay      string            `json:"replay"`
	Error       string            `json:"error,omitempty"`
	ElapsedSecs float64           `json:"elapsed_seconds"`
	// Decision is the scenario's verdict with the evidence behind it, by
	// the same decision tree, gates and audits as a plan unit.
	Decision verdict.Decision `json:"decision"`
}

func runScript(cmd *cobra.Command, f runFlags, path string) error {
	if !interp.ValidTier(f.tier) {
		return usageErr("run: --tier %q: want one of %s", f.tier, strings.Join(interp.Tiers, ", "))
	}
	libs, err := interp.ParseLibs(f.libs)
	if err != nil {
		return usageErr("run: %w", err)
	}
	if !f.seedSet {
		f.seed = randomSeed()
	}
	stderr := cmd.ErrOrStderr()
	if !f.json {
		fmt.Fprintf(stderr, "faultline: seed %d (reproduce with --seed %d)\n", f.seed, f.seed)
	}

	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	pool, release, err := f.nodes.pool(f.seed)
	if err != nil {
		return err
	}
	defer func() {
		if err := release(); err != nil {
			fmt.Fprintf(stderr, "faultline: releasing the nodes: %v\n", err)
		}
	}()

	if strings.HasSuffix(strings.ToLower(path), ".md") {
		return runPlan(ctx, cmd, f, path, pool)
	}

	print := io.Writer(stderr)
	if f.json {
		print = io.Discard
	}
	f.script = path
	script, err := interp.Load(ctx, path, interp.LoadOptions{Libs: libs, Seed: f.seed, Print: print, Pool: pool})
	if err != nil {
		return scriptExit(err)
	}
	selected, err := selectScenarios(script.Scenarios, f.scenarios)
	if err != nil {
		return usageErr("run: %w", err)
	}
	sess, err := report.NewSession(f.out, report.Slug(path), time.Now())
	if err != nil {
		return err
	}
	noteLocalSession(pool, sess.Dir) // a killed --local run's node logs go here
	header := report.Header{Plan: path, Seed: f.seed, Tier: f.tier, SUT: "in-process or as the script declares"}

	var outcomes []scenarioOutcome
	for _, sc := range selected {
		if ctx.Err() != nil {
			break
		}
		outcomes = append(outcomes, runOne(ctx, sc, f, sess, stderr, pool))
	}

	// A script's scenarios get verdicts as a plan's do; the session verdict
	// (§2.5) gives the exit code.
	rows := make([]report.ScenarioRow, len(outcomes))
	scenarios := make([]verdict.ScenarioResult, len(outcomes))
	units := make([]report.Unit, 0, len(outcomes))
	for i, o := range outcomes {
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
			return err
		}
		units = append(units, unit)
	}
	sv, headline := verdict.Session(verdict.SessionEvidence{Scenarios: scenarios})
	code := sv.ExitCode()
	results := report.Results{SchemaVersion: report.ResultsSchemaVersion, Kind: report.KindScript, Script: path,
		Seed: f.seed, Tier: f.tier, SessionDir: sess.Dir, SessionVerdict: sv, Headline: headline,
		Result: overall(runExitCode(outcomes)), ExitCode: code, Units: report.UnitResults(units), Scenarios: outcomes}
	if err := sess.WriteJSON("results.json", results); err != nil {
		return err
	}
	if f.junit != "" {
		if err := writeJUnit(f.junit, report.Slug(path), units, time.Since(sess.Started)); err != nil {
			return err
		}
	}
	if err := writeScriptReport(sess, f, path, outcomes, code); err != nil {
		return err
	}
	if err := sess.Finish(header, rows); err != nil {
		return err
	}

	out := cmd.OutOrStdout()
	if f.json {
		if err := printJSON(out, results); err != nil {
			return err
		}
	} else {
		if err := printRunTable(out, outcomes); err != nil {
			return err
		}
		fmt.Fprintf(out, "verdict: %s — %s\n", sv, headline)
		fmt.Fprintf(out, "session: %s\nreport: %s\n", sess.Dir, filepath.Join(sess.Dir, "findings", "report.md"))
		for _, o := range outcomes {
			for _, l := range o.Landing {
				mark := "landed"
				if !l.Pass {
					mark = "NOT LANDED"
				}
				fmt.Fprintf(out, "%s: landing evidence %s: %s (%s)\n", o.Scenario, l.Decl, mark, l.Evidence)
			}
			if o.Result != "invalid" {
				continue
			}
			fmt.Fprintf(out, "\n%s: %s\n", o.Scenario, o.Check.Summary)
			printIndented(out, o.Check.Explanation)
			fmt.Fprintf(out, "reproduce: %s\n", o.Replay)
		}
	}
	if ctx.Err() != nil {
		return &exitError{code: exitUnknown, err: errors.New("interrupted: the session holds what was recorded before Ctrl-C")}
	}
	if code != exitOK {
		return &exitError{code: code}
	}
	return nil
}

// runOne runs one scenario and turns what happened into its outcome.
func runOne(ctx context.Context, sc *interp.Scenario, f runFlags, sess *report.Session, stderr io.Writer, pool *control.Pool) scenarioOutcome {
	o := scenarioOutcome{Scenario: sc.Name, Tier: f.tier, Seed: f.seed}
	var status io.Writer
	if !f.json && isTerminal(stderr) {
		status = stderr
	}
	start := time.Now()
	header := report.Header{Plan: f.script, Seed: f.seed, Tier: f.tier}
	u := runUnit(ctx, unitRun{spec: scriptSpec(sc), sc: sc, file: f.script, status: status}, f, sess, header, pool, stderr)
	o.ElapsedSecs = time.Since(start).Seconds()
	o.Decision = u.decision
	res := u.result
	if res != nil {
		o.Virtual, o.History = res.Virtual, res.HistoryPath
		o.Invoked, o.OK, o.Fail, o.Info, o.Cancelled = res.Summary.Invoked, res.Summary.OK, res.Summary.Fail, res.Summary.Info, res.Summary.Cancelled
		o.Check, o.Problems = res.Check, res.Problems
		o.Faults, o.Landing = res.Faults, res.Landing
		o.Seed = res.Seed
	}
	// Built once the run says whether it ran in real time, so --realtime
	// appears once whether the flag or the client asked for it.
	o.Replay = reproduceCommand(sc.Pos.Filename(), sc.Name, f, f.realtime || (res != nil && !res.Virtual))
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

// printIndented prints text with each line indented, as checkers' explanations are.
func printIndented(w io.Writer, text string) {
	text = strings.TrimRight(text, "\n")
	if text == "" {
		return
	}
	for _, line := range strings.Split(text, "\n") {
		fmt.Fprintf(w, "  %s\n", line)
	}
}

func printRunTable(w io.Writer, outs []scenarioOutcome) error {
	t := tablewriter.NewTable(w, tablewriter.WithHeaderAutoFormat(tw.Off))
	t.Header("scenario", "ops", "ok", "fail", "info", "checker", "verdict", "why")
	for _, o := range outs {
		if err := t.Append(o.Scenario, fmt.Sprint(o.Invoked), fmt.Sprint(o.OK), fmt.Sprint(o.Fail), fmt.Sprint(o.Info), o.Result, string(o.Decision.Verdict), firstReason(o.Decision)); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return fmt.Errorf("render table: %w", err)
	}
	return nil
}

// runExitCode: an anomaly outranks an error, which outranks unknown.
func runExitCode(outs []scenarioOutcome) int {
	results := make([]string, len(outs))
	for i, o := range outs {
		results[i] = o.Result
	}
	return worstExit(results)
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

// scriptExit maps a load error to exit 3 and prints the Starlark backtrace.
func scriptExit(err error) error {
	var se *interp.ScriptError
	if errors.As(err, &se) && se.Backtrace != "" {
		return &exitError{code: exitRejected, err: fmt.Errorf("%w\n%s", err, strings.TrimRight(se.Backtrace, "\n"))}
	}
	return &exitError{code: exitRejected, err: err}
}

func randomSeed() uint64 {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return uint64(time.Now().UnixNano())
	}
	// Keep seeds short enough to type.
	return binary.LittleEndian.Uint64(b[:]) % 1_000_000_000
}

// printJSON prints v as one indented JSON document: all -o json prints.
func printJSON(w io.Writer, v any) error {
	if err := report.EncodeJSON(w, v); err != nil {
		return fmt.Errorf("print json: %w", err)
	}
	return nil
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && isatty.IsTerminal(f.Fd())
}

func shellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`!*?[]{}()<>|&;#~") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
