package main

import (
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// version is set by the linker (-ldflags "-X main.version=..."); otherwise the
// module version from the build info is used.
var version = ""

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "faultline",
		Short: "Run distributed-system test scenarios and tell the truth about what they found",
		Long: `faultline runs Jepsen-style tests: a workload of client operations, faults
injected on a schedule, a recorded history, and checkers that decide whether
what the system did is allowed (linearizability and more).

Start here:
  faultline run examples/scenarios/register.star     run a scenario, write a session directory
  faultline check --model cas-register history.edn    check a recorded (Jepsen) history
  faultline lint SCENARIO.star                        validate a script without running it

Exit codes of run and check: 0 valid, 1 anomaly found, 2 unknown,
3 input rejected (message names file:line), 64 usage error.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageErr("%w (see '%s --help')", err, c.CommandPath())
	})
	root.AddCommand(newVersionCmd(), newCheckCmd(), newRunCmd(), newLintCmd(), newClusterCmd(), newHealCmd())
	root.AddCommand(newCompileCmd(), newProbeCmd(), newDemoCmd(), newDemoNodeCmd(), newAgentCmd(), newReplayCmd(), newReduceCmd())
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

func buildVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		v := bi.Main.Version
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				v += " (" + s.Value[:12] + ")"
			}
		}
		if v != "" {
			return v
		}
	}
	return "(devel)"
}

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
