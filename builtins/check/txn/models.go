package txn

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Models lists the consistency models Check understands, sorted. The hierarchy
// follows Elle's (Adya; Bailis et al.; Cerone et al.; Daudjee and Salem): an
// arrow a -> b means a history satisfying a also satisfies b.
//
//	strict-serializable               -> serializable, strong-snapshot-isolation, strong-session-serializable
//	strong-session-serializable       -> serializable, strong-session-snapshot-isolation
//	serializable                      -> repeatable-read, snapshot-isolation
//	strong-snapshot-isolation         -> strong-session-snapshot-isolation, strong-read-committed
//	strong-session-snapshot-isolation -> snapshot-isolation, strong-session-read-committed
//	snapshot-isolation                -> monotonic-atomic-view, cursor-stability
//	repeatable-read                   -> monotonic-atomic-view, cursor-stability
//	cursor-stability                  -> read-committed
//	monotonic-atomic-view             -> read-committed
//	strong-read-committed             -> strong-session-read-committed, strong-read-uncommitted
//	strong-session-read-committed     -> read-committed, strong-session-read-uncommitted
//	strong-read-uncommitted           -> strong-session-read-uncommitted
//	strong-session-read-uncommitted   -> read-uncommitted
//	read-committed                    -> read-uncommitted
//
// Each model forbids the anomalies listed here ("-" for none) plus everything
// the models it implies forbid. G1 stands for G1a, G1b and G1c; G2 for
// G-single, G-nonadjacent and G2-item; monotonic-atomic-view adds nothing that
// reads and writes of items can show.
//
//	read-uncommitted                  G0 duplicate-elements cyclic-versions garbage-read
//	read-committed                    G1
//	cursor-stability                  lost-update
//	monotonic-atomic-view             -
//	repeatable-read                   G2-item lost-update
//	snapshot-isolation                internal future-read G-nonadjacent
//	serializable                      internal future-read G2
//	strong-session-read-uncommitted   G0-process
//	strong-session-read-committed     G1c-process
//	strong-read-uncommitted           G0-realtime
//	strong-read-committed             G1c-realtime
//	strong-session-snapshot-isolation G1-process G-nonadjacent-process
//	strong-snapshot-isolation         G1-realtime G-nonadjacent-realtime
//	strong-session-serializable       G1-process G2-process
//	strict-serializable               G1-realtime G2-realtime
//
// A model that forbids an anomaly also forbids every anomaly that implies it:
// G0 implies G1c; G1a, G1b and G1c imply G1; G-single implies G-nonadjacent,
// which implies G2-item, which implies G2; every cycle class X implies
// X-process, which implies X-realtime (processes are single-threaded, so a
// cycle without process edges is trivially one with them); incompatible-order
// and dirty-update imply G1a; future-read implies G1c; lost-update implies
// G2-item.
//
// Aliases: strong-serializable and PL-SS (strict-serializable),
// conflict-serializable and PL-3 (serializable), PL-SI, PL-2.99, PL-CS, PL-2 and
// PL-1.
func Models() []string {
	out := make([]string, 0, len(modelGraph))
	for m := range modelGraph {
		out = append(out, m)
	}
	sort.Strings(out)
	return out
}

// modelGraph maps each model to the weaker models it implies.
var modelGraph = map[string][]string{
	"strict-serializable":               {"serializable", "strong-snapshot-isolation", "strong-session-serializable"},
	"strong-session-serializable":       {"serializable", "strong-session-snapshot-isolation"},
	"serializable":                      {"repeatable-read", "snapshot-isolation"},
	"strong-snapshot-isolation":         {"strong-session-snapshot-isolation", "strong-read-committed"},
	"strong-session-snapshot-isolation": {"snapshot-isolation", "strong-session-read-committed"},
	"snapshot-isolation":                {"monotonic-atomic-view", "cursor-stability"},
	"repeatable-read":                   {"monotonic-atomic-view", "cursor-stability"},
	"cursor-stability":                  {"read-committed"},
	"monotonic-atomic-view":             {"read-committed"},
	"strong-read-committed":             {"strong-session-read-committed", "strong-read-uncommitted"},
	"strong-session-read-committed":     {"read-committed", "strong-session-read-uncommitted"},
	"strong-read-uncommitted":           {"strong-session-read-uncommitted"},
	"strong-session-read-uncommitted":   {"read-uncommitted"},
	"read-committed":                    {"read-uncommitted"},
	"read-uncommitted":                  nil,
}

