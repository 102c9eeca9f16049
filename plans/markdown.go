package plans

import (
	"regexp"
	"strings"
)

// This file is the small slice of markdown plans use: lines, fenced blocks,
// headings, list items, bold labels and pipe tables. Everything is line based;
// the parser never needs a full CommonMark tree.

// line is one source line. skip marks lines that are never structure: inside or
// delimiting a fenced block, or YAML front matter.
type line struct {
	n     int    // 1-based line number
	text  string // without the line ending
	skip  bool
	lang  string // the info string, on a line that opens a fence
	open  bool   // this line opens a fence
	close bool   // this line closes a fence
}

// splitLines splits src into lines, dropping a BOM and "\r" endings and marking
// fenced blocks and front matter. unclosed is the line of a fence that never
// closes (0 if none).
func splitLines(src []byte) (lines []line, unclosed int) {
	s := strings.TrimPrefix(string(src), "\ufeff")
	if s == "" {
		return nil, 0
	}
	raw := strings.Split(s, "\n")
	if raw[len(raw)-1] == "" {
		raw = raw[:len(raw)-1]
	}
	lines = make([]line, len(raw))
	for i, t := range raw {
		lines[i] = line{n: i + 1, text: strings.TrimSuffix(t, "\r")}
	}
	markFrontMatter(lines)
	return lines, markFences(lines)
}

// markFrontMatter skips a leading "---" ... "---" block.
func markFrontMatter(lines []line) {
	if len(lines) == 0 || strings.TrimSpace(lines[0].text) != "---" {
		return
	}
	for i := 1; i < len(lines); i++ {
		if strings.TrimSpace(lines[i].text) == "---" {
			for j := 0; j <= i; j++ {
				lines[j].skip = true
			}
			return
		}
	}
}

// markFences marks fenced code blocks (``` or ~~~, any indentation). An
// unclosed fence runs to the end of the file, as in CommonMark; its line is
// returned so Parse can say so.
func markFences(lines []line) (unclosed int) {
	var char byte
	width := 0
	for i := range lines {
		if lines[i].skip && char == 0 {
			continue
		}
		t := strings.TrimSpace(lines[i].text)
		if char == 0 {
			c, w := fenceRun(t)
			if w < 3 {
				continue
			}
			if c == '`' && strings.IndexByte(t[w:], '`') >= 0 {
				continue // an inline code span, not a fence
			}
			char, width, unclosed = c, w, lines[i].n
			lines[i].skip, lines[i].open = true, true
			lines[i].lang = strings.TrimSpace(t[w:])
			continue
		}
		lines[i].skip = true
		if c, w := fenceRun(t); c == char && w >= width && strings.TrimSpace(t[w:]) == "" {
			char, unclosed = 0, 0
			lines[i].close = true
		}
	}
	return unclosed
}

// fenceRun returns the fence character t starts with and how many times it repeats.
func fenceRun(t string) (byte, int) {
	if t == "" || (t[0] != '`' && t[0] != '~') {
		return 0, 0
	}
	w := 0
	for w < len(t) && t[w] == t[0] {
		w++
	}
	return t[0], w
}

// heading parses an ATX heading ("## 1b. Claims"), closing hashes dropped.
// Setext headings are not used by plans, and a "---" rule must not turn prose
// into a heading. Hand-written: it runs on every line.
func heading(s string) (level int, text string, ok bool) {
	i := 0
	for i < len(s) && i < 4 && s[i] == ' ' {
		i++
	}
	j := i
	for j < len(s) && s[j] == '#' {
		j++
	}
	level = j - i
	if i > 3 || level == 0 || level > 6 {
		return 0, "", false
	}
	rest := s[j:]
	if rest != "" && rest[0] != ' ' && rest[0] != '\t' {
		return 0, "", false // "#hashtag"
	}
	rest = strings.TrimRight(rest, " \t")
	if k := strings.TrimRight(rest, "#"); len(k) < len(rest) && (k == "" || k[len(k)-1] == ' ' || k[len(k)-1] == '\t') {
		rest = k
	}
	return level, strings.TrimSpace(rest), true
}

