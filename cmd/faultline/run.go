package main

import (
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
	json    bool
	yes     bool // ask no questions: verify capabilities by probing only
	seedSet bool
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
  faultline run my.star --scenario fast_path --tier hardening --lib mylib=./lib`,
		Args: exactlyOne("run", "PLAN.md or SCENARIO.star"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := output(); err != nil {
				return err
			}
			f.seedSet = cmd.Flags().Changed("seed")
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
	if !f.seedSet {
		f.Seed = session.RandomSeed()
	}
	stderr := cmd.ErrOrStderr()
	if !f.json {
		fmt.Fprintf(stderr, "faultline: seed %d (reproduce with --seed %d)\n", f.Seed, f.Seed)
	}
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()

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
	if f.json {
		err = printJSON(out, r)
	} else {
		err = res.WriteText(out)
	}
	if err != nil {
		return err
	}
	if r.Kind == report.KindScript && ctx.Err() != nil {
		return &exitError{code: exitUnknown, err: errors.New("interrupted: the session holds what was recorded before Ctrl-C")}
	}
	if r.ExitCode != exitOK {
		return &exitError{code: r.ExitCode}
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
