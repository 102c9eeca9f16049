package plans

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/faultline/faultline/verdict"
)

// finish resolves what needs the whole file: claim references, budgets,
// listed arms, gating, and the slug when the plan has no H1.
func (ps *parser) finish() {
	p := ps.plan
	if p.Slug == "" { // no H1, or one that names no slug: fall back to the file name
		base := filepath.Base(ps.path)
		p.Slug = slugify(strings.TrimSuffix(base, filepath.Ext(base)))
		if p.Slug == "" {
			p.Slug = "plan"
		}
		what, line := "plan has no `# Test Plan: <slug>` heading", 1
		if p.Title != "" {
			what, line = "H1 names no slug", p.Pos.Line
		}
		ps.diag("title", line, "", "", what+"; using slug "+quote(p.Slug), "start the file with `# Test Plan: "+p.Slug+"`")
	}
	if p.Title == "" {
		p.Pos = ps.pos(1)
	}
	for i := range p.Hypotheses {
		p.Hypotheses[i].CouldFalsify = ps.claimRefs(ps.hypRaw[i])
	}
	for i := range p.Coverage {
		c := &p.Coverage[i]
		c.Claims = ps.claimRefs(c.ClaimText)
		c.Scenarios = ids(scenarioIDRe, c.ScenariosText)
	}
	for _, s := range p.Scenarios {
		ps.finishScenario(s)
	}
}

func (ps *parser) finishScenario(s *Scenario) {
	if f := s.Field(FieldFalsifies); f != nil {
		s.Falsifies = ps.claimRefs(f.Value)
	}
	if f := s.Field(FieldCloses); f != nil {
		s.Closes = ids(hypIDRe, f.Value)
	}
	s.Gate = ps.gate(s.Falsifies)
	finishBody(&s.Body)
	if sb := s.Surface; sb != nil {
		if f := sb.Field(FieldSurfaces); f != nil {
			sb.Surfaces = splitList(f.Value)
		}
		if f := sb.Field(FieldArms); f != nil {
			for _, id := range ids(scenarioIDRe, f.Value) {
				if strings.Contains(id, "/") {
					sb.ArmIDs = append(sb.ArmIDs, id)
				}
			}
		}
		ps.listArms(s, sb)
	}
	for _, a := range s.Arms {
		finishBody(&a.Body)
	}
}

// listArms orders arms as "Scenario arms" lists them (sections the list does
// not name follow) and adds the listed arms that have no section.
func (ps *parser) listArms(s *Scenario, sb *SurfaceBlock) {
	f := sb.Field(FieldArms)
	var arms []*Arm
	for _, id := range sb.ArmIDs {
		a := s.arm(id)
		if a == nil {
			base, surface, _ := strings.Cut(id, "/")
			if base != s.ID {
				continue // Lint reports the foreign id
			}
			a = &Arm{ID: id, Surface: surface, Pos: f.Pos}
		}
		a.Listed = true
		arms = append(arms, a)
	}
	for _, a := range s.Arms {
		if !a.Listed {
			arms = append(arms, a)
		}
	}
	s.Arms = arms
}

// finishBody reads the budgets and the model of a scenario or arm.
func finishBody(b *Body) {
	tiers := []struct {
		name string
		tier verdict.Tier
		dst  **Budget
	}{{FieldSmoke, verdict.TierSmoke, &b.Budgets.Smoke}, {FieldHardening, verdict.TierHardening, &b.Budgets.Hardening}, {FieldRelease, verdict.TierRelease, &b.Budgets.Release}}
	for _, t := range tiers {
		if f := b.Field(t.name); f != nil {
			*t.dst = parseBudget(t.tier, f)
		}
	}
	if b.Model != nil {
		if f := b.Model.Field(FieldModel); f != nil {
			b.Model.Model = normModel(f.Value)
		}
	}
}

// claimRefs returns the claim ids text names: C<n> ids, and any other id the
// claims table declares.
func (ps *parser) claimRefs(text string) []string {
	out := ids(claimIDRe, text)
	for _, c := range ps.plan.Claims {
		if !contains(out, c.ID) && hasWord(text, c.ID) {
			out = append(out, c.ID)
		}
	}
	return out
}

// hasWord reports whether w occurs in text with no letter, digit or "_" on
// either side.
func hasWord(text, w string) bool {
	for i := 0; w != ""; {
		j := strings.Index(text[i:], w)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(w)
		if (start == 0 || !isWordByte(text[start-1])) && (end == len(text) || !isWordByte(text[end])) {
			return true
		}
		i = start + 1
	}
	return false
}

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// gate derives the discipline a scenario owes from the claims it falsifies.
func (ps *parser) gate(claims []string) Gate {
	var g Gate
	for _, id := range claims {
		c := ps.plan.Claim(id)
		if c == nil {
			continue
		}
		for _, cat := range c.Categories {
			if !slices.Contains(g.Categories, cat) {
				g.Categories = append(g.Categories, cat)
			}
			g.Serious = g.Serious || cat.Serious()
			g.Surface = g.Surface || cat.Surface()
		}
	}
	return g
}

// splitList splits "a, b; c" or a bulleted value into trimmed items.
func splitList(v string) []string {
	var out []string
	for _, ln := range strings.Split(v, "\n") {
		if _, body, ok := listItem(ln); ok {
			ln = body
		}
		for _, item := range strings.FieldsFunc(ln, func(r rune) bool { return r == ',' || r == ';' }) {
			if item = strings.TrimSpace(plain(item)); item != "" {
				out = append(out, item)
			}
		}
	}
	return out
}
