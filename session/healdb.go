package session

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/faultline/faultline/control"
	"github.com/faultline/faultline/interp"
	"github.com/faultline/faultline/nemesis"
)

// sessionDB is one scenario a session ran, as its schedule recorded it:
// the script to load and where its artifacts are.
type sessionDB struct {
	header interp.ScheduleHeader
	dirs   []string // artifact directories of its runs (re-runs included)
}

// sessionDBs reads which scenarios of which scripts a session ran, from the
// headers of its artifacts/*/schedule.jsonl (written before the db is set
// up, so a run killed during setup has one), one entry per script and
// scenario.
func sessionDBs(session string) ([]*sessionDB, error) {
	paths, err := filepath.Glob(filepath.Join(session, "artifacts", "*", interp.ScheduleFile))
	if err != nil {
		return nil, fmt.Errorf("heal --session %s: %w", session, err)
	}
	if len(paths) == 0 {
		if _, err := os.Stat(filepath.Join(session, "artifacts")); err != nil {
			return nil, fmt.Errorf("heal --session: %s is not a faultline session (no artifacts/): %w", session, err)
		}
		return nil, fmt.Errorf("heal --session: %s recorded no schedule (artifacts/*/%s): it was killed before it set anything up (a run records its schedule's header before its db setup)", session, interp.ScheduleFile)
	}
	slices.Sort(paths)
	var out []*sessionDB
	for _, p := range paths {
		h, _, err := interp.ReadSchedule(p)
		if err != nil {
			return nil, fmt.Errorf("heal --session: %w", err)
		}
		i := slices.IndexFunc(out, func(s *sessionDB) bool {
			return s.header.Script == h.Script && s.header.Scenario == h.Scenario
		})
		if i < 0 {
			out = append(out, &sessionDB{header: h})
			i = len(out) - 1
		}
		out[i].dirs = append(out[i].dirs, filepath.Dir(p))
	}
	return out, nil
}

// logsDir is where heal saves a recorded run's db logs: the artifact
// directory of the run that never saved its own (a run saves them into
// logs/ just before its teardown, so one without logs/ was killed first),
// or "" when every run saved them.
func (s *sessionDB) logsDir() string {
	for _, d := range slices.Backward(s.dirs) {
		if _, err := os.Stat(filepath.Join(d, "logs")); errors.Is(err, os.ErrNotExist) {
			return d
		}
	}
	return ""
}

// HealSessionDBs tears down, on every node of pool, the db of every
// scenario session ran: it loads each recorded script (with libs, the
// run's --lib roots), takes the scenario's db recipe and runs its teardown,
// after saving the logs of a run that was killed before it saved them. It
// reports per scenario on out and returns the failures.
func HealSessionDBs(ctx context.Context, pool *control.Pool, session string, libs map[string]string, out, stderr io.Writer) error {
	dbs, err := sessionDBs(session)
	if err != nil {
		return err
	}
	var errs []error
	for _, s := range dbs {
		h := s.header
		label := fmt.Sprintf("db of %s (%s)", h.Scenario, h.Script)
		if h.Local {
			fmt.Fprintf(out, "%s: ran on local nodes, whose daemons and directories ended with that run: nothing to tear down\n", label)
			continue
		}
		if missing := missingNodes(h.Nodes, pool); len(missing) > 0 {
			fmt.Fprintf(out, "%s: warning: the run's nodes %s are not among the nodes given; tearing down on those given\n", label, strings.Join(missing, ", "))
		}
		sc, err := loadRecorded(ctx, h, libs, pool, stderr)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", label, err))
			fmt.Fprintf(out, "%s: not torn down: %v\n", label, err)
			continue
		}
		// The script's own faults (nemesis.fault) first: the db's teardown
		// must not be cut off by one the killed run left.
		if scripts := scenarioScripts(sc); len(scripts) > 0 {
			rep, herr := nemesis.HealScripts(ctx, pool, scripts)
			for _, k := range slices.Sorted(maps.Keys(rep)) {
				fmt.Fprintf(out, "%s of %s (%s): %s\n", k, h.Scenario, h.Script, strings.Join(rep[k], "; "))
			}
			if herr != nil {
				errs = append(errs, fmt.Errorf("faults of %s (%s): %w", h.Scenario, h.Script, herr))
			}
		}
		d := sc.DB
		if d == nil {
			fmt.Fprintf(out, "%s: the scenario has no db recipe: nothing to tear down\n", label)
			continue
		}
		logs := s.logsDir()
		note := func(m string) { fmt.Fprintf(stderr, "faultline: heal: %s: %s\n", label, m) }
		if err := d.TeardownEverywhere(ctx, pool, stderr, logs, note); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", label, err))
			fmt.Fprintf(out, "%s: teardown failed: %v\n", label, err)
			continue
		}
		what := "torn down on " + strings.Join(nodeNames(pool), ", ")
		if logs != "" {
			what += "; its logs saved in " + filepath.Join(logs, "logs")
		}
		fmt.Fprintf(out, "%s: %s\n", label, what)
	}
	return errors.Join(errs...)
}

// scenarioScripts returns the faults sc's script defined and its nemesis
// schedules, at any tier.
func scenarioScripts(sc *interp.Scenario) []*nemesis.ScriptFault {
	var out []*nemesis.ScriptFault
	add := func(p *nemesis.Package) {
		for _, f := range p.Scripts() {
			if !slices.Contains(out, f) {
				out = append(out, f)
			}
		}
	}
	if sc.Nemesis != nil {
		add(sc.Nemesis)
	}
	for _, tier := range slices.Sorted(maps.Keys(sc.NemesisByTier)) {
		if p := sc.NemesisByTier[tier]; p != nil {
			add(p)
		}
	}
	return out
}

