package client

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"go.starlark.net/starlark"

	"github.com/faultline/faultline/client"
	"github.com/faultline/faultline/star"
)

// newExec is client.exec(argv, timeout = "10s", env = {}, dir = "",
// service = "", port = 0): a command run per op on the worker's node, the
// op as JSON on its stdin, its stdout and exit status the completion (see
// client.Exec for the convention).
func newExec(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var argv *starlark.List
	var env *starlark.Dict
	timeout := star.Duration(client.DefaultExecTimeout)
	e := &client.Exec{}
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "argv", &argv, "timeout?", &timeout, "env?", &env,
		"dir?", &e.Dir, "service?", &e.Service, "port?", &e.Port); err != nil {
		return nil, err
	}
	for i := 0; i < argv.Len(); i++ {
		s, ok := starlark.AsString(argv.Index(i))
		if !ok {
			return nil, fmt.Errorf("%s: argv[%d] must be a string, got %s", b.Name(), i, argv.Index(i).Type())
		}
		e.Argv = append(e.Argv, s)
	}
	if env != nil {
		e.Env = map[string]string{}
		for _, item := range env.Items() {
			k, ok1 := starlark.AsString(item[0])
			v, ok2 := starlark.AsString(item[1])
			if !ok1 || !ok2 {
				return nil, fmt.Errorf("%s: env must map strings to strings, got %s: %s", b.Name(), item[0].Type(), item[1].Type())
			}
			e.Env[k] = v
		}
	}
	if timeout <= 0 {
		return nil, fmt.Errorf("%s: timeout must be positive", b.Name())
	}
	e.Timeout = time.Duration(timeout)
	if e.Service == "" && e.Port != 0 {
		return nil, fmt.Errorf("%s: port needs service (the name node.client_addr takes)", b.Name())
	}
	if err := e.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	return NewValue(e), nil
}

// newProcess is client.process(argv, timeout = "10s", env = {}, dir = "",
// service = "", port = 0): a long-lived process per client process,
// speaking JSON lines on stdin and stdout (see client.Process). dir, and
// so a relative command or script in argv, is relative to the directory
// of the file that calls client.process.
func newProcess(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var argv *starlark.List
	var env *starlark.Dict
	timeout := star.Duration(client.DefaultProcessTimeout)
	p := &client.Process{}
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "argv", &argv, "timeout?", &timeout, "env?", &env,
		"dir?", &p.Dir, "service?", &p.Service, "port?", &p.Port); err != nil {
		return nil, err
	}
	var err error
	if p.Argv, err = stringList(b.Name(), "argv", argv); err != nil {
		return nil, err
	}
	if p.Env, err = stringDict(b.Name(), env); err != nil {
		return nil, err
	}
	if timeout <= 0 {
		return nil, fmt.Errorf("%s: timeout must be positive", b.Name())
	}
	p.Timeout = time.Duration(timeout)
	if p.Service == "" && p.Port != 0 {
		return nil, fmt.Errorf("%s: port needs service (the name node.client_addr takes)", b.Name())
	}
	if !filepath.IsAbs(p.Dir) && thread.CallStackDepth() > 1 {
		if pos := thread.CallFrame(1).Pos; pos.IsValid() {
			if base := filepath.Dir(pos.Filename()); isDir(base) {
				p.Dir = filepath.Join(base, p.Dir)
			}
		}
	}
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	return NewValue(p), nil
}

func isDir(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.IsDir()
}

// stringList unpacks a list of strings.
func stringList(fn, what string, l *starlark.List) ([]string, error) {
	var out []string
	for i := 0; i < l.Len(); i++ {
		s, ok := starlark.AsString(l.Index(i))
		if !ok {
			return nil, fmt.Errorf("%s: %s[%d] must be a string, got %s", fn, what, i, l.Index(i).Type())
		}
		out = append(out, s)
	}
	return out, nil
}

// stringDict unpacks a dict of strings to strings (nil for None).
func stringDict(fn string, d *starlark.Dict) (map[string]string, error) {
	if d == nil {
		return nil, nil
	}
	out := map[string]string{}
	for _, item := range d.Items() {
		k, ok1 := starlark.AsString(item[0])
		v, ok2 := starlark.AsString(item[1])
		if !ok1 || !ok2 {
			return nil, fmt.Errorf("%s: env must map strings to strings, got %s: %s", fn, item[0].Type(), item[1].Type())
		}
		out[k] = v
	}
	return out, nil
}
