package session

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/faultline/faultline/control"
	"github.com/faultline/faultline/interp"
	"github.com/faultline/faultline/plans"
)

// LintPlan writes every diagnostic of the plan at path to w, then that it
// is ok to run; errors halt (a Rejected Error), and so does a suite run
// could not find (suite is --suite, resolved as PlanSuite does).
func LintPlan(out io.Writer, path, suite string) error {
	p, ds, err := plans.Load(path)
	if err != nil {
		return rejected(err)
	}
	for _, d := range ds {
		fmt.Fprintln(out, d.String())
	}
	if plans.HasErrors(ds) {
		return rejected(fmt.Errorf("%s: the plan cannot run as written (halt rule); fix the errors above", path))
	}
	file, err := PlanSuite(suite, path, p)
	if err != nil {
		return rejected(fmt.Errorf("%s: run would be BLOCKED: %w", path, err))
	}
	fmt.Fprintf(out, "%s: %d scenarios, %d warnings, suite %s; ok to run\n", path, len(p.Scenarios), len(ds), file)
	return nil
}

// LintOptions say how to load a script for LintScript.
type LintOptions struct {
	// Tier is the tier whose budget each scenario must declare; "" is smoke.
	Tier string
	// Libs are load roots, NAME=DIR.
	Libs []string
	// Nodes are the node names the script sees ("" is n1,n2,n3); commands
	// to them are only recorded.
	Nodes string
	// Print gets the script's print() output while it loads (nil:
	// discarded), so a script's own diagnostics show when it is linted.
	Print io.Writer
}

// LintScript loads a script and validates every scenario it declares
// (client, workload, checker, budgets, concurrency) for o.Tier, touching no
// node: node calls at load time are recorded, never sent. A script that
// does not load or validate is a Rejected Error naming file:line.
func LintScript(ctx context.Context, path string, o LintOptions) ([]*interp.Scenario, error) {
	if o.Tier == "" {
		o.Tier = "smoke"
	}
	if o.Nodes == "" {
		o.Nodes = strings.Join(defaultLocalNodes, ",")
	}
	if !interp.ValidTier(o.Tier) {
		return nil, usage("lint: --tier %q: want one of %s", o.Tier, strings.Join(interp.Tiers, ", "))
	}
	roots, err := interp.ParseLibs(o.Libs)
	if err != nil {
		return nil, usage("lint: %w", err)
	}
	pool, err := dryRunPool(o.Nodes)
	if err != nil {
		return nil, err
	}
	print := o.Print
	if print == nil {
		print = io.Discard
	}
	script, err := interp.Load(ctx, path, interp.LoadOptions{Libs: roots, Print: print, Pool: pool})
	if err != nil {
		return nil, ScriptRejected(err)
	}
	var problems []string
	for _, s := range script.Scenarios {
		if err := interp.Validate(s, o.Tier); err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", s.Pos, err))
		}
	}
	if len(problems) > 0 {
		return nil, rejected(fmt.Errorf("%s", strings.Join(problems, "\n")))
	}
	return script.Scenarios, nil
}

// dryRunPool is a pool whose nodes record commands and run nothing.
func dryRunPool(list string) (*control.Pool, error) {
	nodes, err := control.ParseNodes(list)
	if err != nil {
		return nil, usage("lint: %w", err)
	}
	p, err := control.NewPool(nodes, control.DryRunDialer(io.Discard))
	if err != nil {
		return nil, usage("lint: %w", err)
	}
	return p, nil
}
