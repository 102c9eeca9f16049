package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/faultline/faultline/internal/buildinfo"
	"github.com/faultline/faultline/interp"
)

// version is set by the linker (-ldflags "-X main.version=..."); otherwise the
// module version from the build info is used.
var version = ""

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:           "faultline",
		Short:         "Run distributed-system test scenarios and tell the truth about what they found",
		Long:          help("faultline"),
		Version:       buildVersion(),
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetVersionTemplate("faultline {{.Version}}\n")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageErr("%w (see '%s --help')", err, c.CommandPath())
	})
	root.AddCommand(newVersionCmd(), newCheckCmd(), newRunCmd(), newLintCmd(), newClusterCmd(), newHealCmd())
	root.AddCommand(newCompileCmd(), newProbeCmd(), newDemoCmd(), newDemoNodeCmd(), newBinkvNodeCmd(), newAgentCmd(), newReplayCmd(), newReduceCmd())
	root.AddCommand(newExportCmd(), newServeCmd())
	return root
}

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print faultline's version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fmt.Fprintln(cmd.OutOrStdout(), "faultline", buildVersion())
			return nil
		},
	}
}

// buildVersion is the version faultline says it is.
func buildVersion() string { return buildinfo.Version(version) }

// minArgs returns an Args validator that wants at least n arguments and
// reports a usage error otherwise.
func minArgs(n int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) < n {
			return usageErr("%s: missing %s (see '%s --help')", cmd.CommandPath(), what, cmd.CommandPath())
		}
		return nil
	}
}

// outputFormats are the values of -o/--output.
var outputFormats = []string{"text", "json"}

// registerOutput adds -o/--output FORMAT to cmd, keeping --json (the old
// spelling of -o json) working as a hidden alias. The returned
// func, called first in RunE, sets *json from whichever was given.
func registerOutput(cmd *cobra.Command, json *bool) func() error {
	var format string
	fl := cmd.Flags()
	fl.StringVarP(&format, "output", "o", "text", "stdout format: "+strings.Join(outputFormats, " or ")+" (json: one JSON document and nothing else)")
	// Hidden rather than MarkDeprecated: pflag would print the deprecation
	// notice on the command's output, and -o json promises nothing but JSON.
	fl.BoolVar(json, "json", false, "deprecated spelling of -o json")
	_ = fl.MarkHidden("json")
	_ = cmd.RegisterFlagCompletionFunc("output", fixedCompletion(outputFormats))
	return func() error {
		if !slices.Contains(outputFormats, format) {
			return usageErr("%s: -o/--output %q: want %s", cmd.Name(), format, strings.Join(outputFormats, " or "))
		}
		if *json && fl.Changed("output") && format != "json" {
			return usageErr("%s: --json and -o %s contradict each other", cmd.Name(), format)
		}
		*json = *json || format == "json"
		return nil
	}
}

// fixedCompletion completes a flag value from a fixed list.
func fixedCompletion(values []string) cobra.CompletionFunc {
	return func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return values, cobra.ShellCompDirectiveNoFileComp
	}
}

// registerTierCompletion completes --tier from the tiers the engine knows.
func registerTierCompletion(cmd *cobra.Command) {
	_ = cmd.RegisterFlagCompletionFunc("tier", fixedCompletion(interp.Tiers))
}

// registerModelCompletion completes --model from the registered models.
func registerModelCompletion(cmd *cobra.Command) {
	_ = cmd.RegisterFlagCompletionFunc("model", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return allModels(), cobra.ShellCompDirectiveNoFileComp
	})
}

// exactlyOne is the Args check of a command that takes one operand: any
// other count is a usage error (exit 64) that names what it wants.
func exactlyOne(cmd, what string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		if len(args) != 1 {
			return usageErr("%s: want exactly one %s (see 'faultline %s --help')", cmd, what, cmd)
		}
		return nil
	}
}
