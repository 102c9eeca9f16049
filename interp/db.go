package interp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"go.starlark.net/starlark"

	"github.com/faultline/faultline/control"
	"github.com/faultline/faultline/logaudit"
	starcontrol "github.com/faultline/faultline/star/control"
)

// DB is a scenario's db recipe: how to set the system under test up on
// every node before the workload and tear it down afterwards. Teardown runs
// before setup as well (dbCycle), so it must succeed on a node where
// nothing is set up, and remove only what setup made. Scripts build
// it as a struct (see stdlib/db/etcd.star) with callables setup(node) and
// teardown(node), and optionally primaries() -> [node names] and logs, a
// list of node paths saved into the run's logs/<node>/ before teardown.
// Other fields (kill_pattern, start, ...) are for the script's own nemesis
// arguments and are not read here.
type DB struct {
	Value     starlark.Value
	Setup     starlark.Callable
	Teardown  starlark.Callable
	Primaries starlark.Callable // nil: the database names no primaries
	Logs      []string
	// LogSpec is what the recipe says of its logs: logs (a list of node
	// paths, or system_logs(...)), log_alarms and log_expected.
	LogSpec logaudit.Spec
}

// dbTimeout bounds setup, teardown and log download on all nodes together.
const dbTimeout = 3 * time.Minute

// dbFromStarlark reads a db recipe from any value with attributes.
func dbFromStarlark(v starlark.Value) (*DB, error) {
	st, ok := v.(starlark.HasAttrs)
	if !ok {
		return nil, fmt.Errorf("db must be a struct with setup and teardown, got %s", v.Type())
	}
	d := &DB{Value: v}
	callable := func(name string, required bool) (starlark.Callable, error) {
		a, err := st.Attr(name)
		if err != nil || a == nil || a == starlark.None {
			if required {
				return nil, fmt.Errorf("db has no %s", name)
			}
			return nil, nil
		}
		c, ok := a.(starlark.Callable)
		if !ok {
			return nil, fmt.Errorf("db.%s must be callable, got %s", name, a.Type())
		}
		return c, nil
	}
	var err error
	if d.Setup, err = callable("setup", true); err != nil {
		return nil, err
	}
	if d.Teardown, err = callable("teardown", true); err != nil {
		return nil, err
	}
	if d.Primaries, err = callable("primaries", false); err != nil {
		return nil, err
	}
	if logs, err := st.Attr("logs"); err == nil && logs != nil {
		if d.LogSpec, err = logSpec(logs); err != nil {
			return nil, fmt.Errorf("db.logs: %w", err)
		}
	}
	for _, f := range []struct {
		name string
		dst  *[]string
	}{{"log_alarms", &d.LogSpec.Alarms}, {"log_expected", &d.LogSpec.Expected}} {
		v, err := st.Attr(f.name)
		if err != nil || v == nil {
			continue
		}
		more, err := stringList(v)
		if err != nil {
			return nil, fmt.Errorf("db.%s: %w", f.name, err)
		}
		*f.dst = append(*f.dst, more...)
	}
	if err := d.LogSpec.Check(); err != nil {
		return nil, fmt.Errorf("db: %w", err)
	}
	d.Logs = d.LogSpec.Paths
	return d, nil
}

// onEveryNode calls fn(node) on every node of the run in parallel, with
// control.on_nodes' semantics (each call runs to its end; the error names
// every failed node).
func (d *DB) onEveryNode(ctx context.Context, o RunOptions, what string, fn starlark.Callable) error {
	thread := newThread(ctx, "db/"+what, o.Print, nil, 0, o.Pool)
	stop := watchCancel(ctx, thread)
	defer stop()
	if _, err := starlark.Call(thread, starcontrol.Module.Members["on_nodes"], starlark.Tuple{fn}, nil); err != nil {
		return fmt.Errorf("db %s: %w", what, scriptError(err))
	}
	return nil
}

