package interp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faultline/faultline/control"
)

// A host key that is wrong or unknown fails the db cycle at once: another
// cycle would dial the same node and meet the same key. The error keeps
// the node, the key and the cause.
func TestDBCycleHostKeyNotRetried(t *testing.T) {
	for _, cause := range []error{control.ErrHostKeyMismatch, control.ErrHostKeyUnknown} {
		keyErr := fmt.Errorf("n2: ssh: handshake failed: %w: n2 presented ssh-ed25519 SHA256:abc, but known_hosts has SHA256:def for it", cause)
		calls := 0
		teardown := func(context.Context) error { calls++; return keyErr }
		setup := func(context.Context) error { calls++; return nil }
		cycles, err := dbCycle(context.Background(), 3, teardown, setup, func(string) {})
		if cycles != 1 || calls != 1 {
			t.Errorf("%v: %d cycles, %d calls; want one teardown and no retry", cause, cycles, calls)
		}
		if !errors.Is(err, cause) || !strings.Contains(err.Error(), "cannot succeed on a retry") || !strings.Contains(err.Error(), "n2 presented ssh-ed25519 SHA256:abc") {
			t.Errorf("%v: err %v", cause, err)
		}
	}
}

// dbCycle's decisions: teardown before every setup, no setup over a failed
// teardown, a bounded number of cycles, an early stop on cancel, and an
// error that names each cycle's failure.
func TestDBCycle(t *testing.T) {
	errTeardown := errors.New("teardown broke")
	errSetup := errors.New("setup broke")
	cases := []struct {
		name string
		// teardownFails and setupFails list the calls (1-based) that fail.
		teardownFails, setupFails []int
		cancelInSetup             int // cancel the context during this setup call (0: never)
		wantCalls                 string
		wantCycles                int
		wantErr                   []string // substrings; none: success
		wantNotes                 []string
	}{
		{name: "clean first time", wantCalls: "T S", wantCycles: 1,
			wantNotes: []string{"db cycle 1/3: teardown on every node: ok", "db cycle 1/3: setup on every node: ok"}},
		{name: "setup fails once", setupFails: []int{1}, wantCalls: "T S T S", wantCycles: 2,
			wantNotes: []string{"db cycle 1/3: setup failed", "setup broke", "db cycle 2/3: setup on every node: ok"}},
		{name: "failed teardown skips its setup", teardownFails: []int{1}, wantCalls: "T T S", wantCycles: 2,
			wantNotes: []string{"db cycle 1/3: teardown failed", "db cycle 2/3: setup on every node: ok"}},
		{name: "setup always fails", setupFails: []int{1, 2, 3}, wantCalls: "T S T S T S", wantCycles: 3,
			wantErr: []string{"db setup failed 3 times (each time: teardown on every node, then setup): cycles 1, 2, 3: setup broke"}},
		{name: "teardown always fails", teardownFails: []int{1, 2, 3}, wantCalls: "T T T", wantCycles: 3,
			wantErr: []string{"db setup failed 3 times", "cycles 1, 2, 3: teardown broke"}},
		{name: "different failures", teardownFails: []int{1}, setupFails: []int{1, 2}, wantCalls: "T T S T S", wantCycles: 3,
			wantErr: []string{"db setup failed 3 times (each time: teardown on every node, then setup): cycle 1: teardown broke; cycles 2, 3: setup broke"}},
		{name: "last cycle succeeds", teardownFails: []int{1}, setupFails: []int{1}, wantCalls: "T T S T S", wantCycles: 3},
		{name: "cancelled during setup", cancelInSetup: 1, wantCalls: "T S", wantCycles: 1,
			wantErr: []string{"db setup interrupted", "cycle 1: setup broke"}, wantNotes: []string{"db cycle 1/3: stopped"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var calls []string
			var nTeardown, nSetup int
			teardown := func(context.Context) error {
				nTeardown++
				calls = append(calls, "T")
				for _, n := range c.teardownFails {
					if n == nTeardown {
						return errTeardown
					}
				}
				return nil
			}
			setup := func(context.Context) error {
				nSetup++
				calls = append(calls, "S")
				if nSetup == c.cancelInSetup {
					cancel()
					return errSetup
				}
				for _, n := range c.setupFails {
					if n == nSetup {
						return errSetup
					}
				}
				return nil
			}
			var notes []string
			cycles, err := dbCycle(ctx, 3, teardown, setup, func(s string) { notes = append(notes, s) })
			if got := strings.Join(calls, " "); got != c.wantCalls {
				t.Errorf("calls %q, want %q", got, c.wantCalls)
			}
			if cycles != c.wantCycles {
				t.Errorf("cycles %d, want %d", cycles, c.wantCycles)
			}
			if len(c.wantErr) == 0 && err != nil {
				t.Errorf("err %v, want none", err)
			}
			if len(c.wantErr) > 0 && err == nil {
				t.Errorf("no error, want one containing %q", c.wantErr)
			}
			if err != nil && !errors.Is(err, errSetup) && !errors.Is(err, errTeardown) {
				t.Errorf("err %v wraps neither failure", err)
			}
			for _, w := range c.wantErr {
				if err != nil && !strings.Contains(err.Error(), w) {
					t.Errorf("err %q lacks %q", err, w)
				}
			}
			all := strings.Join(notes, "\n")
			for _, w := range c.wantNotes {
				if !strings.Contains(all, w) {
					t.Errorf("notes lack %q:\n%s", w, all)
				}
			}
		})
	}
}