// modelAliases maps other spellings to the names in modelGraph.
var modelAliases = map[string]string{
	"strong-serializable":   "strict-serializable",
	"PL-SS":                 "strict-serializable",
	"conflict-serializable": "serializable",
	"PL-3":                  "serializable",
	"PL-SI":                 "snapshot-isolation",
	"PL-2.99":               "repeatable-read",
	"PL-CS":                 "cursor-stability",
	"PL-2":                  "read-committed",
	"PL-1":                  "read-uncommitted",
}

// forbids maps each model to the anomalies it forbids beyond its weaker models.
var forbids = map[string][]string{
	"read-uncommitted":                  {"G0", "duplicate-elements", "cyclic-versions", "garbage-read"},
	"read-committed":                    {"G1"},
	"cursor-stability":                  {"lost-update"},
	"repeatable-read":                   {"G2-item", "lost-update"},
	"snapshot-isolation":                {"internal", "future-read", "G-nonadjacent"},
	"serializable":                      {"internal", "future-read", "G2"},
	"strong-session-read-uncommitted":   {"G0-process"},
	"strong-session-read-committed":     {"G1c-process"},
	"strong-read-uncommitted":           {"G0-realtime"},
	"strong-read-committed":             {"G1c-realtime"},
	"strong-session-snapshot-isolation": {"G1-process", "G-nonadjacent-process"},
	"strong-snapshot-isolation":         {"G1-realtime", "G-nonadjacent-realtime"},
	"strong-session-serializable":       {"G1-process", "G2-process"},
	"strict-serializable":               {"G1-realtime", "G2-realtime"},
}

// implies maps each anomaly to the anomalies its presence implies.
var implies = buildImplies()

func buildImplies() map[string][]string {
	m := map[string][]string{
		"G0":                 {"G1c"},
		"G1a":                {"G1"},
		"G1b":                {"G1"},
		"G1c":                {"G1"},
		"G-single":           {"G-nonadjacent"},
		"G-nonadjacent":      {"G2-item"},
		"G2-item":            {"G2"},
		"incompatible-order": {"G1a"},
		"dirty-update":       {"G1a"},
		"future-read":        {"G1c"},
		"lost-update":        {"G2-item"},
	}
	// Each cycle class (and the G1 and G2 umbrellas) implies its -process
	// variant, which implies its -realtime variant, and the variants follow
	// the same implications as the base class.
	for _, base := range []string{"G0", "G1c", "G1", "G-single", "G-nonadjacent", "G2-item", "G2"} {
		m[base] = append(m[base], base+"-process")
		m[base+"-process"] = append(m[base+"-process"], base+"-realtime")
		for _, next := range m[base] {
			if !strings.HasSuffix(next, "-process") {
				m[base+"-process"] = append(m[base+"-process"], next+"-process")
				m[base+"-realtime"] = append(m[base+"-realtime"], next+"-realtime")
			}
		}
	}
	return m
}

// cycleTypes are the anomaly types a cycle can be classified as.
var cycleTypes = func() []string {
	var out []string
	for _, v := range []string{"", "-process", "-realtime"} {
		for _, b := range []string{"G0", "G1c", "G-single", "G-nonadjacent", "G2-item"} {
			out = append(out, b+v)
		}
	}
	return out
}()

