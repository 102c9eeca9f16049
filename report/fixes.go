package report

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/faultline/faultline/internal/plural"
	"github.com/faultline/faultline/verdict"
)

// WhyWidth is how many characters a terminal table's why and fix lines
// get: a reason longer than that is cut at a word and the findings hold
// the rest.
const WhyWidth = 100

// WhyLines are a unit's reason and, when a gate withheld its PASS, what to
// change, each one line of at most width characters, as the terminal table
// shows them: the most decisive gate's reason with "(+N more, see
// findings)" when there are others, then "fix: ...". A decision without
// blockers gives its first reason and no fix.
func WhyLines(d verdict.Decision, width int) (why, fix string) {
	if len(d.Blockers) == 0 {
		if len(d.Reasons) == 0 {
			return "", ""
		}
		return Truncate(oneLine(d.Reasons[0]), width), ""
	}
	b := d.Blockers[0]
	more := ""
	if n := len(d.Blockers) - 1; n > 0 {
		more = fmt.Sprintf(" (+%d more, see findings)", n)
	}
	why = Truncate(oneLine(b.Line()), width-utf8.RuneCountInString(more)) + more
	return why, Truncate("fix: "+oneLine(b.Fix), width)
}

// Truncate cuts s to at most width characters at a word boundary, marking
// the cut with "…". A width too small to cut sensibly leaves s whole.
func Truncate(s string, width int) string {
	if width < 20 || utf8.RuneCountInString(s) <= width {
		return s
	}
	r := []rune(s)[:width-1]
	cut := string(r)
	if i := strings.LastIndexByte(cut, ' '); i > width/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,;:") + "…"
}

// Headline is the session verdict's line for the terminal, where the table
// above it already shows each unit's verdict and reason: what was found and
// how many units passed, not the units again. BLOCKED, whose reason may be
// in no table row (a plan not loaded, the SUT unreachable), keeps its
// headline.
func Headline(sv verdict.SessionVerdict, headline string, units []UnitResult) string {
	if sv == verdict.Blocked || len(units) == 0 {
		return strings.TrimPrefix(headline, string(sv)+": ")
	}
	var pass, fail, open int
	for _, u := range units {
		switch {
		case u.Aggregate:
			continue
		case u.Verdict.IsFail():
			fail++
		case u.Verdict.IsPass():
			pass++
		default:
			open++
		}
	}
	found := "no violation found"
	if fail > 0 {
		found = plural.Count(fail, "oracle violation") + " found"
	}
	s := fmt.Sprintf("%s; %d of %s passed", found, pass, plural.Count(pass+fail+open, "unit"))
	if open > 0 {
		s += "; why and fix in the table above"
	}
	return s
}

// writeBlockers writes each gate that withheld d's PASS, once: its reason,
// then "fix: ..." and the section of docs/verdicts.md that explains it.
// indent prefixes every line, so the list nests under another.
func writeBlockers(b *strings.Builder, d verdict.Decision, indent string) {
	for _, x := range d.Blockers {
		status := ""
		if x.Status != "" {
			status = " (" + string(x.Status) + ")"
		}
		head := x.Gate
		if x.Title != "" {
			head += " " + x.Title
		}
		fmt.Fprintf(b, "%s- **%s**%s: %s\n", indent, head, status, oneLine(x.Reason))
		fmt.Fprintf(b, "%s  fix: %s (see %s)\n", indent, oneLine(x.Fix), verdict.DocAnchor(x.Gate))
	}
}

// WriteBlockers is writeBlockers for renderers outside this package (a
// script session's findings).
func WriteBlockers(b *strings.Builder, d verdict.Decision, indent string) {
	writeBlockers(b, d, indent)
}

// auditLine is one box of the green-but-broken check. An open item that is
// one of d's blockers was written, with its fix, where the blockers are
// (see names that place); any other open item gets its fix here.
func auditLine(d verdict.Decision, a verdict.AuditItem, see string) string {
	s := fmt.Sprintf("- %s %s %s — %s", box(a.Status), a.ID, a.Title, a.Status)
	if isBlocker(d, a.ID) {
		return s + ": see " + see + "\n"
	}
	s += ": " + oneLine(a.Evidence)
	if a.Fix != "" {
		s += fmt.Sprintf("; fix: %s (see %s)", oneLine(a.Fix), verdict.DocAnchor(a.ID))
	}
	return s + "\n"
}

func isBlocker(d verdict.Decision, id string) bool {
	for _, b := range d.Blockers {
		if b.Gate == id {
			return true
		}
	}
	return false
}

// toChange writes, for each unit a gate kept from a PASS, the gates and
// what to change, each once: the report's answer to "what do I do now".
func (f *Findings) toChange(b *strings.Builder) {
	var units []Unit
	for _, u := range f.Units {
		if len(u.Decision.Blockers) > 0 {
			units = append(units, u)
		}
	}
	if len(units) == 0 {
		return
	}
	b.WriteString("\n## What to change for a PASS\n\n")
	for _, u := range units {
		if u.Aggregate {
			// Its arms' blockers are listed under the arms themselves.
			fmt.Fprintf(b, "- **%s %s**: capped by its arms (above)\n", u.ID, u.Decision.Verdict)
			continue
		}
		fmt.Fprintf(b, "- **%s %s**\n", u.ID, u.Decision.Verdict)
		writeBlockers(b, u.Decision, "  ")
	}
}
