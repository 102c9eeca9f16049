// Package gen is the Starlark "gen" module: package gen's generator
// combinators as builtins, and the conversion of Starlark values (op dicts,
// lists, functions) into generators. Starlark functions run through
// gen.Config.Env, which NewEnv provides.
package gen

import (
	"fmt"
	"time"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"

	"github.com/faultline/faultline/gen"
	"github.com/faultline/faultline/star"
)

func init() { star.Register("gen", Module) }

// Module is the Starlark "gen" module. Every argument that takes a generator
// accepts whatever FromStarlark does (an op dict, a list, a function, a gen.*
// value); durations are strings like "10ms" or numbers of seconds.
var Module = &starlarkstruct.Module{
	Name: "gen",
	Members: starlark.StringDict{
		"once":              unary("once", gen.Once),
		"limit":             counted("limit", func(n int, g gen.Generator) gen.Generator { return gen.Limit(int64(n), g) }),
		"repeat":            repeatLike("repeat", gen.Repeat, gen.RepeatN),
		"cycle":             repeatLike("cycle", gen.Cycle, gen.CycleN),
		"mix":               starlark.NewBuiltin("gen.mix", mixBuiltin),
		"any":               variadic("any", gen.Any),
		"each_thread":       unary("each_thread", gen.EachThread),
		"reserve":           starlark.NewBuiltin("gen.reserve", reserveBuiltin),
		"clients":           routed("clients", gen.Clients, gen.Nemesis),
		"nemesis":           routed("nemesis", gen.Nemesis, gen.Clients),
		"on_threads":        withFunc("on_threads", onThreadsStar),
		"map":               withFunc("map", mapStar),
		"filter":            withFunc("filter", filterStar),
		"f_map":             starlark.NewBuiltin("gen.f_map", fMapBuiltin),
		"time_limit":        timed("time_limit", gen.TimeLimit),
		"stagger":           timed("stagger", gen.Stagger),
		"delay":             timed("delay", gen.Delay),
		"sleep":             starlark.NewBuiltin("gen.sleep", sleepBuiltin),
		"log":               starlark.NewBuiltin("gen.log", logBuiltin),
		"synchronize":       unary("synchronize", gen.Synchronize),
		"phases":            variadic("phases", gen.Phases),
		"then":              binary("then", gen.Then),
		"until_ok":          unary("until_ok", gen.UntilOK),
		"flip_flop":         binary("flip_flop", gen.FlipFlop),
		"concurrency_limit": counted("concurrency_limit", gen.ConcurrencyLimit),
		"process_limit":     counted("process_limit", gen.ProcessLimit),
		"concurrent_keys":   starlark.NewBuiltin("gen.concurrent_keys", concurrentKeysBuiltin),
	},
}

// genArg unpacks any value FromStarlark accepts.
type genArg struct{ g gen.Generator }

// Unpack implements starlark.Unpacker.
func (a *genArg) Unpack(v starlark.Value) error {
	g, err := FromStarlark(v)
	a.g = g
	return err
}

func unary(name string, f func(gen.Generator) gen.Generator) *starlark.Builtin {
	return starlark.NewBuiltin("gen."+name, func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var g genArg
		if err := starlark.UnpackArgs(b.Name(), args, kwargs, "g", &g); err != nil {
			return nil, err
		}
		return NewValue(name, f(g.g)), nil
	})
}

func binary(name string, f func(a, b gen.Generator) gen.Generator) *starlark.Builtin {
	return starlark.NewBuiltin("gen."+name, func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var x, y genArg
		if err := starlark.UnpackArgs(b.Name(), args, kwargs, "a", &x, "b", &y); err != nil {
			return nil, err
		}
		return NewValue(name, f(x.g, y.g)), nil
	})
}

func variadic(name string, f func(...gen.Generator) gen.Generator) *starlark.Builtin {
	return starlark.NewBuiltin("gen."+name, func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		if len(kwargs) > 0 {
			return nil, fmt.Errorf("%s: unexpected keyword arguments", b.Name())
		}
		gens, err := generators(b.Name(), args)
		if err != nil {
			return nil, err
		}
		return NewValue(name, f(gens...)), nil
	})
}

