package report

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/faultline/faultline/plans"
	"github.com/faultline/faultline/verdict"
)

// Unit is one row of the scenario results: a scenario without arms, an arm
// ("S5/api"), or the aggregate of a scenario's arms ("S5").
type Unit struct {
	ID        string           // "S1", "S5/api", or "S5" for an aggregate
	Decision  verdict.Decision // the verdict with its evidence
	Artifact  string           // link to the unit's artifacts, relative to the session dir
	Plot      string           // its latency/throughput plot, relative to the session dir ("" = none)
	Executed  bool             // the run got as far as the workload
	Aggregate bool             // the aggregate row of an armed scenario
	// Downgrade is why an aggregate was capped (§2.4), "" when it was not.
	Downgrade string
}

// Finding is one violation written up per §7.2 "Findings".
type Finding struct {
	Title        string
	Scenario     string
	Hypothesis   string
	WhatHappened string
	// Context places the anomalous ops in the run: times, processes,
	// nodes, fault epochs and the faults active then.
	Context        string
	Reproducer     string
	Reduction      string
	Classification string
	Evidence       string
	RootCause      string
	NextAction     string
}

// Findings is everything findings/report.md is rendered from.
type Findings struct {
	Plan       *plans.Plan
	PlanPath   string
	Commit     string
	SessionDir string
	Started    time.Time
	Session    verdict.SessionVerdict
	Headline   string
	Units      []Unit // in plan order: scenarios, each armed one's arms then its aggregate
	Findings   []Finding
	// Confidence is More, Less or Unchanged against the plan's §7d, with why.
	Confidence, ConfidenceWhy string
}

// RenderFindings renders findings/report.md: the headings and tables of the
// plan spec §7.2, in order, headline first.
func RenderFindings(f *Findings) string {
	var b strings.Builder
	ts := f.Started.UTC().Format("20060102T150405Z")
	fmt.Fprintf(&b, "# Findings: %s @ %s\n\n", f.Plan.Slug, ts)
	fmt.Fprintf(&b, "**Plan:** %s\n**Commit under test:** %s\n**Session dir:** %s\n\n", f.PlanPath, orUnknown(f.Commit), f.SessionDir)

	fmt.Fprintf(&b, "## Summary\n\n**%s** — %s\n\n", f.Session, strings.TrimPrefix(f.Headline, string(f.Session)+": "))

	b.WriteString("## Scenario results\n\n| ID | Scenario | Verdict | Oracle | Oracle execution evidence | Nemesis landing evidence | Artifact link |\n|---|---|---|---|---|---|---|\n")
	for _, u := range f.Units {
		name, oracle := f.unitText(u.ID)
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s |\n", Cell(u.ID), Cell(name), u.Decision.Verdict,
			Cell(oracle), Cell(u.Decision.Oracle), Cell(u.Decision.Landing), link(u.Artifact))
	}
	for _, u := range f.Units {
		if u.Plot != "" {
			fmt.Fprintf(&b, "\n%s\n", plot(u))
		}
	}

	f.toChange(&b)

	b.WriteString("\n## Findings\n\n")
	if len(f.Findings) == 0 {
		b.WriteString("No oracle violation was found in this session.\n")
	}
	for i, x := range f.Findings {
		fmt.Fprintf(&b, "### Finding F%d: %s\n\n", i+1, x.Title)
		for _, kv := range [][2]string{{"Scenario", x.Scenario}, {"Hypothesis addressed", x.Hypothesis},
			{"What happened", x.WhatHappened}, {"When and where", x.Context}, {"Reproducer", x.Reproducer}, {"Reduction classification", x.Reduction},
			{"Classification", x.Classification}, {"Evidence", x.Evidence}, {"Hypothesised root cause", x.RootCause},
			{"Suggested next action", x.NextAction}} {
			bullet(&b, kv[0], orUnknown(kv[1]))
		}
		b.WriteString("\n")
	}

	f.coverage(&b)
	f.surfaces(&b)
	f.disclosures(&b)
	f.adequacy(&b)

	fmt.Fprintf(&b, "\n## Confidence delta\n\n**%s** — %s\n", orUnknown(f.Confidence), orUnknown(f.ConfidenceWhy))

	b.WriteString("\n## Green-but-broken check\n")
	for _, u := range f.Units {
		if u.Aggregate {
			continue
		}
		fmt.Fprintf(&b, "\n### %s\n\n", u.ID)
		for _, a := range u.Decision.Audits {
			b.WriteString(auditLine(u.Decision, a, "What to change for a PASS"))
		}
	}
	return b.String()
}

