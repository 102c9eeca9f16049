package plans

import (
	"regexp"
	"strings"
)

// table hands a pipe table to the reader of the section it sits in; tables
// elsewhere are context the executor does not need.
func (ps *parser) table(t table) {
	switch ps.section {
	case "1b":
		ps.claims(t)
	case "6b":
		ps.envRows(t)
	case "7b":
		ps.coverageRows(t)
	case "7c":
		ps.residualRows(t)
	}
}

var idCellRe = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_.-]*$`)

func (ps *parser) claims(t table) {
	id, text, cat := t.column(0, "id"), t.column(1, "claim"), t.column(2, "categor")
	src, inf := t.column(3, "source"), t.column(4, "inferred")
	for _, r := range t.rows {
		if r.placeholder() {
			continue
		}
		c := Claim{ID: plain(r.cell(id)), Text: r.cell(text), Category: r.cell(cat),
			Source: r.cell(src), Inferred: r.cell(inf), Pos: ps.pos(r.n)}
		if !idCellRe.MatchString(c.ID) {
			ps.diag("table-row", r.n, "", "§1b", "claim row has no id; it is ignored",
				"start the row with an id such as `| C1 | ...`")
			continue
		}
		c.Categories, c.Unknown = parseCategories(c.Category)
		ps.plan.Claims = append(ps.plan.Claims, c)
	}
}

func (ps *parser) envRows(t table) {
	req, ver, used, hint := t.column(0, "requirement"), t.column(1, "version"), t.column(2, "used"), t.column(3, "install", "hint")
	for _, r := range t.rows {
		if r.placeholder() {
			continue
		}
		e := EnvRequirement{Requirement: r.cell(req), VersionFloor: r.cell(ver), UsedByText: r.cell(used),
			InstallHint: r.cell(hint), Pos: ps.pos(r.n)}
		e.UsedBy = ids(scenarioIDRe, e.UsedByText)
		e.BySUT = strings.Contains(strings.ToLower(e.InstallHint+" "+e.VersionFloor), "brought up by")
		ps.plan.EnvRequirements = append(ps.plan.EnvRequirements, e)
	}
}

func (ps *parser) coverageRows(t table) {
	claim, threat, scen, why := t.column(0, "claim"), t.column(1, "threat"), t.column(2, "scenario"), t.column(3, "why")
	for _, r := range t.rows {
		if r.placeholder() {
			continue
		}
		ps.plan.Coverage = append(ps.plan.Coverage, CoverageRow{ClaimText: r.cell(claim), Threats: r.cell(threat),
			ScenariosText: r.cell(scen), Why: r.cell(why), Pos: ps.pos(r.n)})
	}
}

func (ps *parser) residualRows(t table) {
	unc, why, acc, when := t.column(0, "uncertaint"), t.column(1, "why uncovered"), t.column(2, "why acceptable"), t.column(3, "when", "revisit")
	for _, r := range t.rows {
		if r.placeholder() {
			continue
		}
		ps.plan.Residual = append(ps.plan.Residual, ResidualRow{Uncertainty: r.cell(unc), WhyUncovered: r.cell(why),
			WhyAcceptable: r.cell(acc), Revisit: r.cell(when), Pos: ps.pos(r.n)})
	}
}
