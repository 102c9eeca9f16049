package interp

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faultline/faultline/control"
)

func TestScenarioDBRecipe(t *testing.T) {
	const base = `
def f(node): pass
scenario(name = "d", client = client.register(), workload = gen.limit(1, {"f": "read"}),
         checker = check.stats(), db = %s)
`
	cases := []struct {
		name, db, wantErr string
		wantLogs          int
		wantPrimaries     bool
	}{
		{"minimal", `struct(setup = f, teardown = f)`, "", 0, false},
		{"full", `struct(setup = f, teardown = f, primaries = lambda: [], logs = ["/a", "/b"])`, "", 2, true},
		{"no teardown", `struct(setup = f)`, "db has no teardown", 0, false},
		{"not callable", `struct(setup = f, teardown = 1)`, "db.teardown must be callable", 0, false},
		{"bad logs", `struct(setup = f, teardown = f, logs = [1])`, "db.logs", 0, false},
		{"not a struct", `1`, "db must be a struct", 0, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := writeFiles(t, map[string]string{"main.star": strings.Replace(base, "%s", c.db, 1)})
			script, err := Load(context.Background(), dir+"/main.star", LoadOptions{})
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("Load: %v, want an error containing %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			d := script.Scenarios[0].DB
			if d == nil || len(d.Logs) != c.wantLogs || (d.Primaries != nil) != c.wantPrimaries {
				t.Fatalf("db = %+v, want %d logs, primaries %t", d, c.wantLogs, c.wantPrimaries)
			}
		})
	}
}

// A db recipe needs nodes to run on; the run refuses before doing anything.
func TestRunDBNeedsNodes(t *testing.T) {
	s := loadOne(t, `
scenario(name = "d", client = client.register(), workload = gen.limit(1, {"f": "read"}),
         checker = check.stats(), db = struct(setup = lambda n: None, teardown = lambda n: None))
`, 1)
	_, err := Run(context.Background(), s, RunOptions{Seed: 1, Dir: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "--nodes") {
		t.Fatalf("Run without nodes: %v, want an error naming --nodes", err)
	}
}

// dbLocalScript sets up and tears down by touching marker files in dir; a
// node named in fail makes setup fail there.
const dbLocalScript = `
def setup(node):
    if node.name == %q:
        fail("setup refused on " + node.name)
    node.exec("touch", %q + "/setup-" + node.name)

def teardown(node):
    node.exec("touch", %q + "/teardown-" + node.name)

scenario(name = "d", client = client.register(), workload = gen.limit(5, {"f": "read"}),
         checker = check.stats(), time = "real",
         db = struct(setup = setup, teardown = teardown, logs = [%q]))
`

// Setup runs on every node before the workload, teardown on every node
// afterwards (even when setup failed), and the recipe's logs are saved per node.
func TestRunDBLifecycle(t *testing.T) {
	for _, failOn := range []string{"", "n2"} {
		t.Run("fail="+failOn, func(t *testing.T) {
			marks := t.TempDir()
			logFile := filepath.Join(marks, "db.log")
			if err := os.WriteFile(logFile, []byte("hello\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			pool, err := control.NewPool([]control.Node{{Name: "n1", Host: "n1"}, {Name: "n2", Host: "n2"}}, control.LocalDialer())
			if err != nil {
				t.Fatal(err)
			}
			defer pool.Close()
			src := fmt.Sprintf(dbLocalScript, failOn, marks, marks, logFile)
			dir := writeFiles(t, map[string]string{"main.star": src})
			script, err := Load(context.Background(), filepath.Join(dir, "main.star"), LoadOptions{Pool: pool})
			if err != nil {
				t.Fatal(err)
			}
			out := t.TempDir()
			r, err := Run(context.Background(), script.Scenarios[0], RunOptions{Seed: 1, Dir: out, Pool: pool})
			if failOn != "" {
				if err == nil || !strings.Contains(err.Error(), "setup refused on n2") {
					t.Fatalf("Run: %v, want the setup failure", err)
				}
			} else if err != nil || r.Summary.OK < 1 {
				t.Fatalf("Run: %v, result %+v", err, r)
			}
			for _, n := range []string{"n1", "n2"} {
				if _, err := os.Stat(filepath.Join(marks, "teardown-"+n)); err != nil {
					t.Errorf("teardown did not run on %s", n)
				}
				data, err := os.ReadFile(filepath.Join(out, "logs", n, "db.log"))
				if err != nil || string(data) != "hello\n" {
					t.Errorf("log of %s: %q, %v", n, data, err)
				}
			}
			if _, err := os.Stat(filepath.Join(marks, "setup-n1")); err != nil {
				t.Error("setup did not run on n1")
			}
		})
	}
}

// dbLeaveScript's setup removes the teardown mark, so the mark exists
// after a run only when the teardown after the run happened.
const dbLeaveScript = `
def setup(node):
    node.exec("rm", "-f", %[1]q + "/teardown-" + node.name)
    node.exec("touch", %[1]q + "/setup-" + node.name)

def teardown(node):
    node.exec("touch", %[1]q + "/teardown-" + node.name)

scenario(name = "d", client = client.register(), workload = gen.limit(5, {"f": "read"}),
         checker = check.stats(), time = "real",
         db = struct(setup = setup, teardown = teardown, logs = [%[2]q]))
`

// TestRunLeaveDBRunning: with LeaveDBRunning the db is set up, its logs
// saved, and not torn down after the run; the result and db-cycle.log say
// so. Without it, the teardown runs.
func TestRunLeaveDBRunning(t *testing.T) {
	for _, leave := range []bool{false, true} {
		t.Run(fmt.Sprintf("leave=%v", leave), func(t *testing.T) {
			marks := t.TempDir()
			logFile := filepath.Join(marks, "db.log")
			if err := os.WriteFile(logFile, []byte("hello\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			pool, err := control.NewPool([]control.Node{{Name: "n1", Host: "n1"}, {Name: "n2", Host: "n2"}}, control.LocalDialer())
			if err != nil {
				t.Fatal(err)
			}
			defer pool.Close()
			dir := writeFiles(t, map[string]string{"main.star": fmt.Sprintf(dbLeaveScript, marks, logFile)})
			script, err := Load(context.Background(), filepath.Join(dir, "main.star"), LoadOptions{Pool: pool})
			if err != nil {
				t.Fatal(err)
			}
			out := t.TempDir()
			r, err := Run(context.Background(), script.Scenarios[0], RunOptions{Seed: 1, Dir: out, Pool: pool, LeaveDBRunning: leave})
			if err != nil {
				t.Fatal(err)
			}
			if r.DBLeftRunning != leave {
				t.Errorf("DBLeftRunning = %v, want %v", r.DBLeftRunning, leave)
			}
			for _, n := range []string{"n1", "n2"} {
				_, err := os.Stat(filepath.Join(marks, "teardown-"+n))
				if tornDown := err == nil; tornDown == leave {
					t.Errorf("%s: torn down after the run: %v, want %v", n, tornDown, !leave)
				}
				if _, err := os.Stat(filepath.Join(out, "logs", n, "db.log")); err != nil {
					t.Errorf("%s: logs not saved: %v", n, err)
				}
			}
			cycle, _ := os.ReadFile(filepath.Join(out, dbCycleFile))
			if got := strings.Contains(string(cycle), "skipped (--leave-db-running)"); got != leave {
				t.Errorf("db-cycle.log says skipped: %v, want %v:\n%s", got, leave, cycle)
			}
		})
	}
}