// primariesFunc adapts db.primaries() to the nemesis's Primaries callback.
func (d *DB) primariesFunc(o RunOptions) func(ctx context.Context) ([]string, error) {
	if d.Primaries == nil {
		return nil
	}
	return func(ctx context.Context) ([]string, error) {
		thread := newThread(ctx, "db/primaries", o.Print, nil, 0, o.Pool)
		stop := watchCancel(ctx, thread)
		defer stop()
		v, err := starlark.Call(thread, d.Primaries, nil, nil)
		if err != nil {
			return nil, fmt.Errorf("db primaries: %w", scriptError(err))
		}
		names, err := stringList(v)
		if err != nil {
			return nil, fmt.Errorf("db primaries: %w", err)
		}
		return names, nil
	}
}

// saveLogs downloads d.Logs from every node into dir/logs/<node>/. A
// missing log is noted, not fatal: a node that never started has none.
func (d *DB) saveLogs(ctx context.Context, pool *control.Pool, dir string) error {
	if len(d.Logs) == 0 {
		return nil
	}
	return fetchErrors(fetchLogs(ctx, pool, d.Logs, nil, dir))
}

// dbCycleTries bounds the teardown-then-setup cycles a run makes before it
// gives up on its db: setup of a real system fails now and then (a port not
// yet free, an election that takes too long), and Jepsen retries its db
// cycle for the same reason.
const dbCycleTries = 3

// dbCycleFile is the run's record of its db cycles, beside history.jsonl.
const dbCycleFile = "db-cycle.log"

// dbCycle runs teardown and then, if it succeeded, setup, up to tries times,
// until a setup succeeds, as Jepsen's db cycle does: every run starts from a
// clean db even when an earlier run (a killed controller) left one running
// with its data. A failed teardown skips that cycle's setup, since setting up
// over what it could not remove is how a run reads another's values. It
// stops early when ctx ends. note records each step. It returns the cycles
// it made and, when none succeeded, an error naming every cycle's failure.
func dbCycle(ctx context.Context, tries int, teardown, setup func(context.Context) error, note func(string)) (int, error) {
	var failed []cycleFailure
	for i := 1; i <= tries; i++ {
		step := func(what string, fn func(context.Context) error) error {
			start := time.Now()
			err := fn(ctx)
			if err != nil {
				note(fmt.Sprintf("db cycle %d/%d: %s failed after %s: %v", i, tries, what, time.Since(start).Round(time.Millisecond), err))
				failed = append(failed, cycleFailure{i, err})
				return err
			}
			note(fmt.Sprintf("db cycle %d/%d: %s on every node: ok (%s)", i, tries, what, time.Since(start).Round(time.Millisecond)))
			return nil
		}
		if step("teardown", teardown) == nil && step("setup", setup) == nil {
			return i, nil
		}
		if last := failed[len(failed)-1].err; hopeless(last) {
			note(fmt.Sprintf("db cycle %d/%d: not retried: another cycle meets the same node", i, tries))
			return i, cycleError("db setup cannot succeed on a retry (the node's host key is wrong or unknown; fix known_hosts or the node, then run again): ", failed)
		}
		if ctx.Err() != nil {
			note(fmt.Sprintf("db cycle %d/%d: stopped: %v", i, tries, context.Cause(ctx)))
			return i, cycleError("db setup interrupted: ", failed)
		}
	}
	return tries, cycleError(fmt.Sprintf("db setup failed %d times (each time: teardown on every node, then setup): ", tries), failed)
}

// hopeless says whether a failed cycle failed for a reason another cycle
// cannot change: the node's SSH host key is not the one on file, or not on
// file at all. Retrying would only dial the same node again.
func hopeless(err error) bool {
	return errors.Is(err, control.ErrHostKeyMismatch) || errors.Is(err, control.ErrHostKeyUnknown)
}

// cycleFailure is one failed db cycle and why.
type cycleFailure struct {
	cycle int
	err   error
}

// cycleError names every failed cycle, once per distinct message (a
// recipe that fails the same way each time reads "cycles 1, 2, 3: ..."),
// on one line, and wraps the last failure.
func cycleError(prefix string, failed []cycleFailure) error {
	var groups []string
	var msgs []string
	for _, f := range failed {
		msg := f.err.Error()
		if n := len(msgs); n > 0 && msgs[n-1] == msg {
			groups[n-1] += fmt.Sprintf(", %d", f.cycle)
			continue
		}
		msgs = append(msgs, msg)
		groups = append(groups, fmt.Sprint(f.cycle))
	}
	var b strings.Builder
	b.WriteString(prefix)
	for i := range groups[:len(groups)-1] {
		fmt.Fprintf(&b, "%s: %s; ", cyclesLabel(groups[i]), msgs[i])
	}
	last := len(groups) - 1
	return fmt.Errorf("%s%s: %w", b.String(), cyclesLabel(groups[last]), failed[len(failed)-1].err)
}

