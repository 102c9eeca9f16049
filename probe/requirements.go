package probe

import (
	"sort"
	"strings"

	"github.com/faultline/faultline/plans"
)

// Requirement is one row of the capability matrix before it is verified: a §6b
// row of the plan, or a capability a compiled scenario uses that §6b forgot.
type Requirement struct {
	Name         string   `json:"name"`         // as the plan wrote it, or the capability name
	Capabilities []string `json:"capabilities"` // known capabilities named in Name; all must be present
	VersionFloor string   `json:"version_floor,omitempty"`
	UsedBy       []string `json:"used_by"` // scenario and arm ids
	InstallHint  string   `json:"install_hint,omitempty"`
	BySUT        bool     `json:"by_sut,omitempty"` // the SUT brings it up; nothing to install or probe
	FromPlan     bool     `json:"from_plan"`        // false: added because a scenario uses it
}

// Requirements merges the plan's §6b rows with the capabilities the compiled
// scenarios use (uses maps scenario id to capability names such as "iptables",
// "tc-netem", "root", "sshd", "etcd-server"). A used capability that a §6b row
// already names adds the scenario to that row's UsedBy; any other becomes a new
// row, so a plan that under-declares its needs still gets probed. A row the
// SUT brings up names no capability: it is not probed, so it must not absorb
// one a scenario needs from the host. Plan rows keep their order; added rows
// follow, sorted by name. p may be nil.
func Requirements(p *plans.Plan, uses map[string][]string) []Requirement {
	var reqs []Requirement
	if p != nil {
		for _, e := range p.EnvRequirements {
			r := Requirement{Name: e.Requirement, VersionFloor: e.VersionFloor, UsedBy: append([]string(nil), e.UsedBy...),
				InstallHint: e.InstallHint, BySUT: e.BySUT, FromPlan: true}
			if !e.BySUT {
				r.Capabilities = capabilitiesIn(e.Requirement)
			}
			reqs = append(reqs, r)
		}
	}
	ids := make([]string, 0, len(uses))
	for id := range uses {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	added := map[string]int{} // capability -> index in reqs of the row added for it
	for _, id := range ids {
		for _, c := range uses[id] {
			c = canonical(c)
			if c == "" {
				continue
			}
			if i := rowFor(reqs, c); i >= 0 {
				reqs[i].UsedBy = addID(reqs[i].UsedBy, id)
				continue
			}
			if i, ok := added[c]; ok {
				reqs[i].UsedBy = addID(reqs[i].UsedBy, id)
				continue
			}
			added[c] = len(reqs)
			reqs = append(reqs, Requirement{Name: c, Capabilities: []string{c}, UsedBy: []string{id}, InstallHint: catalogue[c].install})
		}
	}
	tail := reqs[len(reqs)-len(added):]
	sort.SliceStable(tail, func(i, j int) bool { return tail[i].Name < tail[j].Name })
	return reqs
}

// capabilitiesIn names the known capabilities a free-text §6b cell mentions,
// e.g. "network namespaces + sshd" -> [netns sshd]. Unknown text yields none;
// Check then falls back to looking the first word up on PATH.
func capabilitiesIn(text string) []string {
	low := strings.ToLower(text)
	var out []string
	for _, name := range catalogueOrder {
		for _, a := range catalogue[name].aliases {
			if strings.Contains(low, a) {
				out = append(out, name)
				break
			}
		}
	}
	return out
}

// canonical maps a capability name as a scenario wrote it to the catalogue
// name ("Postgres" -> "postgresql"); unknown names are kept, lower-cased.
func canonical(name string) string {
	low := strings.ToLower(strings.TrimSpace(name))
	if _, ok := catalogue[low]; ok {
		return low
	}
	for _, n := range catalogueOrder {
		for _, a := range catalogue[n].aliases {
			if low == a {
				return n
			}
		}
	}
	return low
}

func rowFor(reqs []Requirement, c string) int {
	for i, r := range reqs {
		if !r.FromPlan {
			continue
		}
		for _, have := range r.Capabilities {
			if have == c {
				return i
			}
		}
	}
	return -1
}

func addID(ids []string, id string) []string {
	for _, have := range ids {
		if have == id {
			return ids
		}
	}
	return append(ids, id)
}
