package plans

import (
	"regexp"
	"strings"
)

// continues appends ln to the open field when it continues it: an indented
// line or sub-item, a fenced block, or a lazy line right after the item.
func (ps *parser) continues(ln line) bool {
	if ps.hyp >= 0 && ps.hypLine(ln) {
		return true
	}
	if ps.field == nil {
		return false
	}
	indent := indentOf(ln.text)
	if _, body, ok := listItem(ln.text); ok {
		if indent <= ps.field.indent {
			return false
		}
		if label, _, ok := fieldLabel(body, true); ok {
			if _, known := ps.labels().lookup(label); known {
				return false // an indented field: "- **Budgets:**" then "  - Smoke: ..."
			}
		}
	} else if indent <= ps.field.indent {
		if ps.blank {
			return false
		}
		if _, _, ok := boldLabel(ln.text); ok {
			return false // "**Reviewers:** ..." is a field of its own, known or not
		}
		if label, _, ok := plainLabel(ln.text); ok {
			if _, known := ps.labels().lookup(label); known {
				return false
			}
		}
	}
	f := ps.field.get()
	f.Value = joinLine(f.Value, trimIndent(ln.text, ps.field.indent+2), ps.blank)
	return true
}

func (ps *parser) closeField() { ps.field = nil }

// fieldLabel finds a "**Label:** value" or, when plainOK, a "Label: value".
func fieldLabel(s string, plainOK bool) (label, value string, ok bool) {
	if label, value, ok = boldLabel(s); ok {
		return label, value, true
	}
	if plainOK {
		return plainLabel(s)
	}
	return "", "", false
}

// labels returns the field table of the current context.
func (ps *parser) labels() fieldTable {
	switch {
	case ps.scen == nil:
		return headerFields
	case ps.block == inModel:
		return modelFields
	case ps.block == inSurface:
		return surfaceFields
	}
	return scenarioFields
}

// item handles a line that is not a heading, table or continuation: a field, a
// hypothesis, or prose.
func (ps *parser) item(ln line) {
	indent, body, isList := listItem(ln.text)
	if !isList {
		body, indent = ln.text, indentOf(ln.text)
	}
	if ps.section == "4" && ps.scen == nil && ps.hypothesis(ln.n, body) {
		return
	}
	label, value, bold := boldLabel(body)
	if !bold {
		label, value, _ = plainLabel(body)
	}
	switch {
	case ps.scen != nil:
		if label != "" {
			ps.scenarioField(ln.n, indent, label, value, bold)
		}
	case !ps.seenH2:
		if label != "" {
			ps.headerField(ln.n, indent, label, value, bold)
		}
	case ps.section == "7c" || ps.section == "7d":
		ps.addProse(ln.n, ln.text)
	case ps.section == "7" && label != "":
		if _, known := scenarioFields.lookup(label); known && bold {
			ps.diag("orphan", ln.n, "", label, "field outside any scenario is ignored",
				"put it under its `### Scenario S<n>: ...` heading")
		}
	}
}

func (ps *parser) headerField(n, indent int, label, value string, bold bool) {
	name, known := headerFields.lookup(label)
	if !known && !bold {
		return
	}
	if !known {
		name = label
	}
	ps.addField(&ps.plan.Header, n, indent, Field{Name: name, Value: value, Known: known, Pos: ps.pos(n)}, "")
}

// scenarioField files a field under the current block, the scenario's body,
// or a block it implies: a §7.M field written without its heading still
// belongs to §7.M.
func (ps *parser) scenarioField(n, indent int, label, value string, bold bool) {
	var dst *[]Field
	name, known := ps.labels().lookup(label)
	switch {
	case known && ps.block == inModel:
		dst = &ps.body().Model.Fields
	case known && ps.block == inSurface:
		dst = &ps.scen.Surface.Fields
	case known:
		dst = &ps.body().Fields
	default:
		if name, known = scenarioFields.lookup(label); known {
			dst = &ps.body().Fields
		} else if name, known = modelFields.lookup(label); known {
			b := ps.body()
			if b.Model == nil {
				b.Model = &ModelBlock{Pos: ps.pos(n)}
			}
			dst = &b.Model.Fields
		} else if name, known = surfaceFields.lookup(label); known {
			if ps.scen.Surface == nil {
				ps.scen.Surface = &SurfaceBlock{Pos: ps.pos(n)}
			}
			dst = &ps.scen.Surface.Fields
		}
	}
	if !known {
		if !bold {
			return // "- note: ..." is prose
		}
		if near, ok := ps.labels().nearest(label); ok {
			ps.diag("field-typo", n, ps.unitID(), label, "unknown field "+quote(label)+"; nothing reads it",
				"did you mean "+quote(near)+"?")
		}
		name, dst = label, ps.blockFields()
	}
	ps.addField(dst, n, indent, Field{Name: name, Value: value, Known: known, Pos: ps.pos(n)}, ps.unitID())
}