// cyclesLabel is "cycle 1" or "cycles 1, 2".
func cyclesLabel(list string) string {
	if strings.Contains(list, ",") {
		return "cycles " + list
	}
	return "cycle " + list
}

// dbLifecycle starts the db from clean on every node (dbCycle: teardown,
// then setup, retried) and returns the func that saves the logs (saveLogs)
// and tears
// it down, once, with a fresh context so that a cancelled run still cleans
// up. Problems are noted in r; each cycle's steps go to o.Log and the run's
// db-cycle.log. The teardown func is valid (and must be called) even when
// setup fails.
func dbLifecycle(ctx context.Context, d *DB, o RunOptions, r *Result, saveLogs func()) (teardown func(), setupErr error) {
	var once sync.Once
	note := cycleNoter(o)
	teardown = func() {
		once.Do(func() {
			saveLogs()
			if o.LeaveDBRunning {
				note("db teardown after the run: skipped (--leave-db-running)")
				r.DBLeftRunning = true
				return
			}
			tctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), dbTimeout)
			defer cancel()
			if err := d.onEveryNode(tctx, o, "teardown", d.Teardown); err != nil {
				note(fmt.Sprintf("db teardown after the run failed: %v", err))
				r.Problems = append(r.Problems, fmt.Sprintf("%v (the system may still run on the nodes)", err))
				return
			}
			note("db teardown after the run: ok")
		})
	}
	step := func(what string, fn starlark.Callable) func(context.Context) error {
		return func(ctx context.Context) error {
			sctx, cancel := context.WithTimeout(ctx, dbTimeout)
			defer cancel()
			err := d.onEveryNode(sctx, o, what, fn)
			if err != nil && what == "teardown" {
				// The teardown now runs before setup too, on nodes where
				// nothing may be set up: a recipe written for after-run
				// teardown only may trip on that.
				err = fmt.Errorf("%w (teardown runs before setup as well, so it must succeed where nothing is set up)", err)
			}
			return err
		}
	}
	_, err := dbCycle(ctx, dbCycleTries, step("teardown", d.Teardown), step("setup", d.Setup), note)
	return teardown, err
}

// cycleNoter returns the func that records one db cycle step in o.Log and
// appends it to the run's db-cycle.log, so a run that needed retries, or
// found a db left behind, says so in its artifacts.
func cycleNoter(o RunOptions) func(string) {
	path := filepath.Join(o.Dir, dbCycleFile)
	return func(msg string) {
		o.Log(msg)
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		if err != nil {
			o.Log(fmt.Sprintf("db cycle record: %v", err))
			return
		}
		defer f.Close()
		if _, err := fmt.Fprintf(f, "%s %s\n", time.Now().UTC().Format(time.RFC3339Nano), msg); err != nil {
			o.Log(fmt.Sprintf("db cycle record: %v", err))
		}
	}
}

// TeardownEverywhere saves d's logs into dir/logs/<node>/ (none when dir
// is "") and runs d's teardown on every node of pool: what a run does on
// its way out, for a run that never got there (faultline heal --session
// after a killed controller). A log that cannot be saved goes to note and
// does not stop the teardown; print receives the recipe's print().
func (d *DB) TeardownEverywhere(ctx context.Context, pool *control.Pool, print io.Writer, dir string, note func(string)) error {
	ctx, cancel := context.WithTimeout(ctx, dbTimeout)
	defer cancel()
	if dir != "" {
		if err := d.saveLogs(ctx, pool, dir); err != nil {
			note(fmt.Sprintf("db logs: %v", err))
		}
	}
	return d.onEveryNode(ctx, RunOptions{Pool: pool, Print: print}, "teardown", d.Teardown)
}
