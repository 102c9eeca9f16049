package plans

import (
	"fmt"
	"os"
)

// Load reads, parses and lints the plan at path, returning every diagnostic
// of both passes in file order. The error is only for a file that cannot be
// read; a bad plan is reported through the diagnostics (HasErrors).
func Load(path string) (*Plan, []Diagnostic, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("plans: read plan: %w", err)
	}
	p, ds := Parse(path, src)
	ds = append(ds, lint(p, src)...)
	sortDiagnostics(ds)
	return p, ds, nil
}
