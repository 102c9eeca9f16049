// Package client is the Starlark skin of package client: the "client"
// module whose constructors unpack a script's arguments into the domain
// clients, the value that carries a domain client through a script (so
// scenario(client = client.etcd(...)) works), and client.starlark, a client
// whose open and invoke are Starlark functions.
package client

import (
	"fmt"
	"time"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"

	"github.com/faultline/faultline/client"
	"github.com/faultline/faultline/star"
)

func init() { star.Register("client", Module) }

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
		"exec":     starlark.NewBuiltin("client.exec", newExec),
		"process":  starlark.NewBuiltin("client.process", newProcess),
	},
}

// Value is a domain client as a script holds it: it prints as the client
// prints itself (client.register(), ...) and has type "client", as
// scenario() and error messages expect.
type Value struct {
	Client client.Client
}

var _ starlark.Value = (*Value)(nil)

// NewValue wraps c for a script.
func NewValue(c client.Client) *Value { return &Value{Client: c} }

// FromStarlark returns the domain client behind a script's value; ok is
// false when v is not a client.
func FromStarlark(v starlark.Value) (c client.Client, ok bool) {
	cv, ok := v.(*Value)
	if !ok || cv.Client == nil {
		return nil, false
	}
	return cv.Client, true
}

// String implements starlark.Value.
func (v *Value) String() string { return v.Client.String() }

// Type implements starlark.Value.
func (v *Value) Type() string { return "client" }

// Freeze implements starlark.Value. The domain clients are immutable once
// built; a Starlark client freezes its functions, which workers share.
func (v *Value) Freeze() {
	if s, ok := v.Client.(*Starlark); ok {
		s.freeze()
	}
}

// Truth implements starlark.Value.
func (v *Value) Truth() starlark.Bool { return true }

// Hash implements starlark.Value.
func (v *Value) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable: client") }

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
	return NewValue(&client.Register{StaleReads: p}), nil
}

// newNoop is client.noop(): completes every op ok immediately.
func newNoop(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
		return nil, err
	}
	return NewValue(client.Noop{}), nil
}

// newPostgres is client.postgres(dsn, isolation="serializable",
// workload="list-append", accounts=5, total=100): a real PostgreSQL database.
// The configuration is checked here so a bad script fails at load time.
func newPostgres(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	p := &client.Postgres{Isolation: "serializable", Workload: "list-append", Accounts: 5, Total: 100}
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "dsn", &p.DSN, "isolation?", &p.Isolation,
		"workload?", &p.Workload, "accounts?", &p.Accounts, "total?", &p.Total); err != nil {
		return nil, err
	}
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	return NewValue(p), nil
}

// newEtcd is client.etcd(endpoints=None, timeout="1s", serializable=False):
// a real etcd cluster through its JSON gateway, each process on the node it
// is bound to unless endpoints (base URLs) are given.
func newEtcd(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var endpoints starlark.Value = starlark.None
	timeout := star.Duration(time.Second)
	e := &client.Etcd{}
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
	return NewValue(e), nil
}

// newDemoKV is client.demo_kv(timeout="1s", port=8080): the demo store of
// examples/demostore, each process on the node it is bound to; port is
// its HTTP port on a real node (local nodes get their own).
func newDemoKV(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	timeout := star.Duration(time.Second)
	port := client.DemoKVPort
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "timeout?", &timeout, "port?", &port); err != nil {
		return nil, err
	}
	if timeout <= 0 {
		return nil, fmt.Errorf("%s: timeout must be positive", b.Name())
	}
	if port < 1 || port > 65535 {
		return nil, fmt.Errorf("%s: port %d out of range", b.Name(), port)
	}
	return NewValue(&client.DemoKV{Timeout: time.Duration(timeout), Port: port}), nil
}
