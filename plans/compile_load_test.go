package plans

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faultline/faultline/interp"
)

// loadSuite is an in-process suite for compiled files: the reference
// register, no db, three node names.
const loadSuite = `suite = struct(nodes = ["n1", "n2", "n3"], db = None, client = client.register())
`

// A complete plan with a tenant-isolation scenario split into arms and an
// SLO scenario lints clean and compiles with no diagnostic; every compiled
// file loads in the interpreter, each arm under a scenario name with no
// slash, and the oracles became the spec's checkers.
func TestTenantIsolationPlanCompilesAndLoads(t *testing.T) {
	path := filepath.Join("testdata", "tenant-isolation.md")
	p, ds := parseFile(t, path)
	if ds = append(ds, Lint(p)...); len(ds) != 0 {
		t.Fatalf("lint: want no diagnostics, got:\n%s", diagStrings(ds))
	}
	cs, cds := compileFile(t, path, CompileOptions{})
	if len(cds) != 0 {
		t.Fatalf("compile: want no diagnostics, got:\n%s", diagStrings(cds))
	}
	want := map[string][]string{
		"S1/api":      {`name = "S1_api"`, `workload = gen.stagger("2ms", tenants(tenants = ["acme", "acme-corp", "Acme"], keys = 4))`, "check.boundary()"},
		"S1/register": {`name = "S1_register"`, `check.linearizable(model = "cas-register")`},
		"S2":          {`name = "S2"`, `check.linearizable(model = "register")`, `check.slo(p99 = "200ms", error_rate = 0.01)`},
	}
	if len(cs) != len(want) {
		t.Fatalf("compiled %d units, want %d", len(cs), len(want))
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "faultline.star"), []byte(loadSuite), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range cs {
		wantIn(t, c, want[c.ID]...)
		file := filepath.Join(dir, c.File)
		if err := os.WriteFile(file, []byte(c.Source), 0o644); err != nil {
			t.Fatal(err)
		}
		script, err := interp.Load(context.Background(), file, interp.LoadOptions{Seed: 1})
		if err != nil {
			t.Fatalf("%s (%s) does not load: %v\n%s", c.ID, c.File, err, c.Source)
		}
		if len(script.Scenarios) != 1 || script.Scenarios[0].Name != ScenarioName(c.ID) || strings.Contains(script.Scenarios[0].Name, "/") {
			t.Errorf("%s: loaded scenarios %v", c.ID, script.Scenarios)
		}
	}
	if got := p.Surfaces("S1/api"); len(got) != 2 || got[0] != "register API" {
		t.Errorf("Surfaces(S1/api) = %q", got)
	}
	if got := p.Surfaces("S2"); got != nil {
		t.Errorf("Surfaces(S2) = %q, want none", got)
	}
}

func TestScenarioName(t *testing.T) {
	for id, want := range map[string]string{"S1": "S1", "S1/api": "S1_api", "S12/bulk-export": "S12_bulk-export"} {
		if got := ScenarioName(id); got != want {
			t.Errorf("ScenarioName(%q) = %q, want %q", id, got, want)
		}
	}
}

// Every spec oracle family compiles to a checker call the interpreter
// accepts: the generated arguments match the check.* bindings.
func TestSpecOraclesLoad(t *testing.T) {
	tests := []struct{ workload, oracle, want string }{
		{"tenants, 4 keys each", "tenant B's keys never appear in any response", "check.boundary()"},
		{"tenants", "0 cross-tenant reads, with positive and negative controls", "check.boundary()"},
		{"register", "p99 < 200ms and error rate < 1%", `check.slo(p99 = "200ms", error_rate = 0.01)`},
		{"register", "PUT p99.9 ≤ 1 s over 10 s windows", `check.slo(p999 = "1s", window = "10s", f = ["write", "put", "cas"])`},
		{"tenants", "worst_group_p99 / aggregate_p99 <= 3 per tenant, min_group_throughput >= 5, error_rate_by_group == 0, repeat_spread <= 20%",
			`check.fairness(group = "tenant", max_p99_ratio = 3, min_throughput = 5, max_error_rate = 0, repeat = "repeat", max_spread = 0.2)`},
		{"register", "prefix order of every consumer view", "check.prefix_order()"},
		{"register", "replay equivalence from the last snapshot", "check.replay_equivalence()"},
		{"register", "mutual exclusion: at most one lock holder", "check.mutual_exclusion()"},
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "faultline.star"), []byte(loadSuite), 0o644); err != nil {
		t.Fatal(err)
	}
	for i, tt := range tests {
		t.Run(tt.oracle, func(t *testing.T) {
			c, ds := compileUnit(t, unitPlan{workload: tt.workload, oracle: tt.oracle})
			wantIn(t, c, tt.want)
			if HasErrors(ds) {
				t.Fatalf("compile errors:\n%s", diagStrings(ds))
			}
			file := filepath.Join(dir, fmt.Sprintf("u%d.star", i))
			if err := os.WriteFile(file, []byte(c.Source), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := interp.Load(context.Background(), file, interp.LoadOptions{Seed: 1}); err != nil {
				t.Fatalf("does not load: %v\n%s", err, c.Source)
			}
		})
	}
}
