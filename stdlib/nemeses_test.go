package stdlib_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/interp"
	"github.com/faultline/faultline/nemesis"
)

// loadNemesis loads a scenario whose nemesis is expr (over @stdlib//
// nemeses.star and the demo store's recipe, db) and returns its package.
func loadNemesis(t *testing.T, expr string, seed uint64) (*nemesis.Package, error) {
	t.Helper()
	src := fmt.Sprintf(`
load("@stdlib//nemeses.star", "combined", "partition_package", "kill_package", "pause_package", "packet_package",
     "bandwidth_package", "file_corruption_package")
load("@stdlib//db/demo.star", "demo_store")
db = demo_store()
scenario(name = "n", client = client.noop(), workload = gen.limit(1, {"f": "read"}), checker = check.stats(),
         nemesis = %s)
`, expr)
	path := filepath.Join(t.TempDir(), "n.star")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	script, err := interp.Load(context.Background(), path, interp.LoadOptions{Seed: seed})
	if err != nil {
		return nil, err
	}
	return script.Scenarios[0].Nemesis, nil
}

func mustNemesis(t *testing.T, expr string, seed uint64) *nemesis.Package {
	t.Helper()
	p, err := loadNemesis(t, expr, seed)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// combined composes one cycle per (fault, target): each fault's inject is
// followed by its own end, each cycle first fires in its own slot of the
// round (about one interval apart, at a seeded offset), and every target
// spec is scheduled for every fault.
func TestCombinedSchedule(t *testing.T) {
	p := mustNemesis(t, `combined(faults = ["partition", "kill", "pause"], targets = ["one", "majority"], db = db,
                                interval = "10s", hold = "4s", seed = 7)`, 1)
	ops, err := p.Preview(3 * time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	ends := map[string]string{"start-partition": "stop-partition", "kill": "start", "pause": "resume"}
	open := map[string]int{}
	count := map[string]int{}
	for _, op := range ops {
		if end, ok := ends[op.F]; ok {
			open[end]++
			count[op.F]++
		} else if op.F != "heal" {
			if open[op.F] == 0 {
				t.Errorf("%s at %s with no open fault it ends", op.F, op.At)
			}
			open[op.F]--
		}
	}
	for inject := range ends {
		// 6 cycles share a 60s round: each fires about 3 times in 3 minutes,
		// twice per fault (one per target).
		if count[inject] < 4 {
			t.Errorf("%s injected %d times in 3 minutes, want >= 4 (two targets, 6 cycles per 60s round)", inject, count[inject])
		}
	}
	if ops[len(ops)-1].F != "heal" {
		t.Errorf("last op %s, want the final heal", ops[len(ops)-1].F)
	}

	planned := p.Planned(3 * time.Minute)
	first := map[string]time.Duration{}
	targets := map[string][]string{}
	for _, pl := range planned {
		key := fmt.Sprintf("%s %v", pl.Fault, pl.Targets)
		if _, seen := first[key]; !seen {
			first[key] = pl.At
		}
		spec := fmt.Sprint(pl.Targets)
		if m, ok := pl.Targets.(map[string]any); ok {
			spec = fmt.Sprint(m["nodes"])
		}
		if !slices.Contains(targets[pl.Fault], spec) {
			targets[pl.Fault] = append(targets[pl.Fault], spec)
		}
		if pl.Hold != 4*time.Second {
			t.Errorf("%s held %s, want 4s", pl.Name(), pl.Hold)
		}
	}
	if len(first) != 6 {
		t.Fatalf("%d cycles %v, want 6 (3 faults x 2 targets)", len(first), first)
	}
	starts := slices.Sorted(func(yield func(time.Duration) bool) {
		for _, at := range first {
			if !yield(at) {
				return
			}
		}
	})
	for i, at := range starts {
		lo := time.Duration(i+1) * 10 * time.Second
		if at < lo || at >= lo+10*time.Second {
			t.Errorf("cycle %d first fires at %s, want within its slot [%s, %s)", i, at, lo, lo+10*time.Second)
		}
	}
	for _, f := range []string{"start-partition", "kill", "pause"} {
		slices.Sort(targets[f])
		if !slices.Equal(targets[f], []string{"majority", "one"}) {
			t.Errorf("%s targets %v, want majority and one", f, targets[f])
		}
	}
}

// The spacing is drawn from the seed: seed = N alone decides it; without
// it, the run's seed does (so a replay, loading with the recorded seed,
// schedules the same).
func TestCombinedSeededSpacing(t *testing.T) {
	sched := func(expr string, seed uint64) string {
		t.Helper()
		var b strings.Builder
		for _, pl := range mustNemesis(t, expr, seed).Planned(2 * time.Minute) {
			fmt.Fprintln(&b, pl.Name())
		}
		return b.String()
	}
	const fixed = `combined(faults = ["partition", "pause"], db = db, seed = %d)`
	if sched(fmt.Sprintf(fixed, 1), 1) != sched(fmt.Sprintf(fixed, 1), 2) {
		t.Error("seed = 1 scheduled differently under two run seeds")
	}
	if sched(fmt.Sprintf(fixed, 1), 1) == sched(fmt.Sprintf(fixed, 2), 1) {
		t.Error("seeds 1 and 2 scheduled the same")
	}
	const run = `combined(faults = ["partition", "pause"], db = db)`
	if sched(run, 5) != sched(run, 5) {
		t.Error("the same run seed scheduled differently")
	}
	if sched(run, 5) == sched(run, 6) {
		t.Error("run seeds 5 and 6 scheduled the same")
	}
}

// Every fault combined offers maps to its built-in: packet is loss (or
// delay), bandwidth a limit, file-corruption a bit flip, on the node
// targets; minority-third and all are node specs, and a partition leaves
// "all" out.
func TestCombinedEveryFault(t *testing.T) {
	p := mustNemesis(t, `combined(faults = ["partition", "kill", "pause", "packet", "bandwidth", "file-corruption"],
                                targets = ["minority-third", "all"], db = db, corrupt_path = "demo/data/raft.db", seed = 3)`, 1)
	var got []string
	for _, pl := range p.Planned(time.Minute) {
		got = append(got, fmt.Sprintf("%s %v", pl.Fault, pl.Targets))
	}
	want := map[string]int{"start-partition minority-third": 0, "kill": 0, "pause": 0, "start-loss": 0, "start-bandwidth": 0, "bitflip-file": 0}
	for _, g := range got {
		for w := range want {
			if strings.HasPrefix(g, w) {
				want[w]++
			}
		}
		if strings.HasPrefix(g, "start-partition") && strings.Contains(g, "all") {
			t.Errorf("a partition of %q: all is no partition spec", g)
		}
	}
	for w, n := range want {
		if n == 0 {
			t.Errorf("no %s… in the schedule %v", w, got)
		}
	}
	d := mustNemesis(t, `combined(faults = ["packet"], packet_delay = "50ms", seed = 1)`, 1)
	if pl := d.Planned(time.Minute); len(pl) == 0 || pl[0].Fault != "start-delay" {
		t.Errorf("packet with packet_delay: %v, want start-delay", pl)
	}
}

// The single-fault packages load by the names DESIGN's example uses.
func TestNemesesPackages(t *testing.T) {
	for expr, want := range map[string][]string{
		`partition_package(["one", "majority"], seed = 1)`:                             {"start-partition", "stop-partition"},
		`kill_package("one", pattern = db.kill_pattern, restart = db.start, seed = 1)`: {"kill", "start"},
		`pause_package(["one", "minority"], db = db, seed = 1)`:                        {"pause", "resume"},
		`packet_package("one", loss = 0.5, seed = 1)`:                                  {"start-loss", "stop-loss"},
		`bandwidth_package("all", seed = 1)`:                                           {"start-bandwidth", "stop-bandwidth"},
		`file_corruption_package("one", path = "x", seed = 1)`:                         {"bitflip-file"},
	} {
		ops, err := mustNemesis(t, expr, 1).Preview(time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		var fs []string
		for _, op := range ops {
			if !slices.Contains(fs, op.F) && op.F != "heal" {
				fs = append(fs, op.F)
			}
		}
		if !slices.Equal(fs, want) {
			t.Errorf("%s: ops %v, want %v", expr, fs, want)
		}
	}
}

// What combined cannot do it says, naming the fault, the line of the
// stdlib that refused and, in the backtrace, the scenario's line.
func TestCombinedRefusals(t *testing.T) {
	for _, tc := range []struct{ expr, want string }{
		{`combined(faults = ["partition", "clock"])`, `fault "clock" is not available`},
		{`combined(faults = ["kill"])`, `kill needs the process to signal`},
		{`combined(faults = ["kill"], pattern = "x")`, `kill needs the argv that restarts the process`},
		{`combined(faults = ["file-corruption"])`, `file-corruption needs the file to corrupt`},
		{`combined(faults = ["partition"], targets = ["all"])`, `none of the targets`},
		{`combined(faults = ["partition"], targets = ["some"])`, `unknown target "some"`},
		{`combined(faults = ["fire"])`, `unknown fault "fire"`},
	} {
		_, err := loadNemesis(t, tc.expr, 1)
		var se *interp.ScriptError
		if !errors.As(err, &se) || !strings.Contains(se.Msg, tc.want) || !strings.Contains(se.Backtrace, "n.star:7") {
			t.Errorf("%s: %v, want an error saying %s with a backtrace through n.star:7", tc.expr, err, tc.want)
		}
	}
}

// repeat = False: each (fault, target) fires once, in its slot.
func TestCombinedOnce(t *testing.T) {
	p := mustNemesis(t, `combined(faults = ["partition", "pause"], targets = ["one", "minority"], db = db,
                                interval = "2s", start = "1s", seed = 4, repeat = False)`, 1)
	planned := p.Planned(time.Hour)
	if len(planned) != 4 {
		t.Fatalf("%d faults planned in an hour, want 4 (2 faults x 2 targets, once each): %v", len(planned), planned)
	}
	if last := planned[len(planned)-1]; last.At >= 9*time.Second {
		t.Errorf("last fault at %s, want within the 4th slot (before 9s)", last.At)
	}
}

// combined with its defaults (repeat, every target) never lets its own
// faults collide, whatever the seed: no pause or kill while another kill
// or pause holds the process, no partition while one is in effect. Faults
// holding different things (a partition and a kill) still overlap.
func TestCombinedNeverCollides(t *testing.T) {
	ends := map[string]string{"start-partition": "stop-partition", "kill": "start", "pause": "resume"}
	class := map[string]string{"start-partition": "partition", "kill": "process", "pause": "process"}
	overlapped := false
	for seed := uint64(1); seed <= 20; seed++ {
		p := mustNemesis(t, `combined(faults = ["partition", "kill", "pause"], db = db, interval = "2s")`, seed)
		ops, err := p.Preview(2 * time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		open := map[string]string{} // class -> the inject holding it
		for _, op := range ops {
			if c, ok := class[op.F]; ok {
				if held := open[c]; held != "" {
					t.Fatalf("seed %d: %s at %s while %s holds the %s", seed, op.F, op.At, held, c)
				}
				open[c] = op.F
				overlapped = overlapped || len(open) > 1
				continue
			}
			for inject, end := range ends {
				if op.F == end && open[class[inject]] == inject {
					delete(open, class[inject])
				}
			}
		}
	}
	if !overlapped {
		t.Error("no partition ever overlapped a kill or pause in 20 seeds: the test shows nothing about faults of different kinds")
	}
}
