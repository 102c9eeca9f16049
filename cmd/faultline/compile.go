package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/faultline/faultline/plans"
	"github.com/faultline/faultline/verdict"
)

func newCompileCmd() *cobra.Command {
	var outDir, suite, tier string
	cmd := &cobra.Command{
		Use:   "compile PLAN.md [--out DIR] [--suite PATH]",
		Short: "Turn a test plan's scenarios into Starlark scenario files",
		Long: `Compile each scenario of a plan (each arm, for a scenario with arms) into a
readable Starlark file that loads the stdlib and the suite file.

The plan is linted first; a plan the halt rule rejects is not compiled (exit 3).
Workload, faults, oracle, landing evidence and budgets are mapped through the
vocabulary of docs/plan-vocabulary.md; a fenced ` + "```starlark" + ` block in a
scenario overrides one argument ("workload = ...") or the whole scenario. What
cannot be mapped is printed as file:line with the phrase and the vocabulary it
expected; errors (workload, oracle, budgets) exit 3 after the files are written.

How to reach the system under test comes from the suite file (--suite, default
faultline.star next to the generated files), which defines nodes, db and client.

A generated file is overwritten only when it carries the compiler's provenance
header; a hand-edited file without it is kept and <name>.new written beside it.

Exit codes: 0 compiled, 3 the plan does not lint or a field could not be
mapped (the message names file:line), 64 usage error.`,
		Example: `  faultline compile examples/plans/demo.md --out /tmp/demo --suite examples/demo/faultline.star
  faultline compile plan.md --tier smoke`,
		Args: exactlyOne("compile", "PLAN.md"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o := plans.CompileOptions{Tier: verdict.Tier(tier)}
			if tier != "" && tier != string(verdict.TierSmoke) && tier != string(verdict.TierHardening) && tier != string(verdict.TierRelease) {
				return usageErr("compile: --tier %q: want smoke, hardening or release", tier)
			}
			if suite != "" {
				rel, err := suiteLoadPath(outDir, suite)
				if err != nil {
					return usageErr("compile: --suite: %w", err)
				}
				o.Suite = rel
			}
			return compilePlan(cmd.OutOrStdout(), args[0], outDir, o)
		},
	}
	cmd.Flags().StringVarP(&outDir, "out", "o", ".", "directory the scenario files are written to")
	// -o means an output format elsewhere (run, check; kubectl, etcdctl).
	_ = cmd.Flags().MarkShorthandDeprecated("out", "use --out DIR")
	cmd.Flags().StringVar(&suite, "suite", "", "suite file defining nodes, db and client (default faultline.star beside the output)")
	cmd.Flags().StringVar(&tier, "tier", "", "emit only this tier's budget (smoke, hardening, release); default every declared tier")
	registerTierCompletion(cmd)
	return cmd
}

// suiteLoadPath makes the suite path relative to the output directory, since
// a load() path is resolved from the file that loads it.
func suiteLoadPath(outDir, suite string) (string, error) {
	absOut, err := filepath.Abs(outDir)
	if err != nil {
		return "", err
	}
	absSuite, err := filepath.Abs(suite)
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(absOut, absSuite)
	if err != nil {
		return "", err
	}
	return filepath.ToSlash(rel), nil
}

// compilePlan lints the plan like lint does, compiles it, writes the files
// and prints what it wrote and every diagnostic.
func compilePlan(out io.Writer, path, outDir string, o plans.CompileOptions) error {
	p, ds, err := plans.Load(path)
	if err != nil {
		return &exitError{code: exitRejected, err: err}
	}
	for _, d := range ds {
		fmt.Fprintln(out, d.String())
	}
	if plans.HasErrors(ds) {
		return &exitError{code: exitRejected, err: fmt.Errorf("%s: the plan cannot run as written (halt rule); fix the errors above before compiling", path)}
	}
	if o.Source, err = os.ReadFile(path); err != nil {
		return &exitError{code: exitRejected, err: fmt.Errorf("compile: read plan: %w", err)}
	}
	cs, cds := plans.Compile(p, o)
	for _, d := range cds {
		fmt.Fprintln(out, d.String())
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return fmt.Errorf("compile: %w", err)
	}
	for _, c := range cs {
		msg, err := writeCompiled(filepath.Join(outDir, c.File), c.Source)
		if err != nil {
			return fmt.Errorf("compile: %s: %w", c.ID, err)
		}
		fmt.Fprintf(out, "%s: %s\n", c.ID, msg)
	}
	if plans.HasErrors(cds) {
		return &exitError{code: exitRejected, err: fmt.Errorf("%s: some fields could not be mapped (errors above); extend the plan's wording or add a ```starlark block, then recompile", path)}
	}
	fmt.Fprintf(out, "%s: compiled %d scenario files into %s\n", path, len(cs), outDir)
	return nil
}

// writeCompiled writes src to path unless path holds a file without the
// provenance header (a hand-written or hand-claimed script): then it writes
// path+".new" and says so.
func writeCompiled(path, src string) (string, error) {
	generated, err := hasProvenance(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return "", err
	case !generated:
		if err := os.WriteFile(path+".new", []byte(src), 0o644); err != nil {
			return "", err
		}
		return fmt.Sprintf("kept %s (it has no %q header, so it may be hand-written); wrote %s.new", path, plans.ProvenanceMarker, path), nil
	}
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		return "", err
	}
	return "wrote " + path, nil
}

// hasProvenance reports whether the file's first line is the compiler's header.
func hasProvenance(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	first, err := bufio.NewReader(f).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return false, err
	}
	return strings.HasPrefix(first, plans.ProvenanceMarker), nil
}
