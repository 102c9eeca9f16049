package plans

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Severity says whether a diagnostic stops the run.
type Severity int

// Error diagnostics halt the run (exit 3) before anything touches a node;
// warnings are reported and the run goes on.
const (
	Error Severity = iota
	Warning
)

// String returns "error" or "warning".
func (s Severity) String() string {
	if s == Warning {
		return "warning"
	}
	return "error"
}

// MarshalText writes the severity as its name, for JSON output.
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads "error" or "warning".
func (s *Severity) UnmarshalText(b []byte) error {
	switch string(b) {
	case "error":
		*s = Error
	case "warning":
		*s = Warning
	default:
		return fmt.Errorf("plans: unknown severity %q", b)
	}
	return nil
}

// Diagnostic is one problem in a plan: where it is, which scenario (or arm)
// and field it concerns, what is wrong and what would fix it.
type Diagnostic struct {
	Pos      Pos      `json:"pos"`
	Severity Severity `json:"severity"`
	Rule     string   `json:"rule"`               // the rule that fired; see Rules
	Scenario string   `json:"scenario,omitempty"` // "S3" or "S5/api"
	Field    string   `json:"field,omitempty"`    // canonical field or section name
	Msg      string   `json:"msg"`
	Fix      string   `json:"fix,omitempty"`
}

// String formats the diagnostic as
// "file:line: [S3 Oracle] msg (fix: ...)"; warnings carry "warning: " after the
// position so a reader tells them from the errors that halt the run.
func (d Diagnostic) String() string {
	var b strings.Builder
	b.WriteString(d.Pos.String() + ": ")
	if d.Severity == Warning {
		b.WriteString("warning: ")
	}
	if tag := strings.TrimSpace(d.Scenario + " " + d.Field); tag != "" {
		fmt.Fprintf(&b, "[%s] ", tag)
	}
	b.WriteString(d.Msg)
	if d.Fix != "" {
		fmt.Fprintf(&b, " (fix: %s)", d.Fix)
	}
	return b.String()
}

// HasErrors reports whether any diagnostic is an error, i.e. whether the run
// must halt.
func HasErrors(ds []Diagnostic) bool {
	for _, d := range ds {
		if d.Severity == Error {
			return true
		}
	}
	return false
}

// sortDiagnostics orders diagnostics by line, then errors first, then rule,
// so output is stable whatever order the checks ran in.
func sortDiagnostics(ds []Diagnostic) {
	slices.SortStableFunc(ds, func(a, b Diagnostic) int {
		return cmp.Or(cmp.Compare(a.Pos.File, b.Pos.File), cmp.Compare(a.Pos.Line, b.Pos.Line),
			cmp.Compare(a.Severity, b.Severity), cmp.Compare(a.Scenario, b.Scenario),
			cmp.Compare(a.Field, b.Field), cmp.Compare(a.Rule, b.Rule))
	})
}
