package report

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Header is the session log's header block.
type Header struct {
	SUT      string // system under test
	Plan     string // plan or script path
	Commit   string // commit under test ("" = unknown)
	Operator string
	Seed     uint64
	Tier     string
	// Toolbox lists the system's own tooling found before any scenario ran
	// ("path — role"); nil when discovery did not run (script runs).
	Toolbox []string
	// Capabilities is the environment capability matrix as Markdown; ""
	// when no probe ran.
	Capabilities string
}

// ScenarioRow is one row of the session log's verdict table.
type ScenarioRow struct {
	Scenario   string
	TierMet    string
	Verdict    string
	Notes      string
	ArtifactID string
}

// Finish writes the final session log with the scenario table, then the
// session's index.html.
func (s *Session) Finish(h Header, rows []ScenarioRow) error {
	s.mu.Lock()
	tl := append([]TimelineRow(nil), s.timeline...)
	s.mu.Unlock()
	if err := s.writeLog(h, tl, rows); err != nil {
		return err
	}
	// Last, so the page shows everything the session wrote.
	return WriteIndex(s.Dir)
}

// writeLog renders session-log.md (plan spec §7.1 headings, in order).
func (s *Session) writeLog(h Header, timeline []TimelineRow, rows []ScenarioRow) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# Session log: %s @ %s\n\n", s.Slug, s.Started.Format("20060102T150405Z"))
	fmt.Fprintf(&b, "**SUT:** %s\n", orUnknown(h.SUT))
	fmt.Fprintf(&b, "**Plan:** %s\n", orUnknown(h.Plan))
	fmt.Fprintf(&b, "**Commit under test:** %s\n", orUnknown(h.Commit))
	fmt.Fprintf(&b, "**Session dir:** %s\n", s.Dir)
	fmt.Fprintf(&b, "**Operator:** %s\n", orUnknown(h.Operator))
	fmt.Fprintf(&b, "**Seed:** %d\n", h.Seed)
	fmt.Fprintf(&b, "**Tier:** %s\n\n", orUnknown(h.Tier))

	if h.Toolbox != nil || h.Capabilities != "" {
		b.WriteString("## Toolbox discovered\n\n")
		for _, t := range h.Toolbox {
			fmt.Fprintf(&b, "- %s\n", t)
		}
		if len(h.Toolbox) == 0 {
			b.WriteString("No test tooling of the system's own was found (tools/, scripts/, bin/, tests/, docs/, Makefile, justfile, CI).\n")
		}
		b.WriteString("\n## Environment capability matrix\n\n")
		b.WriteString(orUnknown(h.Capabilities) + "\n")
		b.WriteString("\n## Preconditions check\n\n")
		b.WriteString("- [ ] cluster up cleanly — not checked by faultline before the run\n")
		b.WriteString("- [ ] observability live — not checked by faultline before the run\n")
		b.WriteString("- [ ] baseline metric captured — no baseline run\n")
		b.WriteString("- [ ] fault plane verified — each fault is verified on its victims when injected (see the timeline)\n\n")
	}
	b.WriteString("## Scenario timeline\n\n| Time (UTC) | Scenario | Event | Notes |\n|---|---|---|---|\n")
	for _, r := range timeline {
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", r.Time.Format("15:04:05.000"), Cell(r.Scenario), Cell(r.Event), Cell(r.Notes))
	}
	b.WriteString("\n## Scenario verdicts\n\n| Scenario / arm | Budget tier met | Verdict | Notes |\n|---|---|---|---|\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", Cell(r.Scenario), Cell(r.TierMet), Cell(r.Verdict), Cell(r.Notes))
	}
	if len(rows) == 0 {
		b.WriteString("| (running) | | | |\n")
	}
	b.WriteString("\n## Artifacts\n\n- `logs/`\n- `metrics/`\n- `artifacts/` — per scenario: `history.jsonl`, checker output\n- `findings/`\n- `results.json`\n")
	return writeAtomic(filepath.Join(s.Dir, "session-log.md"), []byte(b.String()))
}

func orUnknown(s string) string {
	if s == "" {
		return "(unknown)"
	}
	return s
}

// Cell escapes text for a Markdown table cell.
func Cell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}
