package main

import (
	"bytes"
	"fmt"
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
		Long: `demo starts a 3-node cluster of faultline's demo store (a replicated
key-value store on hashicorp/raft, built into faultline) as local processes,
runs examples/plans/demo.md against it at the smoke tier (register workload,
a partition through faultline's proxy mesh, a leader kill and a pause,
linearizability checked per key), prints the verdicts, the report and the
command that replays the run, and stops every process it started. The load
runs 12 s; on a terminal a status line shows the phase, the fault in effect
and on which nodes, the clock and the op counts meanwhile.

--bug runs the same plan against a build with a real bug; faultline must
find it (FAIL, with the anomaly explained). Bugs:
  ` + strings.Join(demostore.Bugs, "\n  ") + `

Exit codes: 0 DONE (PASS with evidence), 1 FAIL (the anomaly was found),
2 INCONCLUSIVE or DONE_WITH_CONCERNS (a fault not proven, an oracle too weak,
interrupted), 3 BLOCKED (nothing could run), 64 usage error.`,
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
			f.tier, f.yes, f.nodes.local = "smoke", true, true
			names := make([]string, nodes)
			for i := range names {
				names[i] = "n" + strconv.Itoa(i+1)
			}
			f.nodes.nodes = strings.Join(names, ",")
			plan, err := writeDemoInputs(f.out, bug)
			if err != nil {
				return err
			}
			f.suite = filepath.Join(filepath.Dir(plan), "faultline.star")
			return runScript(cmd, f, plan)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&bug, "bug", "", "run the demo store with this bug switched on")
	fl.IntVar(&nodes, "nodes", 3, "cluster size: 3 or 5")
	fl.IntVar(&f.reruns, "reruns", 1, "re-run a failed scenario this many times from its recorded schedule")
	fl.Uint64Var(&f.seed, "seed", 0, "root seed (default: random, printed at start)")
	fl.StringVar(&f.out, "out", "test-sessions", "session root directory")
	fl.StringVar(&f.junit, "junit", "", "also write the verdicts as JUnit XML to FILE")
	fl.DurationVar(&f.checkTimeout, "check-timeout", 2*time.Minute, "bound on each checker's search")
	return cmd
}

// writeDemoInputs writes the embedded plan and its suite (with the bug
// switched on, if any) under out/demo-inputs/, so the session names a plan
// a person can open and run again with 'faultline run'.
func writeDemoInputs(out, bug string) (string, error) {
	name := "correct"
	if bug != "" {
		name = bug
	}
	dir := filepath.Join(out, "demo-inputs", name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("demo: %w", err)
	}
	suite := bytes.Replace(examples.DemoSuite, []byte(`demo_store(bug = "")`), []byte(`demo_store(bug = `+strconv.Quote(bug)+`)`), 1)
	plan := filepath.Join(dir, "demo.md")
	if err := os.WriteFile(plan, examples.DemoPlan, 0o644); err != nil {
		return "", fmt.Errorf("demo: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "faultline.star"), suite, 0o644); err != nil {
		return "", fmt.Errorf("demo: %w", err)
	}
	return plan, nil
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