// unitText returns the scenario name and the plan's oracle text for a unit.
func (f *Findings) unitText(id string) (name, oracle string) {
	sid, armID, _ := strings.Cut(id, "/")
	s := f.Plan.Scenario(sid)
	if s == nil {
		return "", ""
	}
	var arm *plans.Arm
	if armID != "" {
		for _, a := range s.Arms {
			if a.ID == id {
				arm = a
			}
		}
	}
	if fl := s.FieldFor(arm, plans.FieldOracle); fl != nil {
		oracle = fl.Value
	}
	return s.Name, oracle
}

// coverage writes one line per hypothesis: the scenarios that close it and
// their verdicts, or why it was not exercised.
func (f *Findings) coverage(b *strings.Builder) {
	b.WriteString("## Coverage summary\n\n")
	if len(f.Plan.Hypotheses) == 0 {
		b.WriteString("The plan lists no hypotheses.\n")
	}
	for _, h := range f.Plan.Hypotheses {
		var parts []string
		for _, s := range f.Plan.Scenarios {
			if !slices.Contains(s.Closes, h.ID) {
				continue
			}
			parts = append(parts, fmt.Sprintf("%s %s", s.ID, f.verdictOf(s.ID)))
		}
		if len(parts) == 0 {
			fmt.Fprintf(b, "- **%s** %s — not exercised: no scenario of this plan closes it\n", h.ID, h.Title)
			continue
		}
		fmt.Fprintf(b, "- **%s** %s — %s\n", h.ID, h.Title, strings.Join(parts, "; "))
	}
}

// verdictOf is the verdict of unit id, or NOT-RUN when it never got one.
func (f *Findings) verdictOf(id string) verdict.Verdict {
	for _, u := range f.Units {
		if u.ID == id {
			return u.Decision.Verdict
		}
	}
	return verdict.NotRun
}

// surfaces writes the §7.M.S surface coverage table for armed scenarios.
func (f *Findings) surfaces(b *strings.Builder) {
	b.WriteString("\n## Surface coverage (boundary and fairness scenarios)\n\n")
	var armed []*plans.Scenario
	for _, s := range f.Plan.Scenarios {
		if s.Gate.Surface || len(s.Arms) > 0 {
			armed = append(armed, s)
		}
	}
	if len(armed) == 0 {
		b.WriteString("No boundary or fairness scenarios in this plan.\n")
		return
	}
	b.WriteString("| Scenario / arm | Surface | Planned | Executed | Verdict | Downgrade reason |\n|---|---|---|---|---|---|\n")
	var missing []string
	for _, s := range armed {
		for _, a := range s.Arms {
			u := f.unit(a.ID)
			executed := u != nil && u.Executed
			if !executed {
				missing = append(missing, fmt.Sprintf("%s (%s)", a.ID, a.Surface))
			}
			fmt.Fprintf(b, "| %s | %s | yes | %s | %s | |\n", a.ID, Cell(a.Surface), yesNo(executed), f.verdictOf(a.ID))
		}
		agg := f.unit(s.ID)
		reason := ""
		if agg != nil {
			reason = agg.Downgrade
		}
		fmt.Fprintf(b, "| %s (aggregate) | all | yes | %s | %s | %s |\n", s.ID, yesNo(agg != nil && agg.Executed), f.verdictOf(s.ID), Cell(reason))
	}
	if len(missing) == 0 {
		b.WriteString("\nAll planned surfaces were executed.\n")
		return
	}
	b.WriteString("\n**Missing surfaces this run did not cover:**\n\n")
	for _, m := range missing {
		fmt.Fprintf(b, "- %s\n", m)
	}
}

func (f *Findings) unit(id string) *Unit {
	for i := range f.Units {
		if f.Units[i].ID == id {
			return &f.Units[i]
		}
	}
	return nil
}

