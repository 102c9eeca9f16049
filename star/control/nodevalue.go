package control

import (
	"errors"
	"fmt"
	"time"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
	"go.starlark.net/syntax"

	"github.com/faultline/faultline/star"

	"github.com/faultline/faultline/control"
)

// NodeValue is a node as a Starlark value: attributes name, host and port,
// and methods that act on the node through its pool's control.Remote. control.Node values
// compare and hash by name, so they work as dict keys.
type NodeValue struct {
	pool *control.Pool
	node control.Node
}

// NewNodeValue returns the value for the pool's node called name.
func NewNodeValue(p *control.Pool, name string) (*NodeValue, error) {
	n, ok := p.Node(name)
	if !ok {
		return nil, fmt.Errorf("unknown node %q", name)
	}
	return &NodeValue{pool: p, node: n}, nil
}

var (
	_ starlark.HasAttrs   = (*NodeValue)(nil)
	_ starlark.Comparable = (*NodeValue)(nil)
)

// String renders node("n1").
func (n *NodeValue) String() string { return fmt.Sprintf("node(%q)", n.node.Name) }

// Type is "node".
func (n *NodeValue) Type() string { return "node" }

// Freeze does nothing: a node value is immutable.
func (n *NodeValue) Freeze() {}

// Truth is always true.
func (n *NodeValue) Truth() starlark.Bool { return true }

// Hash hashes the name.
func (n *NodeValue) Hash() (uint32, error) { return starlark.String(n.node.Name).Hash() }

// CompareSameType supports == and != by name.
func (n *NodeValue) CompareSameType(op syntax.Token, y starlark.Value, _ int) (bool, error) {
	eq := n.node.Name == y.(*NodeValue).node.Name
	switch op {
	case syntax.EQL:
		return eq, nil
	case syntax.NEQ:
		return !eq, nil
	}
	return false, fmt.Errorf("nodes support only == and !=, not %s", op)
}

var nodeMethods = map[string]star.Method[*NodeValue]{
	"exec":         (*NodeValue).exec,
	"sudo":         (*NodeValue).sudo,
	"upload":       (*NodeValue).upload,
	"download":     (*NodeValue).download,
	"start_daemon": (*NodeValue).startDaemon,
	"stop_daemon":  (*NodeValue).stopDaemon,
	"signal":       (*NodeValue).signal,
	"await_port":   (*NodeValue).awaitPort,
	"exists":       (*NodeValue).exists,
	"listen_addr":  (*NodeValue).listenAddr,
	"addr_of":      (*NodeValue).addrOf,
	"client_addr":  (*NodeValue).clientAddr,
	"faultline":    (*NodeValue).faultlineBinary,
}

// Attr returns name, host, port or a bound method.
func (n *NodeValue) Attr(name string) (starlark.Value, error) {
	switch name {
	case "name":
		return starlark.String(n.node.Name), nil
	case "host":
		return starlark.String(n.node.Host), nil
	case "port":
		return starlark.MakeInt(n.node.Port), nil
	case "dir":
		if n.node.Dir != "" {
			return starlark.String(n.node.Dir), nil
		}
		return starlark.String(control.LocalDir), nil
	}
	return star.Bind(nodeMethods, n, name), nil
}

// AttrNames lists the attributes and methods.
func (n *NodeValue) AttrNames() []string {
	return star.MethodNames(nodeMethods, "name", "host", "port", "dir")
}

// clientAddr is client_addr(service, port) -> "host:port": what a test
// client dials to reach service on this node. On local nodes that is the
// mesh's proxy of the client's link to the node, so a partition cuts client
// traffic too; over SSH it is the node's host and port.
func (n *NodeValue) clientAddr(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var (
		service string
		port    int
	)
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "service", &service, "port", &port); err != nil {
		return nil, err
	}
	if port < 1 || port > 65535 {
		return nil, fmt.Errorf("%s: port %d out of range", b.Name(), port)
	}
	a, err := n.pool.Network().DialAddr(control.ClientEndpoint, n.node.Name, service, port)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	return starlark.String(a), nil
}

