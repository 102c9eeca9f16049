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
	if len(graph) != len(modelGraph)-1 { // read-uncommitted implies nothing
		t.Errorf("doc hierarchy has %d models, code %d", len(graph), len(modelGraph)-1)
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
		{"repeatable-read", []string{"G2-item", "G-single", "G-nonadjacent", "lost-update"}, []string{"internal", "G2-item-process"}},
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
	if p := prohibited([]string{"read-committed"}, []string{"G2-item"}); !p["G-single"] || !p["lost-update"] {
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
		{[]string{"G-single"}, []string{"repeatable-read", "snapshot-isolation"}, []string{"serializable"}},
		{[]string{"G2-item"}, []string{"repeatable-read"}, []string{"serializable"}},
		{[]string{"lost-update"}, []string{"cursor-stability"}, []string{"repeatable-read", "snapshot-isolation"}},
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
		{[]string{"strict-serializable"}, []string{"G0-process"}, true, true},
	}
	for _, tc := range cases {
		if rt, pr := edgeNeeds(tc.models, tc.anomalies); rt != tc.rt || pr != tc.pr {
			t.Errorf("%v %v: realtime %v process %v, want %v %v", tc.models, tc.anomalies, rt, pr, tc.rt, tc.pr)
		}
	}
}
