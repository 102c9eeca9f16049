package check

import "testing"

// TestStarlarkSpecOracles builds the boundary, mutual-exclusion, prefix-order
// and replay-equivalence checkers from a script: each option reaches the Go
// checker (its str names it), and bad options are errors.
func TestStarlarkSpecOracles(t *testing.T) {
	g, err := exec(t, `
b = check.boundary()
b2 = check.boundary(tenant = "org", sep = ":", reads = ["get", "export"])
m = check.mutual_exclusion()
m2 = check.mutual_exclusion(acquire = ["lock"], release = ["unlock"], lease = "5s")
p = check.prefix_order(produce = ["enqueue"], views = ["poll"])
r = check.replay_equivalence(replay = "rebuild", final = "read_all")
`)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"b":  `check.boundary(tenant="tenant", sep="/", reads=["read", "get", "list", "scan", "export", "dump", "search"])`,
		"b2": `check.boundary(tenant="org", sep=":", reads=["get", "export"])`,
		"m":  `check.mutual_exclusion(acquire=["acquire", "lock"], release=["release", "unlock"])`,
		"m2": `check.mutual_exclusion(acquire=["lock"], release=["unlock"], lease="5s")`,
		"p":  `check.prefix_order(produce=["enqueue"], views=["poll"])`,
		"r":  `check.replay_equivalence(replay="rebuild", final="read_all")`,
	}
	for name, text := range want {
		if got := g[name].String(); got != text {
			t.Errorf("str(%s) = %s, want %s", name, got, text)
		}
		if _, err := FromStarlark(g[name]); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	for _, src := range []string{
		`check.boundary(reads = [1])`,
		`check.mutual_exclusion(lease = "-1s")`,
		`check.prefix_order(views = "read")`,
		`check.replay_equivalence(replay = "dump")`,
	} {
		if _, err := exec(t, "x = "+src); err == nil {
			t.Errorf("%s: no error", src)
		}
	}
}
