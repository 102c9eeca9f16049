package txn

import (
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"slices"
	"strings"
	"testing"
)

// TestModelTablesMatchDoc holds the tables in Models' doc comment to the
// maps the checker uses, so the documentation cannot drift.
func TestModelTablesMatchDoc(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "models.go", nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	var doc string
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Name.Name == "Models" {
			doc = fd.Doc.Text()
		}
	}
	graph, forb := map[string][]string{}, map[string][]string{}
	for _, line := range strings.Split(doc, "\n") {
		fields := strings.Fields(line)
		if !strings.HasPrefix(line, "\t") || len(fields) < 2 {
			continue
		}
		if fields[1] == "->" {
			graph[fields[0]] = strings.Split(strings.Join(fields[2:], ""), ",")
		} else if fields[1] != "-" {
			forb[fields[0]] = fields[1:]
		}
	}
	for m, weaker := range modelGraph {
		if got := graph[m]; !slices.Equal(got, weaker) {
			t.Errorf("doc says %s -> %v, code says %v", m, got, weaker)
		}
	}
	implying := 0
	for _, weaker := range modelGraph {
		if len(weaker) > 0 {
			implying++
		}
	}
	if len(graph) != implying { // the weakest models imply nothing
		t.Errorf("doc hierarchy has %d models, code %d", len(graph), implying)
	}
	if !maps.EqualFunc(forb, forbids, slices.Equal) {
		t.Errorf("doc forbids table %v\ndiffers from code %v", forb, forbids)
	}
	for m := range forbids {
		if _, ok := modelGraph[m]; !ok {
			t.Errorf("forbids names unknown model %s", m)
		}
	}
}

func TestProhibited(t *testing.T) {
	cases := []struct {
		model          string
		forbids, allow []string
	}{
		{"read-uncommitted", []string{"G0", "duplicate-elements", "cyclic-versions", "garbage-read"}, []string{"G1a", "G1c", "G0-process", "internal"}},
		{"read-committed", []string{"G0", "G1a", "G1b", "G1c", "incompatible-order", "dirty-update", "future-read"}, []string{"G-single", "G2-item", "lost-update", "internal", "G1c-realtime"}},
		{"cursor-stability", []string{"lost-update", "G1a"}, []string{"G-single", "G2-item"}},
		{"monotonic-atomic-view", []string{"G1c"}, []string{"G-single", "lost-update"}},
		{"repeatable-read", []string{"G2-item", "G-single-item", "G-nonadjacent-item", "lost-update"}, []string{"internal", "G2-item-process"}},
		{"snapshot-isolation", []string{"G-single", "G-nonadjacent", "internal", "lost-update", "G1b"}, []string{"G2-item", "G-single-realtime"}},
		{"serializable", []string{"G2-item", "G-single", "G-nonadjacent", "internal", "G0", "lost-update"}, []string{"G-single-process", "G-single-realtime", "G0-realtime"}},
		{"strong-session-read-uncommitted", []string{"G0-process", "G0"}, []string{"G0-realtime", "G1c-process"}},
		{"strong-session-read-committed", []string{"G1c-process", "G0-process", "G1a"}, []string{"G-single-process", "G1c-realtime"}},
		{"strong-read-committed", []string{"G1c-realtime", "G1c-process", "G0-realtime"}, []string{"G-single-realtime"}},
		{"strong-session-snapshot-isolation", []string{"G-single-process", "G-nonadjacent-process", "G1c-process"}, []string{"G2-item-process", "G-single-realtime"}},
		{"strong-snapshot-isolation", []string{"G-single-realtime", "G-nonadjacent-realtime", "G-single-process"}, []string{"G2-item-realtime"}},
		{"strong-session-serializable", []string{"G2-item-process", "G-single-process", "G0-process"}, []string{"G2-item-realtime", "G-single-realtime"}},
		{"strict-serializable", []string{"G2-item-realtime", "G-single-realtime", "G1c-realtime", "G0-realtime", "G2-item-process", "internal", "lost-update"}, nil},
	}
	for _, tc := range cases {
		p := prohibited([]string{tc.model}, nil)
		for _, a := range tc.forbids {
			if !p[a] {
				t.Errorf("%s should forbid %s", tc.model, a)
			}
		}
		for _, a := range tc.allow {
			if p[a] {
				t.Errorf("%s should allow %s", tc.model, a)
			}
		}
	}
	if p := prohibited([]string{"read-committed"}, []string{"G2-item"}); !p["G-single-item"] || !p["lost-update"] {
		t.Errorf("an extra anomaly should bring the anomalies implying it: %v", p)
	}
}