func (n *NodeValue) remote(thread *starlark.Thread) (control.Remote, error) {
	return n.pool.Remote(star.Context(thread), n.node.Name)
}

// exec is exec(*argv, raw=, dir=, env=, sudo=False, timeout=, check=True,
// stdin=) returning struct(stdout, stderr, exit). With check=False a non-zero
// exit is returned rather than raised; a lost connection always raises.
func (n *NodeValue) exec(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	return n.run(thread, b, args, kwargs, false)
}

// sudo is exec with sudo=True.
func (n *NodeValue) sudo(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	return n.run(thread, b, args, kwargs, true)
}

func (n *NodeValue) run(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple, sudo bool) (starlark.Value, error) {
	var (
		raw, dir, stdin string
		env             *starlark.Dict
		timeout         star.Duration
		check           = true
	)
	if err := starlark.UnpackArgs(b.Name(), nil, kwargs, "raw?", &raw, "dir?", &dir, "env?", &env,
		"sudo?", &sudo, "timeout?", &timeout, "check?", &check, "stdin?", &stdin); err != nil {
		return nil, err
	}
	argv, err := argvOf(args)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	envMap, err := stringMap(env)
	if err != nil {
		return nil, fmt.Errorf("%s: env: %w", b.Name(), err)
	}
	r, err := n.remote(thread)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	c := control.Cmd{Argv: argv, Raw: raw, Dir: dir, Env: envMap, Sudo: sudo, Stdin: []byte(stdin), Timeout: time.Duration(timeout)}
	res, err := r.Run(star.Context(thread), c)
	var ee *control.ExitError
	if err != nil && (check || !errors.As(err, &ee)) {
		return nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	return starlarkstruct.FromStringDict(starlarkstruct.Default, starlark.StringDict{
		"stdout": starlark.String(res.Stdout),
		"stderr": starlark.String(res.Stderr),
		"exit":   starlark.MakeInt(res.Exit),
	}), nil
}

func (n *NodeValue) upload(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var local, remote string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "local", &local, "remote", &remote); err != nil {
		return nil, err
	}
	return starlark.None, n.withRemote(thread, b, func(r control.Remote) error { return r.Upload(star.Context(thread), local, remote) })
}

func (n *NodeValue) download(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var remote, local string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "remote", &remote, "local", &local); err != nil {
		return nil, err
	}
	return starlark.None, n.withRemote(thread, b, func(r control.Remote) error { return r.Download(star.Context(thread), remote, local) })
}

// startDaemon is start_daemon(argv, pidfile=, logfile=, chdir=, env=, sudo=False) -> pid.
func (n *NodeValue) startDaemon(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var (
		argvV                   starlark.Value
		pidfile, logfile, chdir string
		env                     *starlark.Dict
		sudo                    bool
	)
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "argv", &argvV, "pidfile?", &pidfile, "logfile?", &logfile,
		"chdir?", &chdir, "env?", &env, "sudo?", &sudo); err != nil {
		return nil, err
	}
	argv, err := argvOf(starlark.Tuple{argvV})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	envMap, err := stringMap(env)
	if err != nil {
		return nil, fmt.Errorf("%s: env: %w", b.Name(), err)
	}
	var pid int
	err = n.withRemote(thread, b, func(r control.Remote) (err error) {
		pid, err = control.StartDaemon(star.Context(thread), r, control.Daemon{Argv: argv, Pidfile: pidfile, Logfile: logfile, Chdir: chdir, Env: envMap, Sudo: sudo})
		return err
	})
	if err != nil {
		return nil, err
	}
	return starlark.MakeInt(pid), nil
}

// stopDaemon is stop_daemon(pidfile, signal="TERM", timeout="10s", sudo=False) -> bool.
func (n *NodeValue) stopDaemon(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	s := control.Stop{Signal: "TERM"}
	grace := star.Duration(10 * time.Second)
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "pidfile", &s.Pidfile, "signal?", &s.Signal, "timeout?", &grace, "sudo?", &s.Sudo); err != nil {
		return nil, err
	}
	s.Grace = time.Duration(grace)
	var stopped bool
	err := n.withRemote(thread, b, func(r control.Remote) (err error) {
		stopped, err = control.StopDaemon(star.Context(thread), r, s)
		return err
	})
	if err != nil {
		return nil, err
	}
	return starlark.Bool(stopped), nil
}

