package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/faultline/faultline/builtins/nemesis"
)

func newHealCmd() *cobra.Command {
	var nodes nodeFlags
	cmd := &cobra.Command{
		Use:   "heal --nodes ... | --nodes-file FILE",
		Short: "Remove every fault faultline may have left on the nodes (after a crash)",
		Long: `heal removes from every node whatever faultline's nemesis may have left
there, without needing anything from the run that left it: faultline's
iptables chains and their jump, its marked tbf qdiscs, processes it paused
(resumed) and fill files (deleted), as recorded on the node. It is safe to
run at any time and any number of times; a run heals on its own way out, so
this is for a controller that was killed mid-fault.`,
		Example: `  faultline heal --nodes-file /var/lib/faultline/cluster/nodes \
      --ssh-key /var/lib/faultline/cluster/id_ed25519 --known-hosts /var/lib/faultline/cluster/known_hosts`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			pool, err := nodes.sshPool()
			if err != nil {
				return err
			}
			if pool == nil {
				return usageErr("heal: no nodes: pass --nodes or --nodes-file")
			}
			defer pool.Close()
			rep, err := nemesis.HealAll(cmd.Context(), pool)
			out := cmd.OutOrStdout()
			names := make([]string, 0, len(rep))
			for n := range rep {
				names = append(names, n)
			}
			slices.Sort(names)
			for _, n := range names {
				what := "nothing to remove"
				if len(rep[n]) > 0 {
					what = "removed " + strings.Join(rep[n], "; ")
				}
				fmt.Fprintf(out, "%s: %s\n", n, what)
			}
			if err != nil {
				return &exitError{code: exitFail, err: fmt.Errorf("heal: %w", err)}
			}
			return nil
		},
	}
	nodes.register(cmd.Flags())
	return cmd
}