// listItem parses a bullet ("-", "*", "+") or numbered ("1.", "2)") item,
// returning its indentation in columns (a tab counts 4) and its text. The
// marker must be followed by a space, so "**Date:**" is not an item.
func listItem(s string) (indent int, text string, ok bool) {
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	j := i
	if j < len(s) && (s[j] == '-' || s[j] == '*' || s[j] == '+') {
		j++
	} else {
		for j < len(s) && j-i < 3 && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j == i || j >= len(s) || s[j] != '.' && s[j] != ')' {
			return 0, "", false
		}
		j++
	}
	k := j
	for k < len(s) && (s[k] == ' ' || s[k] == '\t') {
		k++
	}
	if k == j {
		return 0, "", false
	}
	return columns(s[:i]), s[k:], true
}

// columns measures leading whitespace.
func columns(ws string) int {
	n := 0
	for _, r := range ws {
		if r == '\t' {
			n += 4
		} else {
			n++
		}
	}
	return n
}

// indentOf is the indentation of s in columns.
func indentOf(s string) int {
	return columns(s[:len(s)-len(strings.TrimLeft(s, " \t"))])
}

// boldLabel parses "**Label:** value" and "**Label**: value" ("__" works too).
// The colon is required: a bold phrase without one is emphasis, not a field.
func boldLabel(s string) (label, value string, ok bool) {
	s = strings.TrimSpace(s)
	if len(s) < 5 || s[:2] != "**" && s[:2] != "__" {
		return "", "", false
	}
	end := -1
	for i := 3; i+1 < len(s); i++ { // the label has at least one character
		if c := s[i]; (c == '*' || c == '_') && s[i+1] == c {
			end = i
			break
		}
	}
	if end < 0 {
		return "", "", false
	}
	label, value = strings.TrimSpace(s[2:end]), strings.TrimSpace(s[end+2:])
	switch {
	case strings.HasSuffix(label, ":"):
		label = strings.TrimSpace(strings.TrimSuffix(label, ":"))
	case strings.HasPrefix(value, ":"):
		value = strings.TrimSpace(value[1:])
	default:
		return "", "", false
	}
	if label == "" {
		return "", "", false
	}
	return label, value, true
}

var plainLabelRe = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9 /+&?'().-]{0,60}?)\s*:\s*(.*)$`)

// plainLabel parses "Label: value" with no markup. Callers accept it only when
// the label is a known field, so prose with a colon stays prose.
func plainLabel(s string) (label, value string, ok bool) {
	if strings.IndexByte(s, ':') < 0 {
		return "", "", false
	}
	m := plainLabelRe.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return "", "", false
	}
	return strings.TrimSpace(m[1]), strings.TrimSpace(m[2]), true
}

// plain strips inline markup (bold, italics markers around the whole text,
// code spans, escaped pipes) and surrounding space, for ids, labels and cells.
func plain(s string) string {
	s = strings.ReplaceAll(s, "**", "")
	s = strings.ReplaceAll(s, "`", "")
	s = strings.ReplaceAll(s, `\|`, "|")
	s = strings.TrimSpace(s)
	for len(s) >= 2 && (s[0] == '*' || s[0] == '_') && s[len(s)-1] == s[0] {
		s = strings.TrimSpace(s[1 : len(s)-1])
	}
	return s
}

// dashes folds every dash variant to "-".
var dashes = strings.NewReplacer("—", "-", "–", "-", "--", "-")

// normLabel folds a label for lookup: lower case, one space between words,
// every dash variant as "-", no trailing colon.
func normLabel(s string) string {
	s = strings.ToLower(plain(s))
	s = strings.TrimSuffix(strings.TrimSpace(s), ":")
	return strings.Join(strings.Fields(dashes.Replace(s)), " ")
}

// isBlank reports whether s has only whitespace.
func isBlank(s string) bool { return strings.TrimSpace(s) == "" }

var separatorRe = regexp.MustCompile(`^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$`)

