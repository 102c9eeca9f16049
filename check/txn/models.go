package txn

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
)

// Models lists the consistency models Check understands, sorted. The lattice
// is Elle's (elle.consistency-model: Adya; Bailis et al.; Cerone et al.;
// Daudjee and Salem; Zuikeviciute and Pedone): an arrow a -> b means a history
// satisfying a also satisfies b.
//
//	strict-serializable               -> serializable, linearizable, snapshot-isolation, strong-snapshot-isolation, strong-session-serializable, session-serializable
//	strong-session-serializable       -> serializable, strong-session-snapshot-isolation
//	session-serializable              -> 1SR
//	serializable                      -> repeatable-read, update-serializable, snapshot-isolation, view-serializable
//	update-serializable               -> forward-consistent-view
//	strong-snapshot-isolation         -> strong-session-snapshot-isolation, strong-read-committed
//	strong-session-snapshot-isolation -> snapshot-isolation, strong-session-read-committed
//	snapshot-isolation                -> forward-consistent-view, monotonic-atomic-view, monotonic-snapshot-read, parallel-snapshot-isolation, prefix
//	forward-consistent-view           -> consistent-view
//	consistent-view                   -> cursor-stability, monotonic-view
//	parallel-snapshot-isolation       -> causal-cerone, update-atomic
//	prefix                            -> causal-cerone
//	causal-cerone                     -> read-atomic
//	update-atomic                     -> read-atomic
//	read-atomic                       -> monotonic-atomic-view
//	repeatable-read                   -> cursor-stability, monotonic-atomic-view
//	cursor-stability                  -> read-committed
//	monotonic-atomic-view             -> read-committed
//	monotonic-view                    -> read-committed
//	monotonic-snapshot-read           -> read-committed
//	strong-read-committed             -> strong-session-read-committed, strong-read-uncommitted
//	strong-session-read-committed     -> read-committed, strong-session-read-uncommitted
//	strong-read-uncommitted           -> strong-session-read-uncommitted
//	strong-session-read-uncommitted   -> read-uncommitted
//	read-committed                    -> read-uncommitted
//	linearizable                      -> sequential
//	sequential                        -> causal
//	causal                            -> writes-follow-reads, PRAM
//	PRAM                              -> monotonic-reads, monotonic-writes, read-your-writes
//
// Each model forbids the anomalies listed here plus everything the models it
// implies forbid; a model not listed adds nothing a transactional history can
// show (the single-object models, view-serializable, 1SR and
// monotonic-atomic-view). X-cycle-exists says a cycle that X forbids exists
// though the search ran out of time before it could name one.
//
//	read-uncommitted                  G0 duplicate-elements cyclic-versions garbage-read PL-1-cycle-exists
//	read-committed                    G1 PL-2-cycle-exists
//	cursor-stability                  G1 G-cursor lost-update
//	monotonic-view                    G1 G-monotonic
//	monotonic-snapshot-read           G1 G-MSR
//	consistent-view                   G1 G-single
//	forward-consistent-view           G1 G-SIb
//	update-serializable               G1 G-update
//	repeatable-read                   G1 G2-item lost-update PL-2.99-cycle-exists
//	read-atomic                       internal G1a future-read
//	causal-cerone                     internal G1a
//	prefix                            internal G1a
//	parallel-snapshot-isolation       internal G1a
//	update-atomic                     lost-update
//	snapshot-isolation                internal G1 G-SI G-nonadjacent PL-SI-cycle-exists
//	serializable                      internal G1 G2 predicate-read-miss PL-3-cycle-exists
//	strong-session-read-uncommitted   G0-process strong-session-PL-1-cycle-exists
//	strong-session-read-committed     G1c-process strong-session-PL-2-cycle-exists
//	strong-read-uncommitted           G0-realtime strong-PL-1-cycle-exists
//	strong-read-committed             G1c-realtime strong-PL-2-cycle-exists
//	strong-session-snapshot-isolation internal G1-process G-nonadjacent-process strong-session-snapshot-isolation-cycle-exists
//	strong-snapshot-isolation         internal G1-realtime G-nonadjacent-realtime strong-snapshot-isolation-cycle-exists
//	strong-session-serializable       G1-process G2-process strong-session-serializable-cycle-exists
//	strict-serializable               G1 G1c-realtime G2-realtime PL-SS-cycle-exists
//
// A model that forbids an anomaly also forbids every anomaly that implies it
// (Elle's implied-anomalies): G0 implies G1c; G1a, G1b and G1c imply G1;
// G-single-item (a cycle with one rw edge, all on items rather than
// predicates, which is every cycle here) implies G-single and
// G-nonadjacent-item; G-single implies G-nonadjacent and GSIb;
// G-nonadjacent-item implies G-nonadjacent and G2-item; G-nonadjacent and
// G2-item imply G2; every cycle class X implies X-process, which implies
// X-realtime (processes are single-threaded); GSIa and GSIb imply GSI;
// incompatible-order and dirty-update imply G1a; future-read implies G1c;
// lost-update implies write-skew and G2-item; write-skew implies G2.
//
// Aliases are Elle's canonical names: PL-1 (read-uncommitted), PL-2
// (read-committed), PL-CS (cursor-stability), PL-2L (monotonic-view), PL-MSR
// (monotonic-snapshot-read), PL-2+ (consistent-view), PL-FCV
// (forward-consistent-view), PL-2.99 (repeatable-read), PL-SI
// (snapshot-isolation), PL-3 and conflict-serializable (serializable), PL-3U
// (update-serializable), PL-SS and strong-serializable (strict-serializable),
// strong-session-PL-1, strong-session-PL-2, strong-PL-1 and strong-PL-2. The
// models a result rules out are named as Elle reports them, which differs in
// one: strict-serializable is strong-serializable there.
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
	"strict-serializable":               {"serializable", "linearizable", "snapshot-isolation", "strong-snapshot-isolation", "strong-session-serializable", "session-serializable"},
	"strong-session-serializable":       {"serializable", "strong-session-snapshot-isolation"},
	"session-serializable":              {"1SR"},
	"serializable":                      {"repeatable-read", "update-serializable", "snapshot-isolation", "view-serializable"},
	"update-serializable":               {"forward-consistent-view"},
	"strong-snapshot-isolation":         {"strong-session-snapshot-isolation", "strong-read-committed"},
	"strong-session-snapshot-isolation": {"snapshot-isolation", "strong-session-read-committed"},
	"snapshot-isolation":                {"forward-consistent-view", "monotonic-atomic-view", "monotonic-snapshot-read", "parallel-snapshot-isolation", "prefix"},
	"forward-consistent-view":           {"consistent-view"},
	"consistent-view":                   {"cursor-stability", "monotonic-view"},
	"parallel-snapshot-isolation":       {"causal-cerone", "update-atomic"},
	"prefix":                            {"causal-cerone"},
	"causal-cerone":                     {"read-atomic"},
	"update-atomic":                     {"read-atomic"},
	"read-atomic":                       {"monotonic-atomic-view"},
	"repeatable-read":                   {"cursor-stability", "monotonic-atomic-view"},
	"cursor-stability":                  {"read-committed"},
	"monotonic-atomic-view":             {"read-committed"},
	"monotonic-view":                    {"read-committed"},
	"monotonic-snapshot-read":           {"read-committed"},
	"strong-read-committed":             {"strong-session-read-committed", "strong-read-uncommitted"},
	"strong-session-read-committed":     {"read-committed", "strong-session-read-uncommitted"},
	"strong-read-uncommitted":           {"strong-session-read-uncommitted"},
	"strong-session-read-uncommitted":   {"read-uncommitted"},
	"read-committed":                    {"read-uncommitted"},
	"linearizable":                      {"sequential"},
	"sequential":                        {"causal"},
	"causal":                            {"writes-follow-reads", "PRAM"},
	"PRAM":                              {"monotonic-reads", "monotonic-writes", "read-your-writes"},
	"read-uncommitted":                  nil,
	"view-serializable":                 nil,
	"1SR":                               nil,
	"writes-follow-reads":               nil,
	"monotonic-reads":                   nil,
	"monotonic-writes":                  nil,
	"read-your-writes":                  nil,
}