// blockFields is the field list of the current block.
func (ps *parser) blockFields() *[]Field {
	switch ps.block {
	case inModel:
		return &ps.body().Model.Fields
	case inSurface:
		return &ps.scen.Surface.Fields
	}
	return &ps.body().Fields
}

// addField appends f unless the list already has it; the first one wins.
func (ps *parser) addField(dst *[]Field, n, indent int, f Field, unit string) {
	if findField(*dst, f.Name) != nil {
		ps.diag("field-duplicate", n, unit, f.Name, "field given twice; the first one is used",
			"delete one of them")
		return
	}
	*dst = append(*dst, f)
	ps.field = &fieldRef{list: dst, i: len(*dst) - 1, indent: indent}
}

var hypRe = regexp.MustCompile(`^(?:\*\*)?(H\d+)(?:\*\*)?(?:[.):]\s*|\s+|$)(.*)$`)

// hypothesis starts an "H<n>. **title** — statement" item of §4.
func (ps *parser) hypothesis(n int, body string) bool {
	m := hypRe.FindStringSubmatch(strings.TrimSpace(body))
	if m == nil {
		return false
	}
	h := Hypothesis{ID: m[1], Pos: ps.pos(n)}
	rest := strings.TrimSpace(m[2])
	if t, after, ok := boldTitle(rest); ok {
		h.Title = t
		_, h.Text, _ = cutDash(after)
		if h.Text == "" {
			h.Text = strings.TrimSpace(after)
		}
	} else if t, after, ok := cutDash(rest); ok {
		h.Title, h.Text = plain(t), strings.TrimSpace(after)
	} else {
		h.Title = plain(rest)
	}
	h.Text = strings.TrimSpace(h.Text)
	ps.plan.Hypotheses = append(ps.plan.Hypotheses, h)
	ps.hypRaw = append(ps.hypRaw, "")
	ps.hyp = len(ps.plan.Hypotheses) - 1
	return true
}

// boldTitle splits "**title** rest".
func boldTitle(s string) (title, rest string, ok bool) {
	if !strings.HasPrefix(s, "**") {
		return "", s, false
	}
	end := strings.Index(s[2:], "**")
	if end < 0 {
		return "", s, false
	}
	return strings.TrimSpace(s[2 : 2+end]), s[4+end:], true
}

// hypLine attaches a line under an open hypothesis: its labelled sub-items, or
// more statement text. An unindented paragraph after a blank line ends it.
func (ps *parser) hypLine(ln line) bool {
	_, body, isList := listItem(ln.text)
	if !isList {
		if indentOf(ln.text) == 0 && ps.blank {
			ps.hyp = -1
			return false
		}
		body = ln.text
	}
	if hypRe.MatchString(strings.TrimSpace(body)) {
		return false
	}
	h := &ps.plan.Hypotheses[ps.hyp]
	label, value, ok := fieldLabel(body, true)
	switch key := normLabel(label); {
	case ok && key == "could falsify":
		ps.hypRaw[ps.hyp] = value
	case ok && key == "suspected because":
		h.Suspected = value
	case ok && key == "subsystem":
		h.Subsystem = value
	default:
		h.Text = joinLine(h.Text, strings.TrimSpace(body), false)
	}
	return true
}

// addProse collects the prose of §7c (an explicit-empty sentence) and §7d.
func (ps *parser) addProse(n int, text string) {
	if ps.prose == nil || ps.proseAt != ps.section {
		ps.prose, ps.proseAt = &Text{Pos: ps.pos(n)}, ps.section
		if ps.section == "7d" {
			ps.plan.Confidence = ps.prose
		} else {
			ps.plan.ResidualNote = ps.prose
		}
	}
	ps.prose.Text = joinLine(ps.prose.Text, strings.TrimSpace(text), ps.blank)
}
