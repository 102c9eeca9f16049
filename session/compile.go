package session

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

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
func CompilePlan(out io.Writer, path, outDir string, o plans.CompileOptions) error {
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
	for _, c := range cs {
		msg, err := writeCompiled(filepath.Join(outDir, c.File), c.Source)
		if err != nil {
			return fmt.Errorf("compile: %s: %w", c.ID, err)
		}
		fmt.Fprintf(out, "%s: %s\n", c.ID, msg)
	}
	if plans.HasErrors(cds) {
		return rejected(fmt.Errorf("%s: some fields could not be mapped (errors above); extend the plan's wording or add a ```starlark block, then recompile", path))
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
