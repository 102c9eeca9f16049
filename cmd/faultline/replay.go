package main

import (
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/faultline/faultline/session"
)

// replayFlags are the flags replay and reduce share.
type replayFlags struct {
	session.ReplayOptions
	out string // --out, used only when given
}

func newReplayCmd() *cobra.Command {
	var f replayFlags
	cmd := &cobra.Command{
		Use:   "replay SESSION_DIR [--scenario ID] [--nodes ...|--local]",
		Short: "Run a recorded schedule again and say whether its anomaly reproduced",
		Long:  help("replay"),
		Example: `  faultline replay test-sessions/demo-store/20261130T081727Z
  faultline replay SESSION --scenario S1 --nodes-file /var/lib/faultline/cluster/nodes --ssh-key ...`,
		Args: exactlyOne("replay", "SESSION_DIR"),
		RunE: func(cmd *cobra.Command, args []string) error { return replaySession(cmd, f, args[0]) },
	}
	fl := cmd.Flags()
	fl.StringArrayVar(&f.Scenarios, "scenario", nil, "replay only this scenario (repeatable)")
	fl.BoolVar(&f.AsFastAsPossible, "as-fast-as-possible", false, "ignore recorded times; keep each thread's order")
	f.register(fl)
	return cmd
}

// register adds the flags replay and reduce share: where sessions go, load
// roots, the checker's bound, and the nodes to run on.
func (f *replayFlags) register(fl *pflag.FlagSet) {
	fl.StringVar(&f.out, "out", "test-sessions", "session root directory")
	fl.StringArrayVar(&f.Libs, "lib", nil, "load root NAME=DIR to use instead of the session's copy of the run's library (warns when it changed; repeatable)")
	fl.DurationVar(&f.CheckTimeout, "check-timeout", 2*time.Minute, "bound on each checker's search")
	registerNodes(fl, &f.Nodes)
	registerLocal(fl, &f.Nodes)
}

// options are the replay's options: the new session goes beside the
// original unless --out was given.
func (f replayFlags) options(cmd *cobra.Command, session string) session.ReplayOptions {
	o := f.ReplayOptions
	o.Session, o.Progress = session, cmd.ErrOrStderr()
	if cmd.Flags().Changed("out") {
		o.Out = f.out
	}
	return o
}

func replaySession(cmd *cobra.Command, f replayFlags, dir string) error {
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	res, err := session.Replay(ctx, f.options(cmd, dir))
	if err != nil {
		return exitOf(err)
	}
	res.WriteText(cmd.OutOrStdout())
	if res.ExitCode != exitOK {
		return &exitError{code: res.ExitCode}
	}
	return nil
}
