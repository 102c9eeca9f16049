package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/faultline/faultline/control"
	"github.com/faultline/faultline/interp"
	"github.com/faultline/faultline/plans"
)

func newLintCmd() *cobra.Command {
	var libs []string
	var tier, nodes, suite string
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

A plan also needs its suite file (nodes, db, client): --suite, else the
file the plan's **Suite:** header names (relative to the plan), else
faultline.star beside the plan. Lint rejects a plan whose suite is missing,
exactly as run would block it.

Exit codes: 0 ok (warnings included), 3 the plan or script is rejected (the
message names file:line), 64 usage error.`,
		Example: `  faultline lint examples/plans/demo.md
  faultline lint plan.md --suite ../suite/faultline.star
  faultline lint examples/scenarios/register.star
  faultline lint my.star --lib mylib=./lib --tier release`,
		Args: exactlyOne("lint", "PLAN.md or SCENARIO.star"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if strings.HasSuffix(strings.ToLower(args[0]), ".md") {
				return lintPlan(cmd.OutOrStdout(), args[0], suite)
			}
			if !interp.ValidTier(tier) {
				return usageErr("lint: --tier %q: want one of %s", tier, strings.Join(interp.Tiers, ", "))
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
	cmd.Flags().StringVar(&tier, "tier", "smoke", "tier whose budget must be present: "+strings.Join(interp.Tiers, ", "))
	cmd.Flags().StringVar(&nodes, "nodes", "n1,n2,n3", "node names scripts see (commands to them are only recorded)")
	cmd.Flags().StringVar(&suite, "suite", "", "for a plan: the suite file run would use (default: the plan's Suite: header, else faultline.star beside the plan)")
	registerTierCompletion(cmd)
	return cmd
}

// lintPlan prints every diagnostic of the plan at path; errors halt (exit
// 3), and so does a suite run could not find (suite is --suite).
func lintPlan(out io.Writer, path, suite string) error {
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
	file, err := planSuite(suite, path, p)
	if err != nil {
		return &exitError{code: exitRejected, err: fmt.Errorf("%s: run would be BLOCKED: %w", path, err)}
	}
	fmt.Fprintf(out, "%s: %d scenarios, %d warnings, suite %s; ok to run\n", path, len(p.Scenarios), len(ds), file)
	return nil
}

// headerSuite is the plan header field naming the plan's suite file.
const headerSuite = "Suite"

// planSuite finds the suite file a plan runs with, as run and lint both
// resolve it: --suite (flag); else the file the plan's **Suite:** header
// names, relative to the plan; else faultline.star beside the plan. The
// header is skipped when its file is missing but one sits beside the plan
// (a plan copied next to its suite, as faultline demo does). It fails, saying
// what it tried, when the file is not there.
func planSuite(flag, planPath string, p *plans.Plan) (string, error) {
	exists := func(f string) bool {
		st, err := os.Stat(f)
		return err == nil && !st.IsDir()
	}
	if flag != "" {
		if !exists(flag) {
			return "", fmt.Errorf("--suite %s: no such file", flag)
		}
		return flag, nil
	}
	dir := filepath.Dir(planPath)
	beside := filepath.Join(dir, "faultline.star")
	var named string
	if p != nil {
		if v := strings.Trim(strings.TrimSpace(p.HeaderValue(headerSuite)), "`"); v != "" {
			named = v
			if !filepath.IsAbs(named) {
				named = filepath.Join(dir, named)
			}
		}
	}
	switch {
	case named != "" && exists(named):
		return named, nil
	case exists(beside):
		return beside, nil
	case named != "":
		return "", fmt.Errorf("no suite file: the plan's Suite: header names %s, which does not exist, and there is no %s; fix the header or pass --suite FILE", named, beside)
	}
	return "", fmt.Errorf("no suite file: %s does not exist; pass --suite FILE (the suite defines nodes, db and client) or name it in the plan header as **Suite:** PATH", beside)
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
