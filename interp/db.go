package interp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"go.starlark.net/starlark"

	"github.com/faultline/faultline/builtins/control"
)

// DB is a scenario's db recipe: how to set the system under test up on
// every node before the workload and tear it down afterwards. Scripts build
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
		if d.Logs, err = stringList(logs); err != nil {
			return nil, fmt.Errorf("db.logs: %w", err)
		}
	}
	return d, nil
}

// onEveryNode calls fn(node) on every node of the run in parallel, with
// control.on_nodes' semantics (each call runs to its end; the error names
// every failed node).
func (d *DB) onEveryNode(ctx context.Context, o RunOptions, what string, fn starlark.Callable) error {
	thread := newThread(ctx, "db/"+what, o.Print, nil, 0, o.Pool)
	stop := watchCancel(ctx, thread)
	defer stop()
	if _, err := starlark.Call(thread, control.Module.Members["on_nodes"], starlark.Tuple{fn}, nil); err != nil {
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
	var (
		mu   sync.Mutex
		errs []error
		wg   sync.WaitGroup
	)
	for _, n := range pool.Nodes() {
		wg.Go(func() {
			err := saveNodeLogs(ctx, pool, n.Name, d.Logs, filepath.Join(dir, "logs", n.Name))
			if err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

func saveNodeLogs(ctx context.Context, pool *control.Pool, node string, logs []string, dir string) error {
	r, err := pool.Remote(ctx, node)
	if err != nil {
		return fmt.Errorf("save logs of %s: %w", node, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("save logs of %s: %w", node, err)
	}
	var errs []error
	for _, p := range logs {
		if err := r.Download(ctx, p, filepath.Join(dir, filepath.Base(p))); err != nil {
			errs = append(errs, fmt.Errorf("save log %s of %s: %w", p, node, err))
		}
	}
	return errors.Join(errs...)
}

// dbLifecycle sets the db up on every node and returns the func that
// saves its logs and tears it down, once, with a fresh context so that a
// cancelled run still cleans up. Problems are noted in r. The teardown
// func is valid (and must be called) even when setup fails.
func dbLifecycle(ctx context.Context, d *DB, o RunOptions, r *Result) (teardown func(), setupErr error) {
	var once sync.Once
	teardown = func() {
		once.Do(func() {
			tctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), dbTimeout)
			defer cancel()
			if err := d.saveLogs(tctx, o.Pool, o.Dir); err != nil {
				o.Log(fmt.Sprintf("db logs: %v", err))
			}
			if err := d.onEveryNode(tctx, o, "teardown", d.Teardown); err != nil {
				r.Problems = append(r.Problems, fmt.Sprintf("%v (the system may still run on the nodes)", err))
			}
		})
	}
	sctx, cancel := context.WithTimeout(ctx, dbTimeout)
	defer cancel()
	return teardown, d.onEveryNode(sctx, o, "setup", d.Setup)
}