// modelAliases maps other spellings (Elle's canonical PL names) to the names
// in modelGraph.
var modelAliases = map[string]string{
	"strong-serializable":   "strict-serializable",
	"PL-SS":                 "strict-serializable",
	"conflict-serializable": "serializable",
	"PL-3":                  "serializable",
	"PL-3U":                 "update-serializable",
	"PL-SI":                 "snapshot-isolation",
	"PL-2.99":               "repeatable-read",
	"PL-FCV":                "forward-consistent-view",
	"PL-2+":                 "consistent-view",
	"PL-CS":                 "cursor-stability",
	"PL-2L":                 "monotonic-view",
	"PL-MSR":                "monotonic-snapshot-read",
	"PL-2":                  "read-committed",
	"PL-1":                  "read-uncommitted",
	"strong-session-PL-1":   "strong-session-read-uncommitted",
	"strong-session-PL-2":   "strong-session-read-committed",
	"strong-PL-1":           "strong-read-uncommitted",
	"strong-PL-2":           "strong-read-committed",
}

// forbids maps each model to the anomalies it forbids beyond its weaker
// models (Elle's direct-proscribed-anomalies, plus garbage-read).
var forbids = map[string][]string{
	"read-uncommitted":                  {"G0", "duplicate-elements", "cyclic-versions", "garbage-read", "PL-1-cycle-exists"},
	"read-committed":                    {"G1", "PL-2-cycle-exists"},
	"cursor-stability":                  {"G1", "G-cursor", "lost-update"},
	"monotonic-view":                    {"G1", "G-monotonic"},
	"monotonic-snapshot-read":           {"G1", "G-MSR"},
	"consistent-view":                   {"G1", "G-single"},
	"forward-consistent-view":           {"G1", "G-SIb"},
	"update-serializable":               {"G1", "G-update"},
	"repeatable-read":                   {"G1", "G2-item", "lost-update", "PL-2.99-cycle-exists"},
	"read-atomic":                       {"internal", "G1a", "future-read"},
	"causal-cerone":                     {"internal", "G1a"},
	"prefix":                            {"internal", "G1a"},
	"parallel-snapshot-isolation":       {"internal", "G1a"},
	"update-atomic":                     {"lost-update"},
	"snapshot-isolation":                {"internal", "G1", "G-SI", "G-nonadjacent", "PL-SI-cycle-exists"},
	"serializable":                      {"internal", "G1", "G2", "predicate-read-miss", "PL-3-cycle-exists"},
	"strong-session-read-uncommitted":   {"G0-process", "strong-session-PL-1-cycle-exists"},
	"strong-session-read-committed":     {"G1c-process", "strong-session-PL-2-cycle-exists"},
	"strong-read-uncommitted":           {"G0-realtime", "strong-PL-1-cycle-exists"},
	"strong-read-committed":             {"G1c-realtime", "strong-PL-2-cycle-exists"},
	"strong-session-snapshot-isolation": {"internal", "G1-process", "G-nonadjacent-process", "strong-session-snapshot-isolation-cycle-exists"},
	"strong-snapshot-isolation":         {"internal", "G1-realtime", "G-nonadjacent-realtime", "strong-snapshot-isolation-cycle-exists"},
	"strong-session-serializable":       {"G1-process", "G2-process", "strong-session-serializable-cycle-exists"},
	"strict-serializable":               {"G1", "G1c-realtime", "G2-realtime", "PL-SS-cycle-exists"},
}

