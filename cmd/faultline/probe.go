package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/faultline/faultline/plans"
	"github.com/faultline/faultline/probe"
	"github.com/faultline/faultline/report"
)

// capabilityUses says which host capabilities a compiled scenario relies on,
// read from the builtins its Starlark calls. Network faults need nothing of
// the host in local mode: faultline's own proxy mesh carries them.
var capabilityUses = []struct {
	call    string
	caps    []string
	network bool // a network fault: no host capability in local mode
}{
	{"nemesis.partition", []string{"iptables", "root"}, true},
	{"nemesis.loss", []string{"iptables", "root"}, true},
	{"nemesis.bandwidth", []string{"root"}, true},
	{"nemesis.delay", []string{"tc-netem", "root"}, true},
	{"client.postgres", []string{"postgresql"}, false},
	{"etcd", []string{"etcd-server"}, false},
}

// scenarioUses maps each compiled unit to the capabilities it uses.
func scenarioUses(compiled []plans.CompiledScenario, local bool) map[string][]string {
	uses := map[string][]string{}
	for _, c := range compiled {
		for _, u := range capabilityUses {
			if strings.Contains(c.Source, u.call) && !(local && u.network) {
				uses[c.ID] = append(uses[c.ID], u.caps...)
			}
		}
	}
	return uses
}

// probeOptions turns --assume and --skip into probe options.
func probeOptions(assume, skip []string) (probe.Options, error) {
	o := probe.Options{Skip: skip, Assume: map[string]bool{}}
	for _, a := range assume {
		name, v, ok := strings.Cut(a, "=")
		if !ok || (v != "present" && v != "absent") || name == "" {
			return o, usageErr("--assume %q: want CAPABILITY=present or CAPABILITY=absent", a)
		}
		o.Assume[name] = v == "present"
	}
	return o, nil
}

// probeEnvironment discovers the system's own tooling and verifies what the
// plan needs, asking the operator first on a terminal unless --yes. The
// results go into the session log header.
func probeEnvironment(ctx context.Context, p *plans.Plan, compiled []plans.CompiledScenario, f runFlags,
	header *report.Header, stderr io.Writer) (probe.Matrix, error) {
	wd, _ := os.Getwd()
	for _, t := range probe.Discover(wd) {
		line := fmt.Sprintf("`%s` — %s", t.Path, t.Role)
		if t.Target != "" {
			line += " (" + t.Target + ")"
		}
		header.Toolbox = append(header.Toolbox, line)
	}
	if header.Toolbox == nil {
		header.Toolbox = []string{}
	}
	opts, err := probeOptions(f.assume, f.skip)
	if err != nil {
		return probe.Matrix{}, err
	}
	reqs := probe.Requirements(p, scenarioUses(compiled, f.nodes.local))
	if !f.yes && !f.json && isTerminal(os.Stdin) && isTerminal(stderr) {
		said, err := askInterruptibly(ctx, os.Stdin, stderr, reqs)
		if err != nil && ctx.Err() != nil {
			return probe.Matrix{}, &exitError{code: exitUnknown, err: fmt.Errorf("capability questions: %w; nothing was run", err)}
		}
		if err != nil {
			return probe.Matrix{}, usageErr("capability questions: %w", err)
		}
		opts.Said, opts.Skip = said.Said, append(opts.Skip, said.Skip...)
	}
	m := probe.Check(ctx, reqs, opts)
	header.Capabilities = m.Markdown()
	return m, nil
}

// askInterruptibly runs probe.Ask but gives up when ctx ends: run catches
// Ctrl-C into ctx, so a read blocked on the terminal would otherwise keep
// the process waiting for an answer nobody will give.
func askInterruptibly(ctx context.Context, in io.Reader, out io.Writer, reqs []probe.Requirement) (probe.Options, error) {
	type answer struct {
		o   probe.Options
		err error
	}
	done := make(chan answer, 1)
	go func() {
		o, err := probe.Ask(in, out, reqs)
		done <- answer{o, err}
	}()
	select {
	case a := <-done:
		return a.o, a.err
	case <-ctx.Done():
		return probe.Options{}, fmt.Errorf("interrupted before the questions were answered: %w", ctx.Err())
	}
}

func newProbeCmd() *cobra.Command {
	var assume, skip []string
	var local bool
	cmd := &cobra.Command{
		Use:   "probe PLAN.md",
		Short: "Show the environment capability matrix a plan needs (installs nothing)",
		Long: `Verify what the plan's §6b and its compiled scenarios need — tools, root,
kernel features, databases — and print Requirement | Present? | Version |
Source, with the install command for what is missing and trivially installable
(never run) and the scenarios each missing capability would make
INCONCLUSIVE-env.

Exit codes: 0 everything needed is present, 2 something needed is missing
(the scenarios it would make INCONCLUSIVE-env are listed), 3 the plan does
not lint, 64 usage error.`,
		Example: `  faultline probe examples/plans/demo.md --local
  faultline probe plan.md --assume iptables=present --skip tc-netem`,
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
			src, _ := os.ReadFile(args[0])
			compiled, _ := plans.Compile(p, plans.CompileOptions{Source: src})
			opts, err := probeOptions(assume, skip)
			if err != nil {
				return err
			}
			m := probe.Check(cmd.Context(), probe.Requirements(p, scenarioUses(compiled, local)), opts)
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
	return cmd
}