// signal is signal(pid_or_pattern, sig="TERM", sudo=False) -> processes signalled.
func (n *NodeValue) signal(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var (
		target starlark.Value
		sig    = "TERM"
		sudo   bool
	)
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "target", &target, "sig?", &sig, "sudo?", &sudo); err != nil {
		return nil, err
	}
	var count int
	err := n.withRemote(thread, b, func(r control.Remote) (err error) {
		ctx := star.Context(thread)
		switch t := target.(type) {
		case starlark.Int:
			pid, ok := t.Int64()
			if !ok || pid <= 0 || pid > 1<<31 {
				return fmt.Errorf("bad pid %s", t)
			}
			count, err = control.SignalPID(ctx, r, int(pid), sig, sudo)
		case starlark.String:
			count, err = control.SignalMatching(ctx, r, string(t), sig, sudo)
		default:
			err = fmt.Errorf("want a pid or a command-line pattern, got %s", target.Type())
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return starlark.MakeInt(count), nil
}

// awaitPort is await_port(port, timeout="60s").
func (n *NodeValue) awaitPort(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var port int
	timeout := star.Duration(time.Minute)
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "port", &port, "timeout?", &timeout); err != nil {
		return nil, err
	}
	return starlark.None, n.withRemote(thread, b, func(r control.Remote) error {
		// Slow (emulated) nodes stretch the readiness wait by their
		// measured slowdown (control.Pool.ScaleTimeout).
		return control.AwaitPort(star.Context(thread), r, port, n.pool.ScaleTimeout(time.Duration(timeout)))
	})
}

// exists is exists(path) -> bool.
func (n *NodeValue) exists(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var path string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "path", &path); err != nil {
		return nil, err
	}
	var ok bool
	err := n.withRemote(thread, b, func(r control.Remote) (err error) {
		ok, err = control.Exists(star.Context(thread), r, path)
		return err
	})
	if err != nil {
		return nil, err
	}
	return starlark.Bool(ok), nil
}

// withRemote runs fn with the node's control.Remote, prefixing errors with the method.
func (n *NodeValue) withRemote(thread *starlark.Thread, b *starlark.Builtin, fn func(control.Remote) error) error {
	r, err := n.remote(thread)
	if err == nil {
		err = fn(r)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", b.Name(), err)
	}
	return nil
}

// argvOf accepts the arguments as separate strings (or ints), or a single
// list or tuple of them.
func argvOf(args starlark.Tuple) ([]string, error) {
	if len(args) == 1 {
		switch l := args[0].(type) {
		case *starlark.List:
			args = listElems(l)
		case starlark.Tuple:
			args = l
		}
	}
	argv := make([]string, len(args))
	for i, a := range args {
		switch a := a.(type) {
		case starlark.String:
			argv[i] = string(a)
		case starlark.Int:
			argv[i] = a.String()
		default:
			return nil, fmt.Errorf("argument %d: want a string or int, got %s", i, a.Type())
		}
	}
	return argv, nil
}

func listElems(l *starlark.List) starlark.Tuple {
	out := make(starlark.Tuple, l.Len())
	for i := range out {
		out[i] = l.Index(i)
	}
	return out
}

// stringMap converts an env dict of string keys to string or int values.
func stringMap(d *starlark.Dict) (map[string]string, error) {
	if d == nil || d.Len() == 0 {
		return nil, nil
	}
	out := make(map[string]string, d.Len())
	for _, kv := range d.Items() {
		k, ok := kv[0].(starlark.String)
		if !ok {
			return nil, fmt.Errorf("key %s is a %s, want a string", kv[0], kv[0].Type())
		}
		switch v := kv[1].(type) {
		case starlark.String:
			out[string(k)] = string(v)
		case starlark.Int:
			out[string(k)] = v.String()
		default:
			return nil, fmt.Errorf("%s: want a string or int, got %s", k, v.Type())
		}
	}
	return out, nil
}