// disclosures copies each "not provided" release budget verbatim.
func (f *Findings) disclosures(b *strings.Builder) {
	b.WriteString("\n## Release-budget disclosures\n\n")
	var rows []string
	for _, s := range f.Plan.Scenarios {
		if r := s.Budgets.Release; r != nil && r.NotProvided != nil {
			rows = append(rows, fmt.Sprintf("| %s | %s | %s |", s.ID, Cell(r.NotProvided.Reason), Cell(r.NotProvided.RevisitWhen)))
		}
	}
	if len(rows) == 0 {
		b.WriteString("All scenarios declared a concrete release budget.\n")
		return
	}
	b.WriteString("| Scenario | Reason release budget was not provided | Revisit when |\n|---|---|---|\n")
	b.WriteString(strings.Join(rows, "\n") + "\n")
}

// adequacy sets what ran against each row of the plan's §7b argument.
func (f *Findings) adequacy(b *strings.Builder) {
	b.WriteString("\n## Adequacy assessment vs the plan's coverage argument\n\n")
	if len(f.Plan.Coverage) == 0 {
		b.WriteString("The plan has no §7b coverage argument to assess against.\n")
		return
	}
	b.WriteString("| Claim | Plan's adequacy argument | What actually ran | Adequacy after this run |\n|---|---|---|---|\n")
	for _, row := range f.Plan.Coverage {
		var ran []string
		adequate := len(row.Scenarios) > 0
		for _, id := range row.Scenarios {
			v := f.verdictOf(id)
			ran = append(ran, fmt.Sprintf("%s %s", id, v))
			if !v.IsPass() && !v.IsFail() {
				adequate = false
			}
		}
		verdictText := "as argued: every scenario it relies on reached a definite verdict"
		if !adequate {
			verdictText = "weaker than argued: a scenario it relies on did not reach a definite verdict"
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s |\n", Cell(row.ClaimText), Cell(row.Why), Cell(strings.Join(ran, "; ")), verdictText)
	}
}

// bullet writes "- **name:** value"; a multi-line value (a checker's
// explanation) goes in an indented text block so the list stays a list.
func bullet(b *strings.Builder, name, value string) {
	value = strings.TrimRight(value, "\n")
	if !strings.Contains(value, "\n") {
		fmt.Fprintf(b, "- **%s:** %s\n", name, value)
		return
	}
	fmt.Fprintf(b, "- **%s:**\n\n  ```text\n", name)
	for _, line := range strings.Split(value, "\n") {
		fmt.Fprintf(b, "  %s\n", line)
	}
	b.WriteString("  ```\n\n")
}

func box(s verdict.Status) string {
	if s == verdict.Pass || s == verdict.NA {
		return "[x]"
	}
	return "[ ]"
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// link links a session-relative path from a file in findings/.
func link(p string) string {
	if p == "" {
		return ""
	}
	return fmt.Sprintf("[%s](../%s)", p, p)
}

// plot embeds a unit's plot in a file in findings/.
func plot(u Unit) string {
	return fmt.Sprintf("![%s: latency and throughput, fault windows shaded](../%s)", u.ID, u.Plot)
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// RenderUnit renders findings/<scenario>.md, written as soon as a scenario
// or arm finishes: its verdict, why, the evidence and its audit boxes.
func RenderUnit(u Unit) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s: %s\n\n", u.ID, u.Decision.Verdict)
	fmt.Fprintf(&b, "**Budget tier met:** %s\n\n", u.Decision.TierMet)
	b.WriteString("## Why\n\n")
	writeBlockers(&b, u.Decision, "")
	for _, r := range u.Decision.OtherReasons() {
		fmt.Fprintf(&b, "- %s\n", oneLine(r))
	}
	fmt.Fprintf(&b, "\n## Evidence\n\n- **Oracle:** %s\n- **Nemesis landing:** %s\n", oneLine(u.Decision.Oracle), oneLine(u.Decision.Landing))
	if u.Artifact != "" {
		fmt.Fprintf(&b, "- **Artifacts:** %s\n", link(u.Artifact))
	}
	if u.Plot != "" {
		fmt.Fprintf(&b, "\n%s\n", plot(u))
	}
	b.WriteString("\n## Green-but-broken check\n\n")
	for _, a := range u.Decision.Audits {
		b.WriteString(auditLine(u.Decision, a, "Why"))
	}
	return b.String()
}