func TestBoundary(t *testing.T) {
	cases := []struct {
		anomalies []string
		not       []string
		alsoNot   []string // a few that must be there
	}{
		{[]string{"G0"}, []string{"read-uncommitted"}, []string{"serializable", "strict-serializable"}},
		{[]string{"G1c"}, []string{"read-committed"}, []string{"snapshot-isolation", "repeatable-read"}},
		{[]string{"G-single"}, []string{"consistent-view"}, []string{"serializable", "snapshot-isolation"}},
		{[]string{"G-single-item"}, []string{"consistent-view", "repeatable-read"}, []string{"serializable", "snapshot-isolation"}},
		{[]string{"G-nonadjacent-item"}, []string{"repeatable-read", "snapshot-isolation"}, []string{"serializable"}},
		{[]string{"G2-item"}, []string{"repeatable-read"}, []string{"serializable"}},
		{[]string{"lost-update"}, []string{"cursor-stability", "update-atomic"}, []string{"repeatable-read", "snapshot-isolation"}},
		{[]string{"G-single-realtime"}, []string{"strong-snapshot-isolation"}, []string{"strict-serializable"}},
		{[]string{"G2-item-realtime"}, []string{"strict-serializable"}, nil},
		{[]string{"G0-process"}, []string{"strong-session-read-uncommitted"}, []string{"strong-session-serializable"}},
		{[]string{"G1c", "G-single"}, []string{"read-committed"}, []string{"repeatable-read"}},
		{nil, nil, nil},
	}
	for _, tc := range cases {
		not, also := boundary(tc.anomalies)
		if !slices.Equal(not, tc.not) {
			t.Errorf("%v: not = %v, want %v", tc.anomalies, not, tc.not)
		}
		for _, m := range tc.alsoNot {
			if !slices.Contains(also, m) {
				t.Errorf("%v: also-not %v lacks %s", tc.anomalies, also, m)
			}
		}
		for _, m := range not {
			if slices.Contains(also, m) {
				t.Errorf("%v: %s both in not and also-not", tc.anomalies, m)
			}
		}
	}
}

// TestModelBoundaries checks classic histories against models on both sides
// of the line they draw.
func TestModelBoundaries(t *testing.T) {
	cases := []struct {
		history string
		model   string
		want    string
	}{
		{"G-single read skew", "serializable", Invalid},
		{"G-single read skew", "snapshot-isolation", Invalid},
		{"G-single read skew", "repeatable-read", Invalid},
		{"G-single read skew", "cursor-stability", Valid},
		{"G-single read skew", "read-committed", Valid},
		{"G2-item write skew", "serializable", Invalid},
		{"G2-item write skew", "repeatable-read", Invalid},
		{"G2-item write skew", "snapshot-isolation", Valid},
		{"G2-item write skew", "read-committed", Valid},
		{"G-nonadjacent", "snapshot-isolation", Invalid},
		{"G-nonadjacent", "read-committed", Valid},
		{"G1c cyclic information flow", "read-committed", Invalid},
		{"G1c cyclic information flow", "read-uncommitted", Valid},
		{"G0 write cycle", "read-uncommitted", Invalid},
		{"G1a aborted read", "read-committed", Invalid},
		{"G1a aborted read", "read-uncommitted", Unknown}, // allowed, and no dependency left to check
		{"lost update", "cursor-stability", Invalid},
		{"internal inconsistency", "snapshot-isolation", Invalid},
		{"internal inconsistency", "repeatable-read", Valid},
		{"G-single-realtime: a stale read", "strict-serializable", Invalid},
		{"G-single-realtime: a stale read", "strong-snapshot-isolation", Invalid},
		{"G-single-realtime: a stale read", "serializable", Valid},
		{"G1c-realtime: a read of a write that had not begun", "serializable", Valid},
		{"G1c-realtime: a read of a write that had not begun", "strong-read-committed", Invalid},
		{"G-single-process: a process misses its own write", "strong-session-snapshot-isolation", Invalid},
		{"G-single-process: a process misses its own write", "snapshot-isolation", Valid},
		{"G0-process", "read-uncommitted", Valid},
		{"G2-item-realtime", "serializable", Valid},
		{"G2-item-realtime", "strong-snapshot-isolation", Valid},
		{"G2-item-realtime", "strict-serializable", Invalid},
	}
	for _, tc := range cases {
		r := check(t, txns(t, appendCase(t, tc.history)...), la(tc.model))
		if r.Valid != tc.want {
			t.Errorf("%s under %s: %s, want %s\n%s", tc.history, tc.model, r.Valid, tc.want, r.Explanation)
		}
	}
}