// knownAnomaly reports whether name is an anomaly type Check can report or
// that the model tables mention (G1, G2 and their variants).
func knownAnomaly(name string) bool {
	if _, ok := implies[name]; ok {
		return true
	}
	for _, as := range implies {
		if slices.Contains(as, name) {
			return true
		}
	}
	return slices.Contains(nonCycleTypes, name)
}

// nonCycleTypes are the anomaly types found without cycle search.
var nonCycleTypes = []string{"G1a", "G1b", "internal", "future-read", "garbage-read", "lost-update",
	"dirty-update", "duplicate-elements", "incompatible-order", "cyclic-versions"}

// canonicalModel resolves a model name or alias.
func canonicalModel(name string) (string, error) {
	if a, ok := modelAliases[name]; ok {
		name = a
	}
	if _, ok := modelGraph[name]; !ok {
		return "", fmt.Errorf("unknown consistency model %q (known: %s)", name, strings.Join(Models(), ", "))
	}
	return name, nil
}

// closure returns start plus everything reachable from it through next.
func closure(start []string, next func(string) []string) map[string]bool {
	seen := make(map[string]bool, len(start))
	stack := slices.Clone(start)
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[x] {
			continue
		}
		seen[x] = true
		stack = append(stack, next(x)...)
	}
	return seen
}

// invert turns a graph around.
func invert(g map[string][]string) map[string][]string {
	out := make(map[string][]string)
	for from, tos := range g {
		for _, to := range tos {
			out[to] = append(out[to], from)
		}
	}
	return out
}

var (
	impliedBy      = invert(implies)    // anomaly -> anomalies that imply it
	strongerModels = invert(modelGraph) // model -> models that imply it
	forbiddenBy    = invert(forbids)    // anomaly -> models forbidding it directly
)

// prohibited returns every anomaly type that would fail a check of the
// (canonical) models, plus the extra anomalies, expanded to every anomaly that
// implies one of them.
func prohibited(models, extra []string) map[string]bool {
	var direct []string
	for m := range closure(models, func(m string) []string { return modelGraph[m] }) {
		direct = append(direct, forbids[m]...)
	}
	direct = append(direct, extra...)
	return closure(direct, func(a string) []string { return impliedBy[a] })
}

// boundary returns the weakest models the anomalies rule out (not), and the
// other models they rule out (alsoNot), both sorted.
func boundary(anomalies []string) (not, alsoNot []string) {
	var direct []string
	for a := range closure(anomalies, func(a string) []string { return implies[a] }) {
		direct = append(direct, forbiddenBy[a]...)
	}
	impossible := closure(direct, func(m string) []string { return strongerModels[m] })
	for m := range impossible {
		weakest := true
		for _, w := range modelGraph[m] {
			if impossible[w] {
				weakest = false
				break
			}
		}
		if weakest {
			not = append(not, m)
		} else {
			alsoNot = append(alsoNot, m)
		}
	}
	sort.Strings(not)
	sort.Strings(alsoNot)
	return not, alsoNot
}

// edgeNeeds returns the extra relations the models and anomalies need.
func edgeNeeds(models, anomalies []string) (realtime, process bool) {
	for _, m := range models {
		switch {
		case strings.HasPrefix(m, "strong-session-"):
			process = true
		case m == "strict-serializable", strings.HasPrefix(m, "strong-"):
			realtime = true
		}
	}
	for _, a := range anomalies {
		realtime = realtime || strings.HasSuffix(a, "-realtime")
		process = process || strings.HasSuffix(a, "-process")
	}
	// Realtime order contains process order, so a realtime graph finds every
	// process cycle too (named -realtime); process edges then only add
	// precision, which an explicit Options.Process still asks for.
	if realtime && !slices.ContainsFunc(anomalies, func(a string) bool { return strings.HasSuffix(a, "-process") }) {
		process = false
	}
	return realtime, process
}