// dbCycleScript is a recipe that keeps its "data" in a directory per node
// under root, as a real db keeps its data dir: setup refuses to start over
// data it finds (the earlier run's), writes its own, and records every
// call in root/calls-<node>. A node named in flaky fails its first setup.
const dbCycleScript = `
root = %q
flaky = %q

def record(node, what):
    node.exec("sh", "-c", 'echo "$1" >> "$2"', "rec", what, root + "/calls-" + node.name)

def setup(node):
    record(node, "setup")
    data = root + "/data-" + node.name
    if node.exists(data):
        fail("setup on %%s found data of an earlier run" %% node.name)
    if node.name == flaky and not node.exists(root + "/flaked"):
        node.exec("touch", root + "/flaked")
        node.exec("touch", data)  # a half-done setup leaves data behind
        fail("setup of " + node.name + " failed this once")
    node.exec("touch", data)

def teardown(node):
    record(node, "teardown")
    node.exec("rm", "-f", root + "/data-" + node.name)

scenario(name = "d", client = client.register(), workload = gen.limit(5, {"f": "read"}),
         checker = check.stats(), time = "real",
         db = struct(setup = setup, teardown = teardown))
`

// A run starts from a clean db: data an earlier run left is torn down
// before setup, a setup that fails once is retried after another teardown,
// and the run's db-cycle.log says what happened.
func TestRunDBStartsClean(t *testing.T) {
	for _, flaky := range []string{"", "n2"} {
		t.Run("flaky="+flaky, func(t *testing.T) {
			root := t.TempDir()
			// An earlier run, killed before its teardown, left data on n1.
			if err := os.WriteFile(filepath.Join(root, "data-n1"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
			pool, err := control.NewPool([]control.Node{{Name: "n1", Host: "n1"}, {Name: "n2", Host: "n2"}}, control.LocalDialer())
			if err != nil {
				t.Fatal(err)
			}
			defer pool.Close()
			dir := writeFiles(t, map[string]string{"main.star": fmt.Sprintf(dbCycleScript, root, flaky)})
			script, err := Load(context.Background(), filepath.Join(dir, "main.star"), LoadOptions{Pool: pool})
			if err != nil {
				t.Fatal(err)
			}
			out := t.TempDir()
			r, err := Run(context.Background(), script.Scenarios[0], RunOptions{Seed: 1, Dir: out, Pool: pool})
			if err != nil || r.Summary.OK < 1 || len(r.Problems) > 0 {
				t.Fatalf("Run: %v, result %+v", err, r)
			}
			for _, n := range []string{"n1", "n2"} {
				want := "teardown setup teardown"
				if flaky != "" {
					// A failed cycle is retried on every node, not only the one that failed.
					want = "teardown setup teardown setup teardown"
				}
				data, err := os.ReadFile(filepath.Join(root, "calls-"+n))
				if err != nil {
					t.Fatal(err)
				}
				if got := strings.Join(strings.Fields(string(data)), " "); got != want {
					t.Errorf("%s: calls %q, want %q", n, got, want)
				}
				if _, err := os.Stat(filepath.Join(root, "data-"+n)); err == nil {
					t.Errorf("%s: data left after the run's teardown", n)
				}
			}
			rec, err := os.ReadFile(filepath.Join(out, dbCycleFile))
			if err != nil {
				t.Fatal(err)
			}
			wants := []string{"db cycle 1/3: teardown on every node: ok", "db teardown after the run: ok"}
			if flaky != "" {
				wants = append(wants, "db cycle 1/3: setup failed", "setup of n2 failed this once", "db cycle 2/3: setup on every node: ok")
			} else {
				wants = append(wants, "db cycle 1/3: setup on every node: ok")
			}
			for _, w := range wants {
				if !strings.Contains(string(rec), w) {
					t.Errorf("%s lacks %q:\n%s", dbCycleFile, w, rec)
				}
			}
		})
	}
}

// A teardown that cannot cope with nothing being there fails the run with
// a message that says why it now matters.
func TestRunDBTeardownMustBeIdempotent(t *testing.T) {
	s := loadOneWithPool(t, `
def teardown(node):
    node.exec("rm", "/nonexistent/faultline-never-there")

scenario(name = "d", client = client.register(), workload = gen.limit(1, {"f": "read"}),
         checker = check.stats(), time = "real", db = struct(setup = lambda n: None, teardown = teardown))
`)
	_, err := Run(context.Background(), s.scenario, RunOptions{Seed: 1, Dir: t.TempDir(), Pool: s.pool})
	if err == nil || !strings.Contains(err.Error(), "db setup failed 3 times") ||
		!strings.Contains(err.Error(), "teardown runs before setup as well, so it must succeed where nothing is set up") {
		t.Fatalf("Run: %v, want the teardown failure explained", err)
	}
}

type scenarioOnPool struct {
	scenario *Scenario
	pool     *control.Pool
}

// loadOneWithPool loads a one-scenario script with a pool of two local
// nodes (commands run on this host).
func loadOneWithPool(t *testing.T, src string) scenarioOnPool {
	t.Helper()
	pool, err := control.NewPool([]control.Node{{Name: "n1", Host: "n1"}, {Name: "n2", Host: "n2"}}, control.LocalDialer())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pool.Close() })
	dir := writeFiles(t, map[string]string{"main.star": src})
	script, err := Load(context.Background(), filepath.Join(dir, "main.star"), LoadOptions{Pool: pool})
	if err != nil {
		t.Fatal(err)
	}
	return scenarioOnPool{script.Scenarios[0], pool}
}