func TestModelNames(t *testing.T) {
	ms := Models()
	if !slices.IsSorted(ms) || len(ms) != len(modelGraph) {
		t.Fatalf("Models() = %v", ms)
	}
	for alias, want := range modelAliases {
		if got, err := canonicalModel(alias); err != nil || got != want {
			t.Errorf("%s -> %s, %v; want %s", alias, got, err, want)
		}
	}
	if _, err := canonicalModel("eventual"); err == nil || !strings.Contains(err.Error(), "serializable") {
		t.Errorf("unknown model error should list the known ones: %v", err)
	}
}

func TestEdgeNeeds(t *testing.T) {
	cases := []struct {
		models, anomalies []string
		rt, pr            bool
	}{
		{[]string{"serializable"}, nil, false, false},
		{[]string{"strict-serializable"}, nil, true, false},
		{[]string{"strong-snapshot-isolation"}, nil, true, false},
		{[]string{"strong-session-serializable"}, nil, false, true},
		{[]string{"strong-session-serializable", "strict-serializable"}, nil, true, false},
		{[]string{"read-committed"}, []string{"G-single-process"}, false, true},
		// As Elle's additional-graphs: the realtime graph alone, since it
		// finds process cycles too.
		{[]string{"strict-serializable"}, []string{"G0-process"}, true, false},
		{nil, []string{"G1c-realtime"}, true, false},
		{nil, []string{"G2"}, false, false},
	}
	for _, tc := range cases {
		if rt, pr := edgeNeeds(prohibited(tc.models, tc.anomalies)); rt != tc.rt || pr != tc.pr {
			t.Errorf("%v %v: realtime %v process %v, want %v %v", tc.models, tc.anomalies, rt, pr, tc.rt, tc.pr)
		}
	}
}

