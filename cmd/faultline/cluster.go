package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/faultline/faultline/cluster"
)

func newClusterCmd() *cobra.Command {
	var cfg cluster.Config
	cmd := &cobra.Command{
		Use:   "cluster up|down|status",
		Short: "Create, remove or inspect a local test cluster (network namespaces + sshd; needs root)",
		Long:  help("cluster"),
		Example: `  sudo faultline cluster up --nodes 5
  sudo faultline cluster status
  sudo faultline cluster down`,
	}
	fl := cmd.PersistentFlags()
	fl.IntVar(&cfg.Nodes, "nodes", cluster.DefaultNodes, "number of nodes (n1..nN)")
	fl.StringVar(&cfg.StateDir, "state-dir", cluster.DefaultStateDir, "where keys, configs and node directories live")
	fl.StringVar(&cfg.Subnet, "subnet", cluster.DefaultSubnet, "IPv4 subnet of the cluster bridge")
	fl.StringVar(&cfg.Prefix, "prefix", cluster.DefaultPrefix, "name prefix of namespaces and links")
	cmd.AddCommand(
		&cobra.Command{
			Use:   "up",
			Short: "Create the cluster, or repair it after a crash",
			Args:  cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				st, err := cluster.Up(cmd.Context(), cfg)
				if err != nil {
					return clusterErr(err)
				}
				fmt.Fprintln(cmd.OutOrStdout(), st.Summary())
				return nil
			},
		},
		&cobra.Command{
			Use:   "down",
			Short: "Remove every namespace, link, mount and process the cluster created",
			Args:  cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				if err := cluster.Down(cmd.Context(), cfg); err != nil {
					return clusterErr(err)
				}
				fmt.Fprintln(cmd.OutOrStdout(), "cluster down: nothing of it is left")
				return nil
			},
		},
		&cobra.Command{
			Use:   "status",
			Short: "Show each node: namespace, link, sshd, reachable",
			Args:  cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				rep, err := cluster.Status(cmd.Context(), cfg)
				if err != nil {
					return clusterErr(err)
				}
				if err := rep.Table(cmd.OutOrStdout()); err != nil {
					return err
				}
				fmt.Fprintln(cmd.OutOrStdout(), rep.Summary())
				if !rep.Healthy() {
					return &exitError{code: exitUnknown}
				}
				return nil
			},
		},
	)
	return cmd
}

// clusterErr maps environment problems (not root, missing tools) to exit 3
// with the message that says how to fix them.
func clusterErr(err error) error {
	var missing *cluster.MissingToolsError
	if errors.Is(err, cluster.ErrNotRoot) || errors.As(err, &missing) {
		return &exitError{code: exitRejected, err: err}
	}
	return err
}