// table is a pipe table: its header cells and body rows.
type table struct {
	header []string
	rows   []tableRow
}

type tableRow struct {
	cells []string
	n     int
}

// tableAt reads a pipe table starting at lines[i] (header row, separator row,
// body rows) and returns it with the index of the first line after it.
func tableAt(lines []line, i int) (table, int, bool) {
	if i+1 >= len(lines) || lines[i].skip || lines[i+1].skip ||
		!strings.Contains(lines[i].text, "|") || !separatorRe.MatchString(lines[i+1].text) ||
		!strings.Contains(lines[i+1].text, "-") {
		return table{}, i, false
	}
	t := table{header: splitRow(lines[i].text)}
	j := i + 2
	for ; j < len(lines) && !lines[j].skip && strings.Contains(lines[j].text, "|") && !isBlank(lines[j].text); j++ {
		t.rows = append(t.rows, tableRow{cells: splitRow(lines[j].text), n: lines[j].n})
	}
	return t, j, true
}

// splitRow splits a table row into trimmed cells. A pipe inside a code span or
// escaped as "\|" belongs to the cell; a stray backtick that never closes
// does not swallow the rest of the row.
func splitRow(s string) []string {
	s = strings.TrimSpace(s)
	s = strings.TrimPrefix(s, "|")
	if strings.HasSuffix(s, "|") && !strings.HasSuffix(s, `\|`) {
		s = s[:len(s)-1]
	}
	if cells, ok := splitCells(s, true); ok {
		return cells
	}
	cells, _ := splitCells(s, false)
	return cells
}

// splitCells splits at unescaped pipes, outside code spans when codeAware. ok
// is false when a code span is left open.
func splitCells(s string, codeAware bool) (cells []string, ok bool) {
	var b strings.Builder
	code := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s) && s[i+1] == '|':
			b.WriteByte('|')
			i++
		case c == '`' && codeAware:
			code = !code
			b.WriteByte(c)
		case c == '|' && !code:
			cells = append(cells, strings.TrimSpace(b.String()))
			b.Reset()
		default:
			b.WriteByte(c)
		}
	}
	return append(cells, strings.TrimSpace(b.String())), !code
}

// column finds the header cell that starts with one of the prefixes (after
// normalising), or returns fallback when no header matches.
func (t table) column(fallback int, prefixes ...string) int {
	for i, h := range t.header {
		h = normLabel(h)
		for _, p := range prefixes {
			if strings.HasPrefix(h, p) {
				return i
			}
		}
	}
	return fallback
}

// cell returns row cell i, or "" when the row is short or i < 0.
func (r tableRow) cell(i int) string {
	if i < 0 || i >= len(r.cells) {
		return ""
	}
	return r.cells[i]
}

// placeholder reports whether every cell is a template placeholder ("...", "…", empty).
func (r tableRow) placeholder() bool {
	for _, c := range r.cells {
		switch strings.TrimSpace(plain(c)) {
		case "", "...", "…":
		default:
			return false
		}
	}
	return true
}

var (
	claimIDRe    = regexp.MustCompile(`\bC\d+[a-z]?\b`)
	hypIDRe      = regexp.MustCompile(`\bH\d+\b`)
	scenarioIDRe = regexp.MustCompile(`\bS\d+(?:/[A-Za-z0-9_-]+)?\b`)
)

// ids returns the distinct matches of re in s, in order.
func ids(re *regexp.Regexp, s string) []string {
	var out []string
	for _, m := range re.FindAllString(s, -1) {
		if !contains(out, m) {
			out = append(out, m)
		}
	}
	return out
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// dashRe matches the dashes plans use between a title and its text: an em or
// en dash, or "--" / " - " for authors without one.
var dashRe = regexp.MustCompile(`\s*(?:—|–|--)\s*|\s+-\s+`)

// cutDash splits "title — text" at the first dash.
func cutDash(s string) (before, after string, ok bool) {
	loc := dashRe.FindStringIndex(s)
	if loc == nil {
		return s, "", false
	}
	return s[:loc[0]], s[loc[1]:], true
}
