package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/faultline/faultline/control"
	"github.com/faultline/faultline/plans"
	"github.com/faultline/faultline/probe"
	"github.com/faultline/faultline/session"
)

func newProbeCmd() *cobra.Command {
	var assume, skip, libs []string
	var local bool
	var suite string
	var nodes session.Nodes
	cmd := &cobra.Command{
		Use:   "probe PLAN.md",
		Short: "Show the environment capability matrix a plan needs (installs nothing)",
		Long:  help("probe"),
		Example: `  faultline probe examples/plans/demo.md --local
  faultline probe plan.md --assume iptables=present --skip tc-netem
  faultline probe plan.md --nodes-file cluster/nodes   # clock faults and netem judged on the nodes`,
		Args: exactlyOne("probe", "PLAN.md"),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, ds, err := plans.Load(args[0])
			if err != nil {
				return &exitError{code: exitRejected, err: err}
			}
			if plans.HasErrors(ds) {
				for _, d := range ds {
					fmt.Fprintln(cmd.ErrOrStderr(), d.String())
				}
				return &exitError{code: exitRejected, err: fmt.Errorf("%s: the plan does not lint", args[0])}
			}
			if len(libs) > 0 {
				if err := session.ProbeLoads(cmd.Context(), cmd.OutOrStdout(), args[0], suite, libs); err != nil {
					return exitOf(err)
				}
			}
			src, _ := os.ReadFile(args[0])
			compiled, _ := plans.Compile(p, plans.CompileOptions{Source: src})
			opts, err := probe.ParseOptions(assume, skip)
			if err != nil {
				return usageErr("%w", err)
			}
			// The nodes, when named, decide clock faults and netem: their
			// kernels, not the host's.
			var pool *control.Pool
			if !local {
				if pool, err = nodes.SSHPool(); err != nil {
					return exitOf(err)
				}
				if pool != nil {
					defer pool.Close()
				}
			}
			opts.Cluster = probe.ReadCluster(cmd.Context(), pool, local)
			m := probe.Check(cmd.Context(), probe.Requirements(p, probe.Uses(compiled, local)), opts)
			fmt.Fprint(cmd.OutOrStdout(), m.Markdown())
			for _, c := range compiled {
				if r := m.Reason(c.ID); r != "" {
					fmt.Fprintf(cmd.OutOrStdout(), "%s would be INCONCLUSIVE-env: %s\n", c.ID, r)
				}
			}
			for _, c := range compiled {
				if m.Reason(c.ID) != "" {
					return &exitError{code: exitUnknown}
				}
			}
			return nil
		},
	}
	cmd.Flags().StringArrayVar(&assume, "assume", nil, "CAPABILITY=present|absent: trust the operator, do not probe (repeatable)")
	cmd.Flags().BoolVar(&local, "local", false, "the plan will run with --local: network faults go through faultline's proxy mesh and need no host capability")
	cmd.Flags().StringArrayVar(&skip, "skip", nil, "a capability or scenario id to skip (repeatable)")
	cmd.Flags().StringArrayVar(&libs, "lib", nil, "load root NAME=DIR the suite loads from: the plan's scenarios are loaded with it, as run would (repeatable)")
	registerNodes(cmd.Flags(), &nodes)
	cmd.Flags().StringVar(&suite, "suite", "", "with --lib: the suite file run would use (default: the plan's Suite: header, else faultline.star beside the plan)")
	return cmd
}
