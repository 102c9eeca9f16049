package session

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/faultline/faultline/interp"
	"github.com/faultline/faultline/plans"
)

// SuiteLoadPath makes the suite path relative to the output directory, since
// a load() path is resolved from the file that loads it.
func SuiteLoadPath(outDir, suite string) (string, error) {
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

// CompilePlan lints the plan at path as LintPlan does, compiles it with o,
// writes one scenario file per unit into outDir (never over a hand-written
// one: see writeCompiled) and reports on out what it wrote and every
// diagnostic. A plan that does not lint, or a field that could not be
// mapped, is a Rejected Error (the files are written first).
//
// With load roots libs (--lib NAME=DIR) each file written is then loaded
// as run loads it (see CheckLoads), so a suite whose load("@NAME//...")
// does not resolve, or leaves its root, is found at compile time.
func CompilePlan(ctx context.Context, out io.Writer, path, outDir string, o plans.CompileOptions, libs []string) error {
	if _, err := interp.ParseLibs(libs); err != nil {
		return usage("compile: %w", err)
	}
	p, ds, err := plans.Load(path)
	if err != nil {
		return rejected(err)
	}
	for _, d := range ds {
		fmt.Fprintln(out, d.String())
	}
	if plans.HasErrors(ds) {
		return rejected(fmt.Errorf("%s: the plan cannot run as written (halt rule); fix the errors above before compiling", path))
	}
	if o.Source, err = os.ReadFile(path); err != nil {
		return rejected(fmt.Errorf("compile: read plan: %w", err))
	}
	cs, cds := plans.Compile(p, o)
	for _, d := range cds {
		fmt.Fprintln(out, d.String())
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return fmt.Errorf("compile: %w", err)
	}
	var written []string
	for _, c := range cs {
		file := filepath.Join(outDir, c.File)
		msg, err := writeCompiled(file, c.Source)
		if err != nil {
			return fmt.Errorf("compile: %s: %w", c.ID, err)
		}
		if strings.HasPrefix(msg, "kept ") {
			file += ".new"
		}
		written = append(written, file)
		fmt.Fprintf(out, "%s: %s\n", c.ID, msg)
	}
	if plans.HasErrors(cds) {
		return rejected(fmt.Errorf("%s: some fields could not be mapped (errors above); extend the plan's wording or add a ```starlark block, then recompile", path))
	}
	if len(libs) > 0 {
		if err := CheckLoads(ctx, out, written, libs); err != nil {
			return err
		}
	}
	fmt.Fprintf(out, "%s: compiled %d scenario files into %s\n", path, len(cs), outDir)
	return nil
}

// CheckLoads loads each scenario file in files with the load roots libs
// (NAME=DIR) as run loads it, touching no node (node calls at load time
// are only recorded), and says on out that it loads. The first that does
// not is a Rejected Error naming the file and line of the failing load.
func CheckLoads(ctx context.Context, out io.Writer, files, libs []string) error {
	for _, f := range files {
		scenarios, err := LintScript(ctx, f, LintOptions{Libs: libs})
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "%s: loads with the --lib roots (%d scenarios)\n", f, len(scenarios))
	}
	return nil
}

// ProbeLoads compiles the plan at path with its suite (suite is --suite,
// resolved as PlanSuite does) into a temporary directory and loads each
// scenario file with the load roots libs (CheckLoads): what probe --lib
// checks, so a library a run would fail to load is found before the run.
func ProbeLoads(ctx context.Context, out io.Writer, path, suite string, libs []string) error {
	if _, err := interp.ParseLibs(libs); err != nil {
		return usage("probe: %w", err)
	}
	p, ds, err := plans.Load(path)
	if err != nil {
		return rejected(err)
	}
	if plans.HasErrors(ds) {
		return rejected(fmt.Errorf("%s: the plan does not lint", path))
	}
	file, err := PlanSuite(suite, path, p)
	if err != nil {
		return rejected(fmt.Errorf("%s: run would be BLOCKED: %w", path, err))
	}
	harness, err := os.MkdirTemp("", "faultline-probe-")
	if err != nil {
		return fmt.Errorf("probe: %w", err)
	}
	defer os.RemoveAll(harness)
	rel, err := suitePath(file, path, harness)
	if err != nil {
		return usage("probe: %w", err)
	}
	src, err := os.ReadFile(path)
	if err != nil {
		return rejected(fmt.Errorf("probe: read plan: %w", err))
	}
	cs, cds := plans.Compile(p, plans.CompileOptions{Suite: rel, Source: src})
	if plans.HasErrors(cds) {
		for _, d := range cds {
			fmt.Fprintln(out, d.String())
		}
		return rejected(fmt.Errorf("%s: some fields could not be mapped (errors above)", path))
	}
	var files []string
	for _, c := range cs {
		f := filepath.Join(harness, c.File)
		if err := os.WriteFile(f, []byte(c.Source), 0o644); err != nil {
			return fmt.Errorf("probe: %w", err)
		}
		files = append(files, f)
	}
	var b strings.Builder
	if err := CheckLoads(ctx, &b, files, libs); err != nil {
		return err
	}
	fmt.Fprintf(out, "%s: %d scenarios load with suite %s and the --lib roots\n", path, len(files), file)
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
