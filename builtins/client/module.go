package client

import (
	"fmt"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
)

// Module is the Starlark "client" module.
var Module = &starlarkstruct.Module{
	Name: "client",
	Members: starlark.StringDict{
		"register": starlark.NewBuiltin("client.register", newRegister),
		"noop":     starlark.NewBuiltin("client.noop", newNoop),
		"postgres": starlark.NewBuiltin("client.postgres", newPostgres),
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