// missingNodes lists the recorded nodes that pool lacks.
func missingNodes(recorded []string, pool *control.Pool) []string {
	have := nodeNames(pool)
	var out []string
	for _, n := range recorded {
		if !slices.Contains(have, n) {
			out = append(out, n)
		}
	}
	return out
}

func nodeNames(pool *control.Pool) []string {
	var out []string
	for _, n := range pool.Nodes() {
		out = append(out, n.Name)
	}
	return out
}

// HealOptions say what Heal tears down besides the faults, and where it
// reports.
type HealOptions struct {
	// Session, when set, is a killed run's session directory: Heal also
	// tears down the db its scenarios set up (HealSessionDBs).
	Session string
	// Libs are that run's load roots, NAME=DIR.
	Libs []string
	// Report gets one line per node and per db; nil discards them.
	Report io.Writer
	// Progress gets diagnostics; nil discards them.
	Progress io.Writer
}

// Heal removes from every node of pool whatever faultline's nemesis may
// have left there (nemesis.HealAll), reports per node, then, with
// o.Session, tears down what that session's runs set up: the db goes after
// the faults, so its teardown is not cut off by a partition the killed run
// left. Then, with or without o.Session, it stops every process a run
// started on the nodes (control.StopStarted) that is still running, puts
// back the files file faults damaged, and last removes what faultline made
// on the nodes for itself (control.RemoveCreated). It returns every
// failure; malformed Libs are a Usage Error.
func Heal(ctx context.Context, pool *control.Pool, o HealOptions) error {
	if o.Report == nil {
		o.Report = io.Discard
	}
	if o.Progress == nil {
		o.Progress = io.Discard
	}
	libs, err := interp.ParseLibs(o.Libs)
	if err != nil {
		return usage("heal: %w", err)
	}
	rep, err := nemesis.HealAll(ctx, pool)
	WriteHealReport(o.Report, rep, err)
	if o.Session == "" {
		fmt.Fprintln(o.Report, "db: data and files left as they are (heal --session DIR runs the recipe's teardown, which saves the logs and removes them)")
		fmt.Fprintln(o.Report, "faults defined in scripts (nemesis.fault): left as they are (heal --session DIR runs their heal)")
	} else if dberr := HealSessionDBs(ctx, pool, o.Session, libs, o.Report, o.Progress); dberr != nil {
		err = errors.Join(err, dberr)
	}
	// Last, whatever a run started and no teardown stopped (a controller
	// killed during setup, a teardown that failed): no process of a run
	// outlives heal.
	serr := stopStarted(ctx, pool, o.Report)
	if serr != nil {
		err = errors.Join(err, serr)
	}
	// Then the files file faults damaged, now that nothing runs that could
	// rewrite them: a path that named a file of the node's is put back.
	if rep, rerr := nemesis.RestoreKept(ctx, pool); len(rep) > 0 || rerr != nil {
		for _, n := range slices.Sorted(maps.Keys(rep)) {
			fmt.Fprintf(o.Report, "%s: %s\n", n, strings.Join(rep[n], "; "))
		}
		if rerr != nil {
			fmt.Fprintf(o.Report, "files file faults damaged: NOT restored: %v\n", rerr)
			err = errors.Join(err, rerr)
		}
	}
	// Last, the files faultline made for itself (uploaded binaries, the
	// delay agent's log), now that nothing it started runs from them; when
	// a daemon could not be stopped they stay, for it may still need them.
	if serr != nil {
		fmt.Fprintln(o.Report, "files faultline made on the nodes: left, as a daemon faultline started may still run from them; heal again once it is stopped")
		return err
	}
	rep, rerr := control.RemoveCreatedEverywhere(ctx, pool)
	for _, n := range slices.Sorted(maps.Keys(rep)) {
		fmt.Fprintf(o.Report, "%s: %s\n", n, strings.Join(rep[n], "; "))
	}
	if rerr != nil {
		fmt.Fprintf(o.Report, "files faultline made on the nodes: NOT removed: %v\n", rerr)
		err = errors.Join(err, rerr)
	}
	return err
}

// daemonGrace is how long heal gives a daemon a run left behind between
// TERM and KILL.
const daemonGrace = 10 * time.Second

// stopStarted stops, on every node of pool in parallel, the processes
// faultline's runs started there (control.StopStarted), and reports one
// line per node that had any, or one line saying none was left.
func stopStarted(ctx context.Context, pool *control.Pool, out io.Writer) error {
	var (
		mu   sync.Mutex
		wg   sync.WaitGroup
		errs []error
	)
	stopped := map[string][]string{}
	for _, n := range pool.Nodes() {
		wg.Go(func() {
			r, err := pool.Remote(ctx, n.Name)
			var lines []string
			if err == nil {
				lines, err = control.StopStarted(ctx, r, daemonGrace)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(lines) > 0 {
				stopped[n.Name] = lines
			}
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", n.Name, err))
			}
		})
	}
	wg.Wait()
	if len(stopped) == 0 && len(errs) == 0 {
		fmt.Fprintln(out, "daemons faultline started: none left running")
	}
	for _, n := range slices.Sorted(maps.Keys(stopped)) {
		fmt.Fprintf(out, "%s: %s\n", n, strings.Join(stopped[n], "; "))
	}
	for _, e := range errs {
		fmt.Fprintf(out, "daemons faultline started: NOT stopped: %v\n", e)
	}
	return errors.Join(errs...)
}
