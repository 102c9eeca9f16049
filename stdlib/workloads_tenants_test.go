package stdlib_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faultline/faultline/check"
	"github.com/faultline/faultline/history"
	"github.com/faultline/faultline/interp"
)

// runTenants runs the tenants workload against client and checker in
// simulated time.
func runTenants(t *testing.T, client, checker string) *interp.Result {
	t.Helper()
	src := `
load("@stdlib//workloads.star", "tenants")
scenario(name = "t", client = ` + client + `, workload = gen.stagger("1ms", tenants(tenants = ["acme", "acme-corp", "Acme"], keys = 3, cross = 0.25)),
         checker = ` + checker + `, concurrency = 3, budgets = {"smoke": budget(duration = "5s")})
`
	dir := t.TempDir()
	path := filepath.Join(dir, "t.star")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	script, err := interp.Load(context.Background(), path, interp.LoadOptions{Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	res, err := interp.Run(context.Background(), script.Scenarios[0], interp.RunOptions{Seed: 7, Dir: filepath.Join(dir, "run")})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// Every op names its issuing tenant and a key "<owner>/<n>"; some target
// another tenant; writes carry the issuer's name in their value.
func TestTenantsWorkloadShape(t *testing.T) {
	res := runTenants(t, "client.noop()", "check.stats()")
	own, cross := 0, 0
	for _, op := range res.Ops {
		if op.Type != history.Invoke || op.Process < 0 {
			continue
		}
		who, _ := op.Extra["tenant"].(string)
		key, _ := op.Key.(string)
		owner, _, ok := strings.Cut(key, "/")
		if who == "" || !ok {
			t.Fatalf("op %d: tenant %v, key %v", op.Index, op.Extra["tenant"], op.Key)
		}
		if owner == who {
			own++
		} else {
			cross++
		}
		if v, isStr := op.Value.(string); op.F == "write" && (!isStr || !strings.HasPrefix(v, who+"/v")) {
			t.Fatalf("op %d: write by %s carries %v", op.Index, who, op.Value)
		}
	}
	if own == 0 || cross == 0 || cross > own {
		t.Fatalf("own %d, cross %d: want both, mostly own", own, cross)
	}
}

// The in-process register has no tenant isolation: a cross-tenant read gets
// the other tenant's value, and check.boundary says so.
func TestTenantsWorkloadCatchesUnisolatedStore(t *testing.T) {
	res := runTenants(t, "client.register()", "check.boundary()")
	if res.Check.Valid != check.Invalid || !strings.Contains(res.Check.Summary, "cross-tenant leaks") {
		t.Fatalf("boundary on an unisolated store: %s: %s", res.Check.Valid, res.Check.Summary)
	}
}