// TestElleLattice holds the model lattice to the cases of Elle's own
// consistency_model_test.clj (converted; Elle is EPL-2.0, see
// cmd/faultline/testdata/elle/README), with Elle's names: the boundary is
// compared as reported (PL-SS is strong-serializable there, as in Elle's
// friendly-boundary). faultline adds one anomaly, garbage-read, which
// read-uncommitted forbids.
func TestElleLattice(t *testing.T) {
	set := func(xs ...string) []string { return slices.Sorted(slices.Values(xs)) }
	impossible := func(as ...string) []string {
		not, also := reportedBoundary(as)
		return set(append(not, also...)...)
	}
	t.Run("anomalies-prohibited-by read-committed", func(t *testing.T) {
		got := slices.Sorted(maps.Keys(prohibited([]string{"read-committed"}, nil)))
		want := set("dirty-update", "G1a", "G1b", "G1c", "G1", "G0", "PL-1-cycle-exists", "PL-2-cycle-exists",
			"cyclic-versions", "duplicate-elements", "incompatible-order", "future-read", "garbage-read")
		if !slices.Equal(got, want) {
			t.Errorf("got %v\nwant %v", got, want)
		}
	})
	impossibleCases := []struct {
		anomaly string
		want    []string
	}{
		{"G-single", set("consistent-view", "forward-consistent-view", "strong-serializable", "serializable", "snapshot-isolation",
			"strong-session-serializable", "strong-session-snapshot-isolation", "strong-snapshot-isolation", "update-serializable")},
		{"G-SI", set("snapshot-isolation", "serializable", "strong-serializable", "strong-session-serializable",
			"strong-session-snapshot-isolation", "strong-snapshot-isolation")},
		{"dirty-update", set("read-committed", "monotonic-atomic-view", "snapshot-isolation", "repeatable-read", "update-atomic",
			"serializable", "strong-serializable", "update-serializable", "cursor-stability", "forward-consistent-view",
			"consistent-view", "monotonic-view", "monotonic-snapshot-read", "causal-cerone", "parallel-snapshot-isolation",
			"prefix", "read-atomic", "strong-session-read-committed", "strong-session-serializable",
			"strong-session-snapshot-isolation", "strong-read-committed", "strong-snapshot-isolation")},
		{"internal", set("causal-cerone", "parallel-snapshot-isolation", "prefix", "read-atomic", "update-atomic", "serializable",
			"snapshot-isolation", "strong-serializable", "strong-session-serializable", "strong-session-snapshot-isolation",
			"strong-snapshot-isolation")},
	}
	for _, tc := range impossibleCases {
		if got := impossible(tc.anomaly); !slices.Equal(got, tc.want) {
			t.Errorf("anomalies->impossible-models %s:\n got %v\nwant %v", tc.anomaly, got, tc.want)
		}
	}
	boundaryCases := []struct {
		anomalies     []string
		not, alsoNot  []string
		checkAlsoNots bool
	}{
		{nil, nil, nil, true},
		{[]string{"cyclic-versions"}, set("read-uncommitted"), set("read-committed", "snapshot-isolation", "causal-cerone",
			"consistent-view", "cursor-stability", "forward-consistent-view", "monotonic-atomic-view", "monotonic-snapshot-read",
			"monotonic-view", "parallel-snapshot-isolation", "prefix", "read-atomic", "repeatable-read", "update-atomic",
			"serializable", "strong-read-committed", "strong-read-uncommitted", "strong-serializable",
			"strong-session-read-committed", "strong-session-read-uncommitted", "strong-session-serializable",
			"strong-session-snapshot-isolation", "strong-snapshot-isolation", "update-serializable"), true},
		{[]string{"internal"}, set("read-atomic"), set("causal-cerone", "parallel-snapshot-isolation", "prefix", "update-atomic",
			"serializable", "snapshot-isolation", "strong-serializable", "strong-session-serializable",
			"strong-session-snapshot-isolation", "strong-snapshot-isolation"), true},
		{[]string{"G1a"}, set("read-committed"), set("read-atomic", "update-atomic", "causal-cerone", "consistent-view",
			"cursor-stability", "forward-consistent-view", "monotonic-atomic-view", "monotonic-snapshot-read", "monotonic-view",
			"parallel-snapshot-isolation", "prefix", "repeatable-read", "serializable", "snapshot-isolation",
			"strong-read-committed", "strong-snapshot-isolation", "strong-serializable", "strong-session-read-committed",
			"strong-session-serializable", "strong-session-snapshot-isolation", "update-serializable"), true},
		{[]string{"G-single"}, set("consistent-view"), set("snapshot-isolation", "serializable", "strong-serializable",
			"strong-session-snapshot-isolation", "strong-snapshot-isolation", "strong-session-serializable",
			"forward-consistent-view", "update-serializable"), true},
		{[]string{"G2", "internal"}, set("read-atomic"), set("update-atomic", "causal-cerone", "parallel-snapshot-isolation",
			"prefix", "serializable", "snapshot-isolation", "strong-serializable", "strong-session-serializable",
			"strong-session-snapshot-isolation", "strong-snapshot-isolation"), true},
		{[]string{"lost-update"}, set("update-atomic", "cursor-stability"), nil, false},
		{[]string{"G-single-realtime"}, set("strong-snapshot-isolation"), set("strong-serializable"), true},
	}
	for _, tc := range boundaryCases {
		not, also := reportedBoundary(tc.anomalies)
		if !slices.Equal(not, tc.not) || tc.checkAlsoNots && !slices.Equal(also, tc.alsoNot) {
			t.Errorf("friendly-boundary %v:\n got not %v also %v\nwant not %v also %v", tc.anomalies, not, also, tc.not, tc.alsoNot)
		}
	}
	// all-impossible-models: nothing but itself and what implies it (Elle
	// answers in canonical names: PL-SS).
	if got := slices.Sorted(maps.Keys(closure([]string{"strong-session-serializable"}, func(m string) []string { return strongerModels[m] }))); !slices.Equal(got, canonicals(t, "strong-session-serializable", "PL-SS")) {
		t.Errorf("all-impossible-models strong-session-serializable = %v", got)
	}
	// all-implied-anomalies G-SI is just G-SI.
	if got := slices.Sorted(maps.Keys(closure([]string{"G-SI"}, func(a string) []string { return implies[a] }))); !slices.Equal(got, []string{"G-SI"}) {
		t.Errorf("all-implied-anomalies G-SI = %v", got)
	}
	// anomalies-prohibited-by of an unknown model is an error.
	if _, err := canonicalModel("stricct-snappshot-isolation"); err == nil || !strings.Contains(err.Error(), "unknown consistency model") {
		t.Errorf("unknown model: %v", err)
	}
}

