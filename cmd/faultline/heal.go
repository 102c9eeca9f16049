package main

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/faultline/faultline/interp"
	"github.com/faultline/faultline/nemesis"
)

func newHealCmd() *cobra.Command {
	var nodes nodeFlags
	var session string
	var libFlags []string
	cmd := &cobra.Command{
		Use:   "heal --nodes ... | --nodes-file FILE [--session DIR]",
		Short: "Remove every fault faultline may have left on the nodes (after a crash)",
		Long: `heal removes from every node whatever faultline's nemesis may have left
there, without needing anything from the run that left it: faultline's
iptables chains and their jump, its marked tbf qdiscs, processes it paused
(resumed) and fill files (deleted), as recorded on the node. It is safe to
run at any time and any number of times; a run heals on its own way out, so
this is for a controller that was killed mid-fault.

Without --session the system under test is left as it is: a db the killed
run set up still runs, with that run's data (the next run tears it down
before its own setup anyway). With --session DIR, the session directory of
the killed run, heal then also tears down what the session's runs set up:
it loads each recorded script and scenario (artifacts/*/schedule.jsonl),
saves the db logs of a run that had not saved them into its artifacts, and
runs the scenario's db teardown on every node. Pass the run's --lib roots
again if it had any.`,
		Example: `  faultline heal --nodes-file /var/lib/faultline/cluster/nodes \
      --ssh-key /var/lib/faultline/cluster/id_ed25519 --known-hosts /var/lib/faultline/cluster/known_hosts
  faultline heal --session test-sessions/demo-store/20261130T081727Z --nodes-file /var/lib/faultline/cluster/nodes ...`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			pool, err := nodes.sshPool()
			if err != nil {
				return err
			}
			if pool == nil {
				return usageErr("heal: no nodes: pass --nodes or --nodes-file")
			}
			libs, lerr := interp.ParseLibs(libFlags)
			if lerr != nil {
				return usageErr("heal: %w", lerr)
			}
			defer pool.Close()
			rep, err := nemesis.HealAll(cmd.Context(), pool)
			out := cmd.OutOrStdout()
			printHealReport(out, rep, err)
			// The db goes after the faults, so its teardown is not cut off
			// by a partition the killed run left.
			if session == "" {
				fmt.Fprintln(out, "db: left as it is (heal --session DIR tears down what that session's runs set up)")
			} else if dberr := healSessionDBs(cmd.Context(), pool, session, libs, out, cmd.ErrOrStderr()); dberr != nil {
				err = errors.Join(err, dberr)
			}
			if err != nil {
				return &exitError{code: exitFail, err: fmt.Errorf("heal: %w", err)}
			}
			return nil
		},
	}
	nodes.register(cmd.Flags())
	cmd.Flags().StringVar(&session, "session", "", "session directory of the killed run: also tear down the db its scenarios set up")
	cmd.Flags().StringArrayVar(&libFlags, "lib", nil, "load root: NAME=DIR, as given to the run (with --session; repeatable)")
	return cmd
}

// printHealReport writes one line per node: what heal removed, or that the
// node was not healed and why. A node heal could not reach (or that still
// shows faultline rules) is never reported as having nothing to remove; the
// command then exits non-zero.
func printHealReport(out io.Writer, rep nemesis.HealReport, err error) {
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
