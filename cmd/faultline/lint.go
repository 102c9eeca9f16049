package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/faultline/faultline/interp"
)

func newLintCmd() *cobra.Command {
	var libs []string
	var tier string
	cmd := &cobra.Command{
		Use:   "lint SCENARIO.star",
		Short: "Validate a scenario script without running it",
		Long: `Load a script, resolve its load() statements, and validate every scenario
declaration (client, workload, checker, budgets, concurrency) without starting
any client or touching any node. Problems are reported as file:line:col with
the Starlark backtrace; exit 3 when the script is rejected.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageErr("lint: want exactly one SCENARIO.star")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if strings.HasSuffix(strings.ToLower(args[0]), ".md") {
				return &exitError{code: exitRejected, err: fmt.Errorf("%s: plan files are not supported yet; lint a Starlark scenario (.star)", args[0])}
			}
			roots, err := interp.ParseLibs(libs)
			if err != nil {
				return usageErr("lint: %w", err)
			}
			script, err := interp.Load(cmd.Context(), args[0], interp.LoadOptions{Libs: roots, Print: io.Discard})
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
	return cmd
}