func generators(fn string, vs starlark.Tuple) ([]gen.Generator, error) {
	gens := make([]gen.Generator, len(vs))
	for i, v := range vs {
		g, err := FromStarlark(v)
		if err != nil {
			return nil, fmt.Errorf("%s: argument %d: %w", fn, i+1, err)
		}
		gens[i] = g
	}
	return gens, nil
}

func counted(name string, f func(int, gen.Generator) gen.Generator) *starlark.Builtin {
	return starlark.NewBuiltin("gen."+name, func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var (
			n int
			g genArg
		)
		if err := starlark.UnpackArgs(b.Name(), args, kwargs, "n", &n, "g", &g); err != nil {
			return nil, err
		}
		if n < 0 {
			return nil, fmt.Errorf("%s: n must not be negative, got %d", b.Name(), n)
		}
		return NewValue(name, f(n, g.g)), nil
	})
}

func timed(name string, f func(time.Duration, gen.Generator) gen.Generator) *starlark.Builtin {
	return starlark.NewBuiltin("gen."+name, func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var (
			d star.Duration
			g genArg
		)
		if err := starlark.UnpackArgs(b.Name(), args, kwargs, "dt", &d, "g", &g); err != nil {
			return nil, err
		}
		return NewValue(name, f(time.Duration(d), g.g)), nil
	})
}

func withFunc(name string, f func(starlark.Callable, gen.Generator) gen.Generator) *starlark.Builtin {
	return starlark.NewBuiltin("gen."+name, func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var (
			fn starlark.Callable
			g  genArg
		)
		if err := starlark.UnpackArgs(b.Name(), args, kwargs, "fn", &fn, "g", &g); err != nil {
			return nil, err
		}
		return NewValue(name, f(fn, g.g)), nil
	})
}

func onThreadsStar(fn starlark.Callable, g gen.Generator) gen.Generator {
	return gen.OnThreadsContext(starThreadPred("gen.on_threads", fn), g)
}

func mapStar(fn starlark.Callable, g gen.Generator) gen.Generator {
	return gen.MapContext(starMap("gen.map", fn), g)
}

func filterStar(fn starlark.Callable, g gen.Generator) gen.Generator {
	return gen.FilterContext(starFilter("gen.filter", fn), g)
}

// repeatLike builds repeat and cycle: f(g), or fn(n, g) when a count comes
// first, as in Jepsen.
func repeatLike(name string, f func(gen.Generator) gen.Generator, fn func(int64, gen.Generator) gen.Generator) *starlark.Builtin {
	return starlark.NewBuiltin("gen."+name, func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		if len(args) == 2 {
			var (
				n int
				g genArg
			)
			if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 2, &n, &g); err != nil {
				return nil, err
			}
			if n < 0 {
				return nil, fmt.Errorf("%s: n must not be negative, got %d", b.Name(), n)
			}
			return NewValue(name, fn(int64(n), g.g)), nil
		}
		var g genArg
		if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 1, &g); err != nil {
			return nil, err
		}
		return NewValue(name, f(g.g)), nil
	})
}

// routed builds clients and nemesis: f(g), or with a second generator for the
// other side, Any(f(g), other(g2)).
func routed(name string, f, other func(gen.Generator) gen.Generator) *starlark.Builtin {
	return starlark.NewBuiltin("gen."+name, func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var g, rest genArg
		if err := starlark.UnpackArgs(b.Name(), args, kwargs, "g", &g, "other?", &rest); err != nil {
			return nil, err
		}
		if rest.g == nil {
			return NewValue(name, f(g.g)), nil
		}
		return NewValue(name, gen.Any(f(g.g), other(rest.g))), nil
	})
}

func mixBuiltin(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var seq starlark.Indexable
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "gens", &seq); err != nil {
		return nil, err
	}
	elems := make(starlark.Tuple, seq.Len())
	for i := range elems {
		elems[i] = seq.Index(i)
	}
	gens, err := generators(b.Name(), elems)
	if err != nil {
		return nil, err
	}
	return NewValue("mix", gen.Mix(gens...)), nil
}