// implies maps each anomaly to the anomalies its presence implies.
var implies = buildImplies()

func buildImplies() map[string][]string {
	m := map[string][]string{
		"G0":                 {"G1c"},
		"G1a":                {"G1"},
		"G1b":                {"G1"},
		"G1c":                {"G1"},
		"G-single-item":      {"G-single", "G-nonadjacent-item"},
		"G-single":           {"G-nonadjacent", "GSIb"},
		"G-nonadjacent-item": {"G-nonadjacent", "G2-item"},
		"G-nonadjacent":      {"G2"},
		"G2-item":            {"G2"},
		"GSIa":               {"GSI"},
		"GSIb":               {"GSI"},
		"incompatible-order": {"G1a"},
		"dirty-update":       {"G1a"},
		"future-read":        {"G1c"},
		"lost-update":        {"write-skew", "G2-item"},
		"write-skew":         {"G2"},
	}
	// Each cycle class (and the G1 and G2 umbrellas) implies its -process
	// variant, which implies its -realtime variant, and the variants follow
	// the same implications among cycle classes as the base class.
	bases := []string{"G0", "G1c", "G1", "G-single-item", "G-single", "G-nonadjacent-item", "G-nonadjacent", "G2-item", "G2"}
	for _, base := range bases {
		for _, next := range m[base] {
			if slices.Contains(bases, next) {
				m[base+"-process"] = append(m[base+"-process"], next+"-process")
				m[base+"-realtime"] = append(m[base+"-realtime"], next+"-realtime")
			}
		}
		m[base] = append(m[base], base+"-process")
		m[base+"-process"] = append(m[base+"-process"], base+"-realtime")
	}
	return m
}

