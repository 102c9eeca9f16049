package main

import (
	"github.com/spf13/cobra"

	"github.com/faultline/faultline/plans"
	"github.com/faultline/faultline/session"
	"github.com/faultline/faultline/verdict"
)

func newCompileCmd() *cobra.Command {
	var outDir, suite, tier string
	var libs []string
	cmd := &cobra.Command{
		Use:   "compile PLAN.md [--out DIR] [--suite PATH]",
		Short: "Turn a test plan's scenarios into Starlark scenario files",
		Long:  help("compile"),
		Example: `  faultline compile examples/plans/demo.md --out /tmp/demo --suite examples/demo/faultline.star
  faultline compile plan.md --tier smoke
  faultline compile plan.md --out harness --suite suite/faultline.star --lib mylib=./lib`,
		Args: exactlyOne("compile", "PLAN.md"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o := plans.CompileOptions{Tier: verdict.Tier(tier)}
			if tier != "" && tier != string(verdict.TierSmoke) && tier != string(verdict.TierHardening) && tier != string(verdict.TierRelease) {
				return usageErr("compile: --tier %q: want smoke, hardening or release", tier)
			}
			if suite != "" {
				rel, err := session.SuiteLoadPath(outDir, suite)
				if err != nil {
					return usageErr("compile: --suite: %w", err)
				}
				o.Suite = rel
			}
			return exitOf(session.CompilePlan(cmd.Context(), cmd.OutOrStdout(), args[0], outDir, o, libs))
		},
	}
	cmd.Flags().StringVarP(&outDir, "out", "o", ".", "directory the scenario files are written to")
	// -o means an output format elsewhere (run, check; kubectl, etcdctl).
	_ = cmd.Flags().MarkShorthandDeprecated("out", "use --out DIR")
	cmd.Flags().StringVar(&suite, "suite", "", "suite file defining nodes, db and client (default faultline.star beside the output)")
	cmd.Flags().StringVar(&tier, "tier", "", "emit only this tier's budget (smoke, hardening, release); default every declared tier")
	cmd.Flags().StringArrayVar(&libs, "lib", nil, "load root NAME=DIR the suite loads from; each file written is then loaded to check (repeatable)")
	registerTierCompletion(cmd)
	return cmd
}
