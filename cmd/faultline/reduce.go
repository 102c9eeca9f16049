package main

import (
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/faultline/faultline/session"
)

func newReduceCmd() *cobra.Command {
	var (
		f       replayFlags
		maxRuns int
		runs    int
	)
	cmd := &cobra.Command{
		Use:   "reduce SESSION_DIR [--scenario ID]",
		Short: "Shrink a failing run to a smaller schedule that still fails, and its history to the ops that show the anomaly",
		Long:  help("reduce"),
		Example: `  faultline reduce test-sessions/demo-store/20261130T081727Z --scenario S1
  faultline reduce SESSION --scenario S1 --max-runs 20 --runs 3`,
		Args: exactlyOne("reduce", "SESSION_DIR"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return reduceSession(cmd, f, args[0], maxRuns, runs)
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVar(&f.Scenarios, "scenario", nil, "the scenario to reduce (needed when several failed)")
	fl.IntVar(&maxRuns, "max-runs", 8, "replays allowed for the schedule reduction, repeats included")
	fl.IntVar(&runs, "runs", 1, "replays of each candidate; it counts as failing if any fails")
	f.register(fl)
	return cmd
}

func reduceSession(cmd *cobra.Command, f replayFlags, dir string, maxRuns, runs int) error {
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rec, err := session.Reduce(ctx, session.ReduceOptions{ReplayOptions: f.options(cmd, dir), MaxRuns: maxRuns, Runs: runs})
	if err != nil {
		return exitOf(err)
	}
	rec.WriteText(cmd.OutOrStdout())
	return nil
}