// cycleTypes are the anomaly types a cycle can be classified as.
var cycleTypes = func() []string {
	var out []string
	for _, v := range []string{"", "-process", "-realtime"} {
		for _, b := range baseNames {
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
	if slices.Contains(nonCycleTypes, name) || slices.Contains(unknownTypes, name) {
		return true
	}
	for _, as := range forbids {
		if slices.Contains(as, name) {
			return true
		}
	}
	return false
}

// The anomaly types that make a result unknown rather than invalid (Elle's
// unknown-anomaly-types): they are always reported, whatever the models.
const (
	// EmptyTransactionGraph: no dependency between any two transactions
	// could be inferred, so no cycle could have been seen.
	EmptyTransactionGraph = "empty-transaction-graph"
	// CycleSearchTimeout: the cycle search ran out of its budget on some
	// component before ruling out a class the check forbids.
	CycleSearchTimeout = "cycle-search-timeout"
)

var unknownTypes = []string{EmptyTransactionGraph, CycleSearchTimeout}

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
	not = extremeModels(slices.Collect(maps.Keys(impossible)), true)
	for m := range impossible {
		if !slices.Contains(not, m) {
			alsoNot = append(alsoNot, m)
		}
	}
	sort.Strings(alsoNot)
	return not, alsoNot
}

// extremeModels returns, sorted, the weakest (weakest set) or else the
// strongest of the (canonical) models ms: those from which no other model of
// ms can be reached by going weaker (or stronger). Elle's weakest-models and
// strongest-models.
func extremeModels(ms []string, weakest bool) []string {
	next := func(m string) []string { return strongerModels[m] }
	if weakest {
		next = func(m string) []string { return modelGraph[m] }
	}
	in := make(map[string]bool, len(ms))
	for _, m := range ms {
		in[m] = true
	}
	var out []string
	for m := range in {
		beyond := closure(next(m), next)
		if !slices.ContainsFunc(slices.Collect(maps.Keys(beyond)), func(o string) bool { return in[o] && o != m }) {
			out = append(out, m)
		}
	}
	sort.Strings(out)
	return out
}

// elleNames are Elle's friendly names (elle.consistency-model
// friendly-model-names) for the models named otherwise here. Elle calls the
// canonical PL-SS strong-serializable in what it reports, :not and
// :also-not among them; the checker says the same there.
var elleNames = map[string]string{"strict-serializable": "strong-serializable"}

// elleName returns the name Elle reports a (canonical) model by.
func elleName(m string) string {
	if n, ok := elleNames[m]; ok {
		return n
	}
	return m
}

// reportedBoundary is boundary with the models named as Elle reports them
// (friendly-boundary), each list sorted.
func reportedBoundary(anomalies []string) (not, alsoNot []string) {
	not, alsoNot = boundary(anomalies)
	rename := func(ms []string) []string {
		for i, m := range ms {
			ms[i] = elleName(m)
		}
		slices.Sort(ms)
		return ms
	}
	return rename(not), rename(alsoNot)
}

// edgeNeeds returns the extra relations a check needs, as Elle's
// additional-graphs decides: realtime edges when a -realtime anomaly would
// fail it, else process edges when a -process one would. Realtime order
// contains process order, so a realtime graph finds every process cycle too
// (named -realtime).
func edgeNeeds(prohib map[string]bool) (realtime, process bool) {
	for a := range prohib {
		realtime = realtime || strings.HasSuffix(a, "-realtime")
		process = process || strings.HasSuffix(a, "-process")
	}
	return realtime, process && !realtime
}
