package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/spf13/cobra"

	"github.com/faultline/faultline/interp"
	"github.com/faultline/faultline/report"
	"github.com/faultline/faultline/session"
)

// runFlags are run's (and demo's) flags: the session's options, and how
// the CLI prints and asks.
type runFlags struct {
	session.Options
	json      bool
	yes       bool // ask no questions: verify capabilities by probing only
	seedSet   bool
	testCount int // --test-count: independent runs, each with its own seed
}

func newRunCmd() *cobra.Command {
	var f runFlags
	var output func() error // set by registerOutput below, called first in RunE
	cmd := &cobra.Command{
		Use:   "run PLAN.md|SCENARIO.star [flags]",
		Short: "Run a test plan, or the scenarios of a Starlark script, and check their histories",
		Long:  help("run"),
		Example: `  faultline run examples/plans/demo.md --local
  faultline run plan.md --suite suite/faultline.star --nodes-file nodes --yes
  faultline run examples/scenarios/register.star
  faultline run examples/scenarios/stale-register.star --seed 42
  faultline run my.star --scenario fast_path --tier hardening --lib mylib=./lib
  faultline run examples/byo-params/suite.star -p bug=stale-reads
  faultline run suite.star --nodes-file nodes --time-limit 2m --concurrency 3n --test-count 5`,
		Args: exactlyOne("run", "PLAN.md or SCENARIO.star"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := output(); err != nil {
				return err
			}
			f.seedSet = cmd.Flags().Changed("seed")
			if cmd.Flags().Changed("time-limit") && f.TimeLimit <= 0 {
				return usageErr("run: --time-limit %s: want a positive duration, such as 30s or 5m", f.TimeLimit)
			}
			if cmd.Flags().Changed("concurrency") && f.Concurrency == "" {
				return usageErr("run: --concurrency \"\": want N or Nn (3n: three per node)")
			}
			if f.testCount < 1 {
				return usageErr("run: --test-count %d: want 1 or more", f.testCount)
			}
			if f.testCount > 1 {
				return runMany(cmd, f, args[0])
			}
			return runPath(cmd, f, args[0])
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.Tier, "tier", "smoke", "budget tier: "+strings.Join(interp.Tiers, ", "))
	fl.StringArrayVar(&f.Scenarios, "scenario", nil, "run only this scenario (repeatable)")
	fl.Uint64Var(&f.Seed, "seed", 0, "root seed (default: random, printed at start)")
	fl.StringVar(&f.Out, "out", "test-sessions", "session root directory")
	fl.StringArrayVar(&f.Libs, "lib", nil, "load root: NAME=DIR makes @NAME//file.star loadable (repeatable)")
	fl.BoolVar(&f.Realtime, "realtime", false, "wall-clock time and real goroutines even for in-process clients")
	fl.StringArrayVarP(&f.Params, "param", "p", nil, "KEY=VALUE for the script's param(\"KEY\", default) (repeatable; recorded, so replay and reduce use it; one the script never reads is an error)")
	fl.DurationVar(&f.TimeLimit, "time-limit", 0, "run each scenario's workload this long, whatever its budget says (e.g. 30s, 5m)")
	fl.StringVar(&f.Concurrency, "concurrency", "", "client threads for every scenario, whatever it declares: N, or Nn for N per node (3n)")
	fl.IntVar(&f.testCount, "test-count", 1, "run the whole test N times, each with its own seed; one summary, and the worst exit code")
	fl.BoolVar(&f.LeaveDBRunning, "leave-db-running", false, "skip the db's teardown after each run (real nodes only); `faultline heal --session DIR` tears it down later")
	output = registerOutput(cmd, &f.json)
	fl.DurationVar(&f.CheckTimeout, "check-timeout", 2*time.Minute, "bound on each checker's search")
	fl.StringVar(&f.Suite, "suite", "", "for a plan: the suite file defining nodes, db and client (default: the plan's Suite: header, else faultline.star beside the plan)")
	fl.BoolVar(&f.Author, "author", false, "for a plan: also write each compiled scenario to its Target test file (never over a hand-written file; never commits)")
	fl.StringVar(&f.JUnit, "junit", "", "also write the verdicts as JUnit XML to FILE (one test case per scenario or arm)")
	fl.BoolVar(&f.yes, "yes", false, "for a plan: ask no questions; verify capabilities by probing only")
	fl.StringArrayVar(&f.Skip, "skip", nil, "for a plan: a capability or scenario id to skip (repeatable)")
	fl.StringArrayVar(&f.Assume, "assume", nil, "for a plan: CAPABILITY=present|absent, trusted without probing (repeatable)")
	fl.IntVar(&f.Reruns, "reruns", 1, "for a plan: re-run a failed scenario this many times (same seed; a real-time run from its recorded schedule) to tell FAIL-reproducible from FAIL-nondeterministic")
	registerNodes(fl, &f.Nodes)
	registerLocal(fl, &f.Nodes)
	registerTierCompletion(cmd)
	return cmd
}

// runPath runs a plan or a script through package session and prints
// its result: the table and verdicts, or with -o json results.json alone.
func runPath(cmd *cobra.Command, f runFlags, path string) error {
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return runPathWith(ctx, cmd, f, path, nil)
}

// runPathWith is runPath under ctx; capture, when set, gets the session's
// result (and -o json prints nothing: runMany prints one document).
func runPathWith(ctx context.Context, cmd *cobra.Command, f runFlags, path string, capture func(*session.Result)) error {
	if !f.seedSet {
		f.Seed = session.RandomSeed()
	}
	stderr := cmd.ErrOrStderr()
	if !f.json {
		fmt.Fprintf(stderr, "faultline: seed %d (reproduce with --seed %d)\n", f.Seed, f.Seed)
	}

	o := f.Options
	o.Path, o.Progress = path, stderr
	o.Status = !f.json && isTerminal(stderr)
	if f.json {
		o.ScriptPrint = io.Discard
	}
	if !f.yes && !f.json && isTerminal(os.Stdin) && isTerminal(stderr) {
		o.Ask = os.Stdin
	}
	res, err := session.Run(ctx, o)
	if err != nil {
		return exitOf(err)
	}
	r := res.Results
	out := cmd.OutOrStdout()
	if capture != nil {
		capture(res)
	}
	switch {
	case f.json && capture != nil:
	case f.json:
		err = printJSON(out, r)
	default:
		err = res.WriteText(out)
	}
	if err != nil {
		return err
	}
	noteDBLeft(stderr, res)
	if r.Kind == report.KindScript && ctx.Err() != nil {
		return &exitError{code: exitUnknown, err: errors.New("interrupted: the session holds what was recorded before Ctrl-C")}
	}
	if r.ExitCode != exitOK {
		return &exitError{code: r.ExitCode}
	}
	return nil
}

// noteDBLeft says, at the end of a run with --leave-db-running, which
// scenarios' systems still run on the nodes and how to tear them down.
func noteDBLeft(w io.Writer, res *session.Result) {
	if len(res.DBLeftRunning) == 0 {
		return
	}
	fmt.Fprintf(w, "faultline: --leave-db-running: the db of %s is still running on the nodes; tear it down with: faultline heal --session %s %s\n",
		strings.Join(res.DBLeftRunning, ", "), res.Results.SessionDir, "(and the same --nodes or --nodes-file)")
}

// runMany is run --test-count N: N independent runs of the whole test,
// each with its own seed (--seed S gives S, S+1, ...; else each is
// random), each its own session, then one table of all of them. The exit
// code is the worst run's, as session.WorstExitCode ranks them.
func runMany(cmd *cobra.Command, f runFlags, path string) error {
	stderr := cmd.ErrOrStderr()
	type runRow struct {
		Run      int    `json:"run"`
		Seed     uint64 `json:"seed,string"`
		Result   string `json:"result"`
		ExitCode int    `json:"exit_code"`
		Session  string `json:"session_dir"`
	}
	var rows []runRow
	var all []report.Results
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	base := f.Seed
	for i := 0; i < f.testCount; i++ {
		if ctx.Err() != nil {
			break
		}
		g := f
		g.testCount = 1
		if f.seedSet {
			g.Seed = base + uint64(i)
		}
		if !f.json {
			fmt.Fprintf(stderr, "faultline: test %d of %d\n", i+1, f.testCount)
		}
		// One run, printed as a run prints, its exit code kept: a run
		// that cannot start (bad input) stops them all.
		var captured *session.Result
		err := runPathWith(ctx, cmd, g, path, func(r *session.Result) { captured = r })
		code := exitOK
		var ee *exitError
		switch {
		case err == nil:
		case errors.As(err, &ee) && captured != nil:
			code = ee.code
		default:
			return err
		}
		rows = append(rows, runRow{Run: i + 1, Seed: captured.Results.Seed, Result: session.Overall(code), ExitCode: code, Session: captured.Results.SessionDir})
		all = append(all, captured.Results)
	}
	codes := make([]int, len(rows))
	for i, r := range rows {
		codes[i] = r.ExitCode
	}
	worst := session.WorstExitCode(codes)
	out := cmd.OutOrStdout()
	if f.json {
		if err := printJSON(out, map[string]any{"test_count": f.testCount, "runs": rows, "exit_code": worst, "results": all}); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(out, "\n%d runs of %s\n\n| Run | Seed | Result | Exit | Session |\n|---|---|---|---|---|\n", len(rows), path)
		for _, r := range rows {
			fmt.Fprintf(out, "| %d | %d | %s | %d | %s |\n", r.Run, r.Seed, r.Result, r.ExitCode, r.Session)
		}
		fmt.Fprintf(out, "\nOverall: %s (exit %d, the worst run's)\n", session.Overall(worst), worst)
	}
	if len(rows) < f.testCount {
		return &exitError{code: exitUnknown, err: fmt.Errorf("interrupted after %d of %d runs", len(rows), f.testCount)}
	}
	if worst != exitOK {
		return &exitError{code: worst}
	}
	return nil
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
