package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faultline/faultline/internal/clitest"
)

// markerSuite is a suite whose fault, written in Starlark, writes a marker
// file nothing reads: its verify proves the file, never an effect on the
// system (the in-process register), so only declared evidence of what the
// system saw can tell that it did nothing.
const markerSuite = `
def put(nodes):
    for n in nodes:
        n.exec(raw = "echo on > faultline-marker")

def remove(nodes):
    for n in nodes:
        n.exec(raw = "rm -f faultline-marker")

def look(nodes):
    found = {}
    for n in nodes:
        if n.exec(raw = "cat faultline-marker 2>/dev/null", check = False).stdout.strip() == "on":
            found[n.name] = "marker present"
    return found

suite = struct(
    nodes = ["n1", "n2", "n3"],
    db = None,
    client = client.register(),
    marker = nemesis.fault("marker", start = put, stop = remove, verify = look, heal = remove),
)
`

// markerPlan writes examples/inprocess/plan.md's S1 with the suite's marker
// fault as its nemesis, from a ```starlark block (block is its text), and
// "clients see timeouts during the fault window" as its declared landing
// evidence; it returns the plan's path.
func markerPlan(t *testing.T, block string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "examples", "inprocess", "plan.md"))
	if err != nil {
		t.Fatal(err)
	}
	src := string(data)
	src = src[:strings.Index(src, "### Scenario S2")] + src[strings.Index(src, "## 7b."):]
	for _, e := range [][2]string{
		{"- **Faults:** none", "- **Faults:** a marker file written on one node (a custom fault)"},
		{"- **Smoke budget:** 3 nodes, 10 s, 0 faults, 1 seed, ≥1k ops", "- **Smoke budget:** 3 nodes, 6 s, 1 faults, 1 seed, ≥100 ops"},
		{"- **Nemesis + landing evidence:** none — no fault is injected", "- **Nemesis + landing evidence:** clients see timeouts during the fault window"},
		{"- **Target test file:** `tests/faultline/S1_register_test.star`\n", "- **Target test file:** `tests/faultline/S1_register_test.star`\n\n```starlark\n" + block + "\n```\n"},
	} {
		if !strings.Contains(src, e[0]) {
			t.Fatalf("examples/inprocess/plan.md lacks %q", e[0])
		}
		src = strings.Replace(src, e[0], e[1], 1)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "faultline.star"), []byte(markerSuite), 0o644); err != nil {
		t.Fatal(err)
	}
	plan := filepath.Join(dir, "plan.md")
	if err := os.WriteFile(plan, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return plan
}

// A plan's declared landing evidence applies to a nemesis from a
// ```starlark block (issue 27 item 7): the compiled scenario carries it,
// and a fault whose only proof is a file nothing reads fails it instead
// of passing with "every fault landed".
func TestPlanBlockNemesisKeepsLanding(t *testing.T) {
	plan := markerPlan(t, `nemesis = suite.marker(nodes = "one", start = "1s", interval = "1500ms", hold = "1s")`)
	compiled := t.TempDir()
	if code, stdout, stderr := runCLI(t, "compile", plan, "--out", compiled); code != exitOK {
		t.Fatalf("compile: exit %d\n%s\n%s", code, stdout, stderr)
	}
	files, _ := filepath.Glob(filepath.Join(compiled, "S1_*.star"))
	if len(files) != 1 {
		t.Fatalf("compiled files %v", files)
	}
	if src, _ := os.ReadFile(files[0]); !strings.Contains(string(src), "landing = [evidence.op_errors(during_fault = True)]") {
		t.Errorf("the compiled scenario dropped the declared landing evidence:\n%s", src)
	}
	out := t.TempDir()
	code, stdout, stderr := runCLI(t, "run", plan, "--local", "--seed", "3", "--out", out, "--yes")
	if code != exitUnknown || !clitest.HasRow(stdout, "S1", "INCONCLUSIVE-fault-not-proven") {
		t.Fatalf("exit %d, want %d with S1 INCONCLUSIVE-fault-not-proven\n%s\n%s", code, exitUnknown, stdout, stderr)
	}
	finding, err := os.ReadFile(filepath.Join(clitest.OnlySession(t, filepath.Join(out, "inprocess-register")), "findings", "S1.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(finding), "0 client ops failed or timed out during faults") {
		t.Fatalf("findings/S1.md does not say the declared landing evidence was not seen:\n%s", finding)
	}
}

// A block that replaces the whole scenario and sets no landing would drop
// the declared evidence: lint refuses the plan at the block, saying what
// to add.
func TestPlanWholeBlockDroppingLandingRejected(t *testing.T) {
	plan := markerPlan(t, `load("faultline.star", "suite")
scenario(name = "S1", nodes = suite.nodes, client = suite.client, workload = suite.client,
         nemesis = suite.marker(nodes = "one"))`)
	code, stdout, stderr := runCLI(t, "lint", plan)
	if code != exitRejected || !strings.Contains(stdout, "[S1 Nemesis + landing evidence] the ```starlark block at line") ||
		!strings.Contains(stdout, "fix: add landing = [evidence.op_errors(during_fault = True)]") {
		t.Fatalf("lint: exit %d, want %d naming the dropped landing evidence\n%s\n%s", code, exitRejected, stdout, stderr)
	}
}