// canonicals resolves model names, sorted.
func canonicals(t *testing.T, ms ...string) []string {
	t.Helper()
	out := make([]string, len(ms))
	for i, m := range ms {
		c, err := canonicalModel(m)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = c
	}
	slices.Sort(out)
	return out
}

// TestElleExtremeModels holds extremeModels to Elle's weakest-models-test
// and strongest-models-test (consistency_model_test.clj), whose inputs mix
// names and aliases and whose answers are friendly names.
func TestElleExtremeModels(t *testing.T) {
	cases := []struct {
		name    string
		weakest bool
		in      []string
		want    []string
	}{
		{"weakest empty", true, nil, nil},
		{"weakest simple", true, []string{"serializable", "strict-serializable"}, []string{"serializable"}},
		{"weakest independent", true, []string{"repeatable-read", "read-committed", "sequential", "read-your-writes"}, []string{"read-committed", "read-your-writes"}},
		{"weakest cerone-end-to-end", true, []string{"serializable", "read-atomic"}, []string{"read-atomic"}},
		{"weakest cerone-end-to-end reversed", true, []string{"read-atomic", "serializable"}, []string{"read-atomic"}},
		{"strongest empty", false, nil, nil},
		{"strongest simple", false, []string{"serializable", "strong-serializable", "strict-serializable"}, []string{"strong-serializable"}},
		{"strongest independent", false, []string{"repeatable-read", "read-committed", "sequential", "read-your-writes"}, []string{"repeatable-read", "sequential"}},
		{"strongest cerone-end-to-end", false, []string{"serializable", "read-atomic"}, []string{"serializable"}},
		{"strongest cerone-end-to-end reversed", false, []string{"read-atomic", "serializable"}, []string{"serializable"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := extremeModels(canonicals(t, tc.in...), tc.weakest)
			for i, m := range got {
				got[i] = elleName(m)
			}
			slices.Sort(got)
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

// elleImplied is Elle's implied-anomalies graph (consistency_model.clj),
// converted: an anomaly -> the anomalies its presence implies.
var elleImplied = map[string][]string{
	"G0": {"G1c", "G0-process"}, "G0-process": {"G1c-process", "G0-realtime"}, "G0-realtime": {"G1c-realtime"},
	"G1a": {"G1"}, "G1b": {"G1"}, "G1c": {"G1", "G1c-process"},
	"G1c-process": {"G1c-realtime", "G1-process"}, "G1c-realtime": {"G1-realtime"},
	"G1": {"G1-process"}, "G1-process": {"G1-realtime"},
	"G-single-item":               {"G-single", "G-single-item-process", "G-nonadjacent-item"},
	"G-single-item-process":       {"G-single-process", "G-single-item-realtime", "G-nonadjacent-item-process"},
	"G-single-item-realtime":      {"G-single-realtime", "G-nonadjacent-item-realtime"},
	"G-single":                    {"G-nonadjacent", "GSIb", "G-single-process"},
	"G-single-process":            {"G-nonadjacent-process", "G-single-realtime"},
	"G-single-realtime":           {"G-nonadjacent-realtime"},
	"G-nonadjacent-item":          {"G-nonadjacent", "G2-item", "G-nonadjacent-item-process"},
	"G-nonadjacent-item-process":  {"G-nonadjacent-process", "G2-item-process", "G-nonadjacent-item-realtime"},
	"G-nonadjacent-item-realtime": {"G2-item-realtime", "G-nonadjacent-realtime"},
	"G-nonadjacent":               {"G2", "G-nonadjacent-process"},
	"G-nonadjacent-process":       {"G2-process", "G-nonadjacent-realtime"},
	"G-nonadjacent-realtime":      {"G2-realtime"},
	"G2":                          {"G2-process"}, "G2-item": {"G2", "G2-item-process"}, "G2-item-process": {"G2-process", "G2-item-realtime"},
	"G2-item-realtime": {"G2-realtime"}, "G2-process": {"G2-realtime"},
	"GSIa": {"GSI"}, "GSIb": {"GSI"},
	"incompatible-order": {"G1a"}, "future-read": {"G1c"}, "dirty-update": {"G1a"},
	"lost-update": {"write-skew", "G2-item"}, "write-skew": {"G2"},
}

// elleAllAnomalies is Elle's all-anomalies (consistency_model_test.clj
// all-anomalies-test).
var elleAllAnomalies = strings.Fields(`G-MSR G-SI G-SIb G-cursor G-monotonic G-single-item G-update G0 G1b GSIa
	PL-1-cycle-exists PL-2-cycle-exists PL-2.99-cycle-exists PL-3-cycle-exists PL-SI-cycle-exists PL-SS-cycle-exists
	cyclic-versions dirty-update duplicate-elements future-read incompatible-order internal lost-update
	predicate-read-miss strong-PL-1-cycle-exists strong-PL-2-cycle-exists strong-session-PL-1-cycle-exists
	strong-session-PL-2-cycle-exists strong-session-serializable-cycle-exists
	strong-session-snapshot-isolation-cycle-exists strong-snapshot-isolation-cycle-exists G-nonadjacent-item
	G-single-item-process G1a G1c write-skew G-nonadjacent-item-process G-single G-single-item-realtime G1 G2-item
	G-nonadjacent G-nonadjacent-item-realtime GSIb G2 GSI G0-process G1c-process G-single-process G1-process
	G2-item-process G-nonadjacent-process G2-process G0-realtime G1c-realtime G-single-realtime G1-realtime
	G2-item-realtime G-nonadjacent-realtime G2-realtime`)

// TestElleAnomalies holds the anomaly tables to Elle's: every anomaly Elle
// knows can be named, and each implies exactly what it implies in Elle.
func TestElleAnomalies(t *testing.T) {
	for _, a := range elleAllAnomalies {
		if err := ValidateOptions(Options{Workload: ListAppend, Anomalies: []string{a}}); err != nil {
			t.Errorf("Elle's anomaly %s: %v", a, err)
		}
	}
	for _, a := range elleAllAnomalies {
		want := slices.Sorted(maps.Keys(closure([]string{a}, func(a string) []string { return elleImplied[a] })))
		got := slices.Sorted(maps.Keys(closure([]string{a}, func(a string) []string { return implies[a] })))
		if !slices.Equal(got, want) {
			t.Errorf("%s implies %v, Elle %v", a, got, want)
		}
	}
}

// TestReportedNames: the text names the models as the user asked for them,
// while Not and AlsoNot use Elle's reported names, as Elle's :not does.
func TestReportedNames(t *testing.T) {
	// One cycle, T0 -realtime-> T1 -rw-> T2 -rw-> T0: G2-item-realtime,
	// which only PL-SS forbids.
	ops := txns(t, "invoke 2 [[:append :x 1] [:r :y nil]]", "ok 0 [[:append :y 1]]", "ok 1 [[:r :x nil]]",
		"ok 2 [[:append :x 1] [:r :y nil]]", "ok 3 [[:r :x [1]] [:r :y [1]]]")
	cases := []struct{ model, against string }{
		{"PL-SS", "against PL-SS."},
		{"strict-serializable", "against strict-serializable."},
		{"strong-serializable", "against strong-serializable."},
	}
	for _, tc := range cases {
		r := check(t, ops, la(tc.model))
		if r.Valid != Invalid || !slices.Equal(r.AnomalyTypes, []string{"G2-item-realtime"}) {
			t.Fatalf("%s: %s %v\n%s", tc.model, r.Valid, r.AnomalyTypes, r.Explanation)
		}
		if !slices.Equal(r.Not, []string{"strong-serializable"}) || len(r.AlsoNot) != 0 {
			t.Errorf("%s: not %v also %v, want Elle's [strong-serializable]", tc.model, r.Not, r.AlsoNot)
		}
		if !strings.Contains(r.Explanation, tc.against) || !strings.Contains(r.Explanation, "Ruled out: strong-serializable.") {
			t.Errorf("%s: explanation should name the model as asked and Elle's ruled-out name:\n%s", tc.model, r.Explanation)
		}
	}
	if r := check(t, ops, la("PL-SS")); !strings.HasSuffix(r.Summary, "; not strong-serializable") {
		t.Errorf("summary %q", r.Summary)
	}
	r := check(t, txns(t, "ok 0 [[:append :x 1]]", "ok 1 [[:r :x [1]]]"), la("PL-SS"))
	if r.Valid != Valid || r.Summary != "valid: no anomaly PL-SS forbids in 2 txns over 1 key" {
		t.Errorf("valid summary %q", r.Summary)
	}
}
