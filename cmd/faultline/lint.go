package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/faultline/faultline/interp"
	"github.com/faultline/faultline/session"
)

func newLintCmd() *cobra.Command {
	var libs []string
	var tier, nodes, suite string
	cmd := &cobra.Command{
		Use:   "lint PLAN.md|SCENARIO.star",
		Short: "Validate a test plan or a scenario script without running it",
		Long:  help("lint"),
		Example: `  faultline lint examples/plans/demo.md
  faultline lint plan.md --suite ../suite/faultline.star
  faultline lint examples/scenarios/register.star
  faultline lint my.star --lib mylib=./lib --tier release`,
		Args: exactlyOne("lint", "PLAN.md or SCENARIO.star"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if strings.HasSuffix(strings.ToLower(args[0]), ".md") {
				return exitOf(session.LintPlan(cmd.OutOrStdout(), args[0], suite))
			}
			scenarios, err := session.LintScript(cmd.Context(), args[0], session.LintOptions{Tier: tier, Libs: libs, Nodes: nodes, Print: cmd.ErrOrStderr()})
			if err != nil {
				return exitOf(err)
			}
			out := cmd.OutOrStdout()
			for _, s := range scenarios {
				fmt.Fprintf(out, "%s: scenario %s ok\n", s.Pos, s.Name)
			}
			return nil
		},
	}
	cmd.Flags().StringArrayVar(&libs, "lib", nil, "load root: NAME=DIR makes @NAME//file.star loadable (repeatable)")
	cmd.Flags().StringVar(&tier, "tier", "smoke", "tier whose budget must be present: "+strings.Join(interp.Tiers, ", "))
	cmd.Flags().StringVar(&nodes, "nodes", "n1,n2,n3", "node names scripts see (commands to them are only recorded)")
	cmd.Flags().StringVar(&suite, "suite", "", "for a plan: the suite file run would use (default: the plan's Suite: header, else faultline.star beside the plan)")
	registerTierCompletion(cmd)
	return cmd
}
