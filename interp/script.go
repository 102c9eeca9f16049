// Package interp is faultline's engine: it loads Starlark scenario scripts
// (with @stdlib// and --lib roots), collects their scenario() declarations,
// and runs each one under its budget: workers and nemesis driven by the
// generator, a crash-safe journal, then the checker.
package interp

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"

	"go.starlark.net/lib/json"
	"go.starlark.net/lib/math"
	"go.starlark.net/lib/time"
	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"

	"github.com/faultline/faultline/control"
	"github.com/faultline/faultline/internal/seed"
	"github.com/faultline/faultline/star"
	_ "github.com/faultline/faultline/star/all" // every Starlark module registers itself
)

// LoadOptions configure loading a script.
type LoadOptions struct {
	Libs  map[string]string // load roots from --lib (see ParseLibs)
	Seed  uint64            // root seed; rand draws at load time come from it
	Steps uint64            // Starlark step limit while loading (0 = default)
	Print io.Writer         // where print() goes (nil = stderr)
	Pool  *control.Pool     // the nodes scripts may reach (nil = none)
	// Params are the -p values param() reads; one the script never reads
	// is a *ParamError.
	Params Params
}

// Script is a loaded scenario file.
type Script struct {
	Path      string
	Scenarios []*Scenario
	// Libs are the --lib roots the script's loads used, with the files
	// loaded and their digest; every scenario's run records them.
	Libs []LibUse
}

// Load executes the script at path and returns its scenario declarations.
// Problems in the script come back as *ScriptError.
func Load(ctx context.Context, path string, o LoadOptions) (*Script, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", path, err)
	}
	if _, err := os.Stat(abs); err != nil {
		return nil, fmt.Errorf("load %s: %w", path, err)
	}
	col := &collector{}
	thread := newThread(ctx, "load", o.Print, seed.New(o.Seed, "load"), o.Steps, o.Pool)
	thread.SetLocal(collectorKey, col)
	params := &paramState{given: o.Params, read: map[string]bool{}}
	thread.SetLocal(paramsKey, params)
	l := newLoader(o.Libs, Predeclared())
	thread.Load = l.load
	stop := watchCancel(ctx, thread)
	defer stop()
	if _, err := l.exec(thread, abs); err != nil {
		if params.bad != nil {
			if se, ok := scriptError(err).(*ScriptError); ok {
				return nil, &ParamError{Msg: fmt.Sprintf("%s (read by param() at %s:%d)", params.bad.Msg, se.File, se.Line)}
			}
			return nil, params.bad
		}
		return nil, scriptError(err)
	}
	if err := params.unreadParams(); err != nil {
		return nil, err
	}
	if len(col.scenarios) == 0 {
		return nil, &ScriptError{File: displayPath(abs), Line: 1, Col: 1, Msg: "no scenario(...) declared: nothing to run"}
	}
	libs := l.usedLibs()
	for _, sc := range col.scenarios {
		sc.libs, sc.params = libs, o.Params
	}
	return &Script{Path: path, Scenarios: col.scenarios, Libs: libs}, nil
}

// Predeclared returns the names every script sees: the interpreter's own
// (scenario, budget, rand, struct and starlark-go's json, math and time) and
// every module registered with package star by the adapters star/all links.
func Predeclared() starlark.StringDict {
	d := star.Modules()
	own := starlark.StringDict{
		"scenario":    starlark.NewBuiltin("scenario", scenarioBuiltin),
		"budget":      starlark.NewBuiltin("budget", budgetBuiltin),
		"param":       starlark.NewBuiltin("param", paramBuiltin),
		"system_logs": starlark.NewBuiltin("system_logs", systemLogsBuiltin),
		"rand":        randModule,
		"struct":      starlark.NewBuiltin("struct", starlarkstruct.Make),
		"json":        json.Module,
		"math":        math.Module,
		"time":        time.Module,
	}
	for name, v := range own {
		d[name] = v
	}
	return d
}

// newThread makes a Starlark thread whose print goes to out, whose rand
// module draws from rng, and whose node builtins use pool and stop with ctx.
func newThread(ctx context.Context, name string, out io.Writer, rng *rand.Rand, steps uint64, pool *control.Pool) *starlark.Thread {
	if out == nil {
		out = os.Stderr
	}
	if steps == 0 {
		steps = defaultSteps
	}
	t := &starlark.Thread{Name: name, Print: func(_ *starlark.Thread, msg string) { fmt.Fprintln(out, msg) }}
	star.SetRand(t, rng)
	star.SetContext(t, ctx)
	if pool != nil {
		star.SetPool(t, pool)
	}
	t.SetMaxExecutionSteps(steps)
	return t
}

// watchCancel cancels thread when ctx ends; the returned func stops watching.
func watchCancel(ctx context.Context, thread *starlark.Thread) func() {
	done := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			thread.Cancel(context.Cause(ctx).Error())
		case <-done:
		}
	}()
	return func() { close(done) }
}
