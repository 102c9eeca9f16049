package main

import (
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/faultline/faultline/agent/nfdelay"
	"github.com/faultline/faultline/examples"
	"github.com/faultline/faultline/examples/binkv"
	"github.com/faultline/faultline/examples/demostore"
)

func newDemoCmd() *cobra.Command {
	var (
		f     runFlags
		bug   string
		nodes int
	)
	cmd := &cobra.Command{
		Use:   "demo [--bug NAME]",
		Short: "Run the example plan against the demo store on this machine (no root, no setup)",
		Long:  strings.ReplaceAll(help("demo"), "{{bugs}}", strings.Join(demostore.Bugs, "\n  ")),
		Example: `  faultline demo
  faultline demo --bug stale-reads`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if bug != "" && !slices.ContainsFunc(demostore.Bugs, func(b string) bool { return strings.HasPrefix(b, bug+":") }) {
				return usageErr("demo: --bug %q: want one of the bugs listed in 'faultline demo --help'", bug)
			}
			if nodes != 3 && nodes != 5 {
				return usageErr("demo: --nodes %d: want 3 or 5", nodes)
			}
			f.seedSet = cmd.Flags().Changed("seed")
			f.Tier, f.yes, f.Nodes.Local = "smoke", true, true
			names := make([]string, nodes)
			for i := range names {
				names[i] = "n" + strconv.Itoa(i+1)
			}
			f.Nodes.List = strings.Join(names, ",")
			plan, err := examples.WriteDemoInputs(f.Out, bug)
			if err != nil {
				return err
			}
			f.Suite = filepath.Join(filepath.Dir(plan), "faultline.star")
			return runPath(cmd, f, plan)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&bug, "bug", "", "run the demo store with this bug switched on")
	fl.IntVar(&nodes, "nodes", 3, "cluster size: 3 or 5")
	fl.IntVar(&f.Reruns, "reruns", 1, "re-run a failed scenario this many times from its recorded schedule")
	fl.Uint64Var(&f.Seed, "seed", 0, "root seed (default: random, printed at start)")
	fl.StringVar(&f.Out, "out", "test-sessions", "session root directory")
	fl.StringVar(&f.JUnit, "junit", "", "also write the verdicts as JUnit XML to FILE")
	fl.DurationVar(&f.CheckTimeout, "check-timeout", 2*time.Minute, "bound on each checker's search")
	return cmd
}

func newDemoNodeCmd() *cobra.Command {
	return &cobra.Command{
		Use:                "demo-node",
		Short:              "Run one node of the demo store (started by the demo's db recipe)",
		Hidden:             true,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return demostore.Main(ctx, args, cmd.ErrOrStderr())
		},
	}
}

// newBinkvNodeCmd runs one node of examples/binkv, the binary-protocol
// example store, so its db recipe can start it with node.faultline() as the
// demo store's does.
func newBinkvNodeCmd() *cobra.Command {
	return &cobra.Command{
		Use:                "binkv-node",
		Short:              "Run one node of the binkv example store (started by examples/binkv's db recipe)",
		Hidden:             true,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return binkv.Main(ctx, args, cmd.ErrOrStderr())
		},
	}
}

func newAgentCmd() *cobra.Command {
	agent := &cobra.Command{
		Use:    "agent",
		Short:  "Helpers faultline runs on nodes (started by the nemesis)",
		Hidden: true,
	}
	agent.AddCommand(&cobra.Command{
		Use:                "nfdelay -q N -delay D [-jitter J] [-stats FILE] [-seed N]",
		Short:              "Delay packets of an NFQUEUE queue (delay faults where the kernel has no netem)",
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return nfdelay.Main(ctx, args, cmd.ErrOrStderr())
		},
	})
	return agent
}