// TeardownEverywhere (faultline heal --session) saves the recipe's logs and
// runs its teardown on every node; a log that is not there is noted, not fatal.
func TestTeardownEverywhere(t *testing.T) {
	root := t.TempDir()
	logFile := filepath.Join(root, "db.log")
	if err := os.WriteFile(logFile, []byte("last words\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := loadOneWithPool(t, fmt.Sprintf(`
def teardown(node):
    node.exec("touch", %q + "/torn-" + node.name)

scenario(name = "d", client = client.register(), workload = gen.limit(1, {"f": "read"}),
         checker = check.stats(), db = struct(setup = lambda n: None, teardown = teardown, logs = [%q, %q]))
`, root, logFile, filepath.Join(root, "missing.log")))
	out := t.TempDir()
	var notes []string
	if err := s.scenario.DB.TeardownEverywhere(context.Background(), s.pool, nil, out, func(m string) { notes = append(notes, m) }); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"n1", "n2"} {
		if _, err := os.Stat(filepath.Join(root, "torn-"+n)); err != nil {
			t.Errorf("teardown did not run on %s", n)
		}
		if data, err := os.ReadFile(filepath.Join(out, "logs", n, "db.log")); err != nil || string(data) != "last words\n" {
			t.Errorf("log of %s: %q, %v", n, data, err)
		}
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "missing.log") {
		t.Errorf("notes %q, want one naming the missing log", notes)
	}
}