// reserveBuiltin is gen.reserve(n1, g1, n2, g2, ..., default).
func reserveBuiltin(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(kwargs) > 0 {
		return nil, fmt.Errorf("%s: takes no keyword arguments", b.Name())
	}
	if len(args)%2 == 0 {
		return nil, fmt.Errorf("%s: want (n1, g1, n2, g2, ..., default)", b.Name())
	}
	groups := make([]gen.ReserveGroup, 0, len(args)/2)
	for i := 0; i+1 < len(args); i += 2 {
		n, err := starlark.AsInt32(args[i])
		if err != nil || n < 0 {
			return nil, fmt.Errorf("%s: argument %d: want a thread count, got %s", b.Name(), i+1, args[i])
		}
		g, err := FromStarlark(args[i+1])
		if err != nil {
			return nil, fmt.Errorf("%s: argument %d: %w", b.Name(), i+2, err)
		}
		groups = append(groups, gen.ReserveGroup{Threads: n, Gen: g})
	}
	dflt, err := FromStarlark(args[len(args)-1])
	if err != nil {
		return nil, fmt.Errorf("%s: default: %w", b.Name(), err)
	}
	return NewValue("reserve", gen.Reserve(groups, dflt)), nil
}

func fMapBuiltin(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var (
		d *starlark.Dict
		g genArg
	)
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "mapping", &d, "g", &g); err != nil {
		return nil, err
	}
	m := make(map[string]string, d.Len())
	for _, kv := range d.Items() {
		k, ok1 := kv[0].(starlark.String)
		v, ok2 := kv[1].(starlark.String)
		if !ok1 || !ok2 {
			return nil, fmt.Errorf("%s: mapping must be from strings to strings, got %s: %s", b.Name(), kv[0], kv[1])
		}
		m[string(k)] = string(v)
	}
	return NewValue("f_map", gen.FMap(m, g.g)), nil
}

func sleepBuiltin(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var d star.Duration
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "dt", &d); err != nil {
		return nil, err
	}
	return NewValue("sleep", gen.Sleep(time.Duration(d))), nil
}

func logBuiltin(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var msg string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "msg", &msg); err != nil {
		return nil, err
	}
	return NewValue("log", gen.Log(msg)), nil
}

// concurrentKeysBuiltin is gen.concurrent_keys(n, fn, keys = None): Jepsen's
// independent/concurrent-generator. fn(key) returns the generator of one
// key (anything FromStarlark accepts); keys is a list of keys or None for
// 0, 1, 2, ...
func concurrentKeysBuiltin(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var (
		n    int
		fn   starlark.Callable
		keys starlark.Value = starlark.None
	)
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "n", &n, "fn", &fn, "keys?", &keys); err != nil {
		return nil, err
	}
	if n < 1 {
		return nil, fmt.Errorf("%s: n (threads per key) must be positive, got %d", b.Name(), n)
	}
	var goKeys []any
	if keys != starlark.None {
		l, ok := keys.(starlark.Indexable)
		if !ok {
			return nil, fmt.Errorf("%s: keys must be a list of keys or None (0, 1, 2, ...), got %s", b.Name(), keys.Type())
		}
		goKeys = make([]any, l.Len())
		for i := range goKeys {
			k, err := star.ToGo(l.Index(i))
			if err != nil {
				return nil, fmt.Errorf("%s: keys[%d]: %w", b.Name(), i, err)
			}
			goKeys[i] = k
		}
		if len(goKeys) == 0 {
			return nil, fmt.Errorf("%s: keys is empty; give at least one key, or None for 0, 1, 2, ...", b.Name())
		}
	}
	fgen := func(ctx *gen.Context, key any) (gen.Generator, error) {
		sk, err := star.FromGo(key)
		if err != nil {
			return nil, fmt.Errorf("%s: key %v: %w", b.Name(), key, err)
		}
		v, err := call(ctx, b.Name(), fn, sk)
		if err != nil {
			return nil, err
		}
		g, err := FromStarlark(v)
		if err != nil {
			return nil, fmt.Errorf("%s: %s(%s) returned %s: %w", b.Name(), fn.Name(), sk, v.Type(), err)
		}
		return g, nil
	}
	return NewValue("concurrent_keys", gen.ConcurrentKeys(n, goKeys, fgen)), nil
}
