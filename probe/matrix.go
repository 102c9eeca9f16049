package probe

import (
	"fmt"
	"strings"
)

// Matrix is the environment capability matrix of a session.
type Matrix struct {
	Rows []Row `json:"rows"`
	// Nodes sums up the run's nodes (Cluster.Summary): what each kernel
	// allows, and whether clock faults and netem can land; none when no
	// nodes were probed.
	Nodes []string `json:"nodes,omitempty"`
}

// Markdown renders the matrix for the session log: the nodes' summary
// when nodes were probed, the table
// `Requirement | Present? | Version | Source`, then the install commands the
// operator may run (never run by faultline), what is missing and not trivially
// installable with the scenarios it blocks, and every disagreement between
// what the operator said and what the probe found.
func (m Matrix) Markdown() string {
	var b strings.Builder
	if len(m.Nodes) > 0 {
		b.WriteString("Nodes:\n")
		for _, l := range m.Nodes {
			b.WriteString("- " + l + "\n")
		}
		b.WriteString("\n")
	}
	b.WriteString("| Requirement | Present? | Version | Source |\n|---|---|---|---|\n")
	for _, r := range m.Rows {
		present := string(r.Present)
		if r.Note != "" {
			present += " (" + r.Note + ")"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", cell(r.Requirement.Name), cell(present), cell(r.Version), cell(r.Source))
	}
	var install, hard, differs []string
	for _, r := range m.Rows {
		switch {
		case r.Install != "":
			install = append(install, fmt.Sprintf("- %s (%s): `%s`", r.Requirement.Name, usedBy(r), r.Install))
		case r.Present.missing() && r.Present != Skipped:
			hard = append(hard, fmt.Sprintf("- %s (%s): %s", r.Requirement.Name, usedBy(r), why(r)))
		}
		if r.Differs != "" {
			differs = append(differs, fmt.Sprintf("- %s: %s", r.Requirement.Name, r.Differs))
		}
	}
	if len(install) > 0 {
		b.WriteString("\nMissing and installable (not run; install, then re-run the probe):\n")
		b.WriteString(strings.Join(install, "\n") + "\n")
	}
	if len(hard) > 0 {
		b.WriteString("\nMissing, not trivially installable (set it up, or its scenarios end INCONCLUSIVE-env):\n")
		b.WriteString(strings.Join(hard, "\n") + "\n")
	}
	if len(differs) > 0 {
		b.WriteString("\nOperator answers the probe contradicts:\n")
		b.WriteString(strings.Join(differs, "\n") + "\n")
	}
	return b.String()
}

// Missing lists the requirements scenarioID depends on that are not available;
// the caller marks the scenario INCONCLUSIVE-env. An arm id "S1/api" also
// depends on the rows of its scenario "S1".
func (m Matrix) Missing(scenarioID string) []string {
	var out []string
	for _, r := range m.Rows {
		if r.Present.missing() && uses(r.Requirement, scenarioID) {
			out = append(out, r.Requirement.Name)
		}
	}
	return out
}

// Reason is the one-line INCONCLUSIVE-env reason for scenarioID, or "" when
// nothing it needs is missing.
func (m Matrix) Reason(scenarioID string) string {
	var parts []string
	for _, r := range m.Rows {
		if !r.Present.missing() || !uses(r.Requirement, scenarioID) {
			continue
		}
		parts = append(parts, r.Requirement.Name+" ("+why(r)+")")
	}
	if len(parts) == 0 {
		return ""
	}
	return "environment lacks " + strings.Join(parts, ", ")
}

// why says in a few words why a row is missing.
func why(r Row) string {
	switch {
	case r.Note != "":
		return r.Note
	case r.Present == AssumedNo:
		return "the operator says it is absent"
	case r.Present == Skipped:
		return "skipped by the operator"
	}
	return string(r.Present)
}

func uses(r Requirement, id string) bool {
	for _, u := range r.UsedBy {
		if u == id || strings.HasPrefix(id, u+"/") {
			return true
		}
	}
	return false
}

func usedBy(r Row) string {
	if len(r.Requirement.UsedBy) == 0 {
		return "no scenario named"
	}
	return "needed by " + strings.Join(r.Requirement.UsedBy, ", ")
}

// cell keeps a value inside its markdown table cell.
func cell(s string) string {
	if s == "" {
		return "-"
	}
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}
