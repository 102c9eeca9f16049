package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/faultline/faultline/session"
)

func newHealCmd() *cobra.Command {
	var nodes session.Nodes
	var sessionDir string
	var libFlags []string
	cmd := &cobra.Command{
		Use:   "heal --nodes ... | --nodes-file FILE [--session DIR]",
		Short: "Remove every fault faultline may have left on the nodes (after a crash)",
		Long:  help("heal"),
		Example: `  faultline heal --nodes-file /var/lib/faultline/cluster/nodes \
      --ssh-key /var/lib/faultline/cluster/id_ed25519 --known-hosts /var/lib/faultline/cluster/known_hosts
  faultline heal --session test-sessions/demo-store/20261130T081727Z --nodes-file /var/lib/faultline/cluster/nodes ...`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			pool, err := nodes.SSHPool()
			if err != nil {
				return exitOf(err)
			}
			if pool == nil {
				return usageErr("heal: no nodes: pass --nodes or --nodes-file")
			}
			defer pool.Close()
			err = session.Heal(cmd.Context(), pool, session.HealOptions{Session: sessionDir, Libs: libFlags,
				Report: cmd.OutOrStdout(), Progress: cmd.ErrOrStderr()})
			var se *session.Error
			if errors.As(err, &se) {
				return exitOf(err)
			}
			if err != nil {
				return &exitError{code: exitFail, err: fmt.Errorf("heal: %w", err)}
			}
			return nil
		},
	}
	registerNodes(cmd.Flags(), &nodes)
	cmd.Flags().StringVar(&sessionDir, "session", "", "session directory of the killed run: also tear down the db its scenarios set up")
	cmd.Flags().StringArrayVar(&libFlags, "lib", nil, "with --session: load root NAME=DIR to use instead of the session's copy of the run's library (repeatable)")
	return cmd
}
