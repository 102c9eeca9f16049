package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/faultline/faultline/builtins/control"
	"github.com/faultline/faultline/interp"
	"github.com/faultline/faultline/plans"
)

func newLintCmd() *cobra.Command {
	var libs []string
	var tier, nodes string
	cmd := &cobra.Command{
		Use:   "lint PLAN.md|SCENARIO.star",
		Short: "Validate a test plan or a scenario script without running it",
		Long: `Validate without touching any node.

A plan (.md) is parsed and checked against the halt rule: a scenario without
an Oracle or Exit criteria, or whose oracle no machine can check ("logs look
fine"), stops the run. Every problem is printed as file:line with the scenario
id and field, and what would fix it; warnings name weaker defects.

A script (.star) is loaded with its load() statements and every scenario
declaration (client, workload, checker, budgets, concurrency) is validated;
problems come as file:line:col with the Starlark backtrace.

Exit 3 when the plan or script is rejected, 0 otherwise (warnings included).`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageErr("lint: want exactly one SCENARIO.star")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if strings.HasSuffix(strings.ToLower(args[0]), ".md") {
				return lintPlan(cmd.OutOrStdout(), args[0])
			}
			roots, err := interp.ParseLibs(libs)
			if err != nil {
				return usageErr("lint: %w", err)
			}
			// Node calls at load time are recorded, never sent: lint touches no node.
			pool, err := dryRunPool(nodes)
			if err != nil {
				return err
			}
			script, err := interp.Load(cmd.Context(), args[0], interp.LoadOptions{Libs: roots, Print: io.Discard, Pool: pool})
			if err != nil {
				return scriptExit(err)
			}
			var problems []string
			for _, s := range script.Scenarios {
				if err := interp.Validate(s, tier); err != nil {
					problems = append(problems, fmt.Sprintf("%s: %v", s.Pos, err))
				}
			}
			if len(problems) > 0 {
				return &exitError{code: exitRejected, err: fmt.Errorf("%s", strings.Join(problems, "\n"))}
			}
			out := cmd.OutOrStdout()
			for _, s := range script.Scenarios {
				fmt.Fprintf(out, "%s: scenario %s ok\n", s.Pos, s.Name)
			}
			return nil
		},
	}
	cmd.Flags().StringArrayVar(&libs, "lib", nil, "load root: NAME=DIR makes @NAME//file.star loadable (repeatable)")
	cmd.Flags().StringVar(&tier, "tier", "smoke", "tier whose budget must be present")
	cmd.Flags().StringVar(&nodes, "nodes", "n1,n2,n3", "node names scripts see (commands to them are only recorded)")
	return cmd
}

// lintPlan prints every diagnostic of the plan at path; errors halt (exit 3).
func lintPlan(out io.Writer, path string) error {
	p, ds, err := plans.Load(path)
	if err != nil {
		return &exitError{code: exitRejected, err: err}
	}
	for _, d := range ds {
		fmt.Fprintln(out, d.String())
	}
	if plans.HasErrors(ds) {
		return &exitError{code: exitRejected, err: fmt.Errorf("%s: the plan cannot run as written (halt rule); fix the errors above", path)}
	}
	fmt.Fprintf(out, "%s: %d scenarios, %d warnings; ok to run\n", path, len(p.Scenarios), len(ds))
	return nil
}

// dryRunPool is a pool whose nodes record commands and run nothing.
func dryRunPool(list string) (*control.Pool, error) {
	nodes, err := control.ParseNodes(list)
	if err != nil {
		return nil, usageErr("lint: %w", err)
	}
	p, err := control.NewPool(nodes, control.DryRunDialer(io.Discard))
	if err != nil {
		return nil, usageErr("lint: %w", err)
	}
	return p, nil
}
