package client

import (
	"fmt"
	"time"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"

	"github.com/faultline/faultline/star"
)

// Module is the Starlark "client" module.
var Module = &starlarkstruct.Module{
	Name: "client",
	Members: starlark.StringDict{
		"register": starlark.NewBuiltin("client.register", newRegister),
		"noop":     starlark.NewBuiltin("client.noop", newNoop),
		"postgres": starlark.NewBuiltin("client.postgres", newPostgres),
		"etcd":     starlark.NewBuiltin("client.etcd", newEtcd),
		"demo_kv":  starlark.NewBuiltin("client.demo_kv", newDemoKV),
		"starlark": starlark.NewBuiltin("client.starlark", newStarlark),
	},
}

// newRegister is client.register(stale_reads=0.0): the in-process reference register.
func newRegister(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var stale starlark.Value = starlark.Float(0)
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "stale_reads?", &stale); err != nil {
		return nil, err
	}
	p, ok := starlark.AsFloat(stale)
	if !ok || p < 0 || p > 1 {
		return nil, fmt.Errorf("%s: stale_reads must be a probability between 0 and 1, got %s", b.Name(), stale)
	}
	return &Register{StaleReads: p}, nil
}

// newNoop is client.noop(): completes every op ok immediately.
func newNoop(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
		return nil, err
	}
	return Noop{}, nil
}

// newPostgres is client.postgres(dsn, isolation="serializable",
// workload="list-append", accounts=5, total=100): a real PostgreSQL database.
// The configuration is checked here so a bad script fails at load time.
func newPostgres(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	p := &Postgres{Isolation: "serializable", Workload: "list-append", Accounts: 5, Total: 100}
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "dsn", &p.DSN, "isolation?", &p.Isolation,
		"workload?", &p.Workload, "accounts?", &p.Accounts, "total?", &p.Total); err != nil {
		return nil, err
	}
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	return p, nil
}

// newEtcd is client.etcd(endpoints=None, timeout="1s", serializable=False):
// a real etcd cluster through its JSON gateway, each process on the node it
// is bound to unless endpoints (base URLs) are given.
func newEtcd(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var endpoints starlark.Value = starlark.None
	timeout := star.Duration(time.Second)
	e := &Etcd{}
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "endpoints?", &endpoints, "timeout?", &timeout,
		"serializable?", &e.Serializable); err != nil {
		return nil, err
	}
	if timeout <= 0 {
		return nil, fmt.Errorf("%s: timeout must be positive", b.Name())
	}
	e.Timeout = time.Duration(timeout)
	if endpoints != starlark.None {
		l, ok := endpoints.(*starlark.List)
		if !ok {
			return nil, fmt.Errorf("%s: endpoints must be a list of URLs, got %s", b.Name(), endpoints.Type())
		}
		for i := 0; i < l.Len(); i++ {
			u, ok := starlark.AsString(l.Index(i))
			if !ok || u == "" {
				return nil, fmt.Errorf("%s: endpoints[%d] must be a non-empty URL string", b.Name(), i)
			}
			e.Endpoints = append(e.Endpoints, u)
		}
	}
	return e, nil
}

// newDemoKV is client.demo_kv(timeout="1s", port=8080): the demo store of
// examples/demostore, each process on the node it is bound to; port is
// its HTTP port on a real node (local nodes get their own).
func newDemoKV(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	timeout := star.Duration(time.Second)
	port := DemoKVPort
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "timeout?", &timeout, "port?", &port); err != nil {
		return nil, err
	}
	if timeout <= 0 {
		return nil, fmt.Errorf("%s: timeout must be positive", b.Name())
	}
	if port < 1 || port > 65535 {
		return nil, fmt.Errorf("%s: port %d out of range", b.Name(), port)
	}
	return &DemoKV{Timeout: time.Duration(timeout), Port: port}, nil
}
