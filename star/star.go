// Package star is the seam between faultline's interpreter and its Starlark
// modules. Each module is a small adapter package under star/ that registers
// its predeclared value here when it is linked in (star/all links them all);
// the interpreter predeclares whatever is registered, and puts the run's
// state (context, nodes, seeded randomness) on every thread it makes, where
// the adapters read it back. Domain packages never import this one.
package star

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"sort"
	"sync"

	"go.starlark.net/starlark"

	"github.com/faultline/faultline/control"
)

var (
	mu      sync.Mutex
	modules = starlark.StringDict{}
)

// Register predeclares v under name for every script. Adapter packages call
// it from init; a name registered twice is a programming error and panics
// at startup, before any script runs.
func Register(name string, v starlark.Value) {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := modules[name]; dup {
		panic(fmt.Sprintf("star: %q registered twice", name))
	}
	modules[name] = v
}

// Modules returns every registered name and value (a copy).
func Modules() starlark.StringDict {
	mu.Lock()
	defer mu.Unlock()
	return maps.Clone(modules)
}

// Thread-local keys for the run's state.
const (
	ctxLocal  = "faultline.ctx"
	poolLocal = "faultline.pool"
	randLocal = "faultline.rand"
)

// SetContext makes ctx the context blocking builtins on thread stop with.
func SetContext(thread *starlark.Thread, ctx context.Context) { thread.SetLocal(ctxLocal, ctx) }

// Context returns the run's (or op's) context on thread; Background when
// none was set.
func Context(thread *starlark.Thread) context.Context {
	if ctx, ok := thread.Local(ctxLocal).(context.Context); ok && ctx != nil {
		return ctx
	}
	return context.Background()
}

// SetPool gives thread the nodes its scripts may reach.
func SetPool(thread *starlark.Thread, p *control.Pool) { thread.SetLocal(poolLocal, p) }

// Pool returns thread's nodes, or an error naming the builtin (name) that
// needed them when the run has none.
func Pool(thread *starlark.Thread, name string) (*control.Pool, error) {
	p, ok := thread.Local(poolLocal).(*control.Pool)
	if !ok || p == nil {
		return nil, fmt.Errorf("%s: no nodes configured (give --nodes, --nodes-file or --local, or declare nodes in the scenario)", name)
	}
	return p, nil
}

// SetRand gives thread its seeded source of randomness.
func SetRand(thread *starlark.Thread, r *rand.Rand) { thread.SetLocal(randLocal, r) }

// Rand returns thread's seeded randomness, or nil when it has none (a
// thread that must not draw, so a replay stays deterministic).
func Rand(thread *starlark.Thread) *rand.Rand {
	r, _ := thread.Local(randLocal).(*rand.Rand)
	return r
}

// Method is a method of Starlark values of Go type T, called with the
// value it is bound to.
type Method[T any] func(recv T, thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error)

// Bind returns methods[name] bound to recv as a builtin of that name, or
// nil when there is no such method (what HasAttrs.Attr returns then).
func Bind[T any](methods map[string]Method[T], recv T, name string) starlark.Value {
	m, ok := methods[name]
	if !ok {
		return nil
	}
	return starlark.NewBuiltin(name, func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		return m(recv, thread, b, args, kwargs)
	})
}

// MethodNames lists fields and the names of methods, sorted, for
// HasAttrs.AttrNames.
func MethodNames[T any](methods map[string]Method[T], fields ...string) []string {
	names := append([]string(nil), fields...)
	for k := range methods {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}
