// Package redismod is the Starlark "redis" module: Redis connections
// speaking RESP2, for clients written in Starlark (client.starlark).
//
//	c = redis.dial("127.0.0.1:6379", timeout = "5s")   # raise_errors = False: a redis.error if it fails
//	c.do("SET", "k", "v")            # "OK"
//	c.do("WAIT", 2, 500)             # 2: an int
//	c.do("GET", "missing")           # None
//	c.do("SMEMBERS", "s")            # a list
//	c.pipeline([["INCR", "n"], ["GET", "n"]])   # [1, "1"], one round trip
//	e = c.do("SET", "k", "v", raise_errors = False)
//	if redis.is_error(e): ...        # e.kind "READONLY", e.message, e.io
//	c.close()
//
// Replies map to Starlark as simple and bulk strings → str, null → None,
// integer → int, array → list. An error reply raises an error whose
// message is the server's ("NOREPLICAS Not enough good replicas to
// write."); since a script cannot catch it, `raise_errors = False` returns
// it instead as a redis.error value (falsy; `kind` is the first word,
// `io` is False), and a lost connection or timeout as one with `io` True:
// the difference a client needs between "refused" (fail) and "no answer"
// (info).
//
// timeout bounds the dial and every later command. Every blocking call
// also ends when the calling thread's run context does (star.Context):
// the op timed out or the run stopped. After a connection error the
// connection is out of step with the server and every later call fails:
// open a new one.
package redismod

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"
	"time"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"

	"github.com/faultline/faultline/client/errkind"
	"github.com/faultline/faultline/star"
)

// DefaultTimeout bounds a dial and each command when the script gives no
// timeout.
const DefaultTimeout = 5 * time.Second

func init() { star.Register("redis", Module) }

// Module is the Starlark "redis" module.
var Module = &starlarkstruct.Module{
	Name: "redis",
	Members: starlark.StringDict{
		"dial":     starlark.NewBuiltin("redis.dial", dial),
		"is_error": starlark.NewBuiltin("redis.is_error", isError),
	},
}

func dial(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var addr string
	timeout := star.Duration(DefaultTimeout)
	raise := true
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "addr", &addr, "timeout?", &timeout, "raise_errors?", &raise); err != nil {
		return nil, err
	}
	if timeout <= 0 {
		return nil, fmt.Errorf("%s: timeout must be positive", b.Name())
	}
	ctx, cancel := context.WithTimeout(star.Context(thread), time.Duration(timeout))
	defer cancel()
	c, err := (&net.Dialer{}).DialContext(ctx, "tcp", addr)
	if err != nil {
		if !raise {
			// Nothing was sent: the caller may treat it as a refusal.
			return &Error{Message: fmt.Sprintf("%s: %v", addr, err), IO: true, Kind: errkind.DialErrorKind(err)}, nil
		}
		return nil, fmt.Errorf("%s %s: %w", b.Name(), addr, err)
	}
	return &Conn{addr: addr, timeout: time.Duration(timeout), conn: c, r: bufio.NewReader(c)}, nil
}

func isError(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var v starlark.Value
	if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 1, &v); err != nil {
		return nil, err
	}
	_, ok := v.(interface{ ErrorKind() errkind.ErrorKind })
	return starlark.Bool(ok), nil
}

// Conn is a Redis connection as a Starlark value. Its methods are safe to
// call from several threads, one at a time.
type Conn struct {
	addr    string
	timeout time.Duration
	mu      sync.Mutex
	conn    net.Conn
	r       *bufio.Reader
	broken  error // the connection error that put it out of step
	closed  bool
}

var _ starlark.HasAttrs = (*Conn)(nil)

// String renders redis.conn("addr").
func (c *Conn) String() string { return fmt.Sprintf("redis.conn(%q)", c.addr) }

// Type is "redis.conn".
func (c *Conn) Type() string { return "redis.conn" }

// Freeze does nothing: the connection's state is guarded by its lock, so
// it may be shared by threads like any frozen value.
func (c *Conn) Freeze() {}

// Truth is true while the connection is open and in step.
func (c *Conn) Truth() starlark.Bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return starlark.Bool(!c.closed && c.broken == nil)
}

// Hash fails: connections are not dict keys.
func (c *Conn) Hash() (uint32, error) { return 0, errors.New("unhashable: redis.conn") }

var connMethods = map[string]star.Method[*Conn]{
	"do":       (*Conn).do,
	"pipeline": (*Conn).pipeline,
	"close":    (*Conn).close,
}

// Attr returns addr or a bound method.
func (c *Conn) Attr(name string) (starlark.Value, error) {
	if name == "addr" {
		return starlark.String(c.addr), nil
	}
	return star.Bind(connMethods, c, name), nil
}

// AttrNames lists addr and the methods.
func (c *Conn) AttrNames() []string { return star.MethodNames(connMethods, "addr") }

// raiseErrors reads the one keyword both do and pipeline take.
func raiseErrors(name string, kwargs []starlark.Tuple) (bool, error) {
	raise := true
	for _, kv := range kwargs {
		k := string(kv[0].(starlark.String))
		if k != "raise_errors" {
			return false, fmt.Errorf("%s: unexpected keyword argument %q", name, k)
		}
		b, ok := kv[1].(starlark.Bool)
		if !ok {
			return false, fmt.Errorf("%s: raise_errors must be a bool, got %s", name, kv[1].Type())
		}
		raise = bool(b)
	}
	return raise, nil
}

// commandArgs renders one command's arguments as the strings RESP sends:
// str and bytes as they are, int and float in decimal.
func commandArgs(name string, args starlark.Tuple) ([]string, error) {
	if len(args) == 0 {
		return nil, fmt.Errorf("%s: no command", name)
	}
	out := make([]string, len(args))
	for i, a := range args {
		switch v := a.(type) {
		case starlark.String:
			out[i] = string(v)
		case starlark.Bytes:
			out[i] = string(v)
		case starlark.Int:
			out[i] = v.String()
		case starlark.Float:
			out[i] = strconv.FormatFloat(float64(v), 'g', -1, 64)
		default:
			return nil, fmt.Errorf("%s: argument %d must be a str, bytes, int or float, got %s", name, i+1, a.Type())
		}
	}
	return out, nil
}

func (c *Conn) do(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	raise, err := raiseErrors(b.Name(), kwargs)
	if err != nil {
		return nil, err
	}
	cmd, err := commandArgs(b.Name(), args)
	if err != nil {
		return nil, err
	}
	replies, kind, err := c.roundTrip(thread, [][]string{cmd})
	if err != nil {
		return c.connError(b.Name(), err, kind, raise)
	}
	return c.toStarlark(b.Name(), cmd[0], replies[0], raise)
}

func (c *Conn) pipeline(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	raise, err := raiseErrors(b.Name(), kwargs)
	if err != nil {
		return nil, err
	}
	if len(args) != 1 {
		return nil, fmt.Errorf("%s: want one list of commands, got %d arguments", b.Name(), len(args))
	}
	iter, ok := args[0].(starlark.Iterable)
	if !ok {
		return nil, fmt.Errorf("%s: commands must be a list of lists, got %s", b.Name(), args[0].Type())
	}
	var cmds [][]string
	it := iter.Iterate()
	defer it.Done()
	var v starlark.Value
	for it.Next(&v) {
		seq, ok := v.(starlark.Indexable)
		if _, isStr := v.(starlark.String); !ok || isStr {
			return nil, fmt.Errorf("%s: command %d must be a list, got %s", b.Name(), len(cmds)+1, v.Type())
		}
		parts := make(starlark.Tuple, seq.Len())
		for i := range parts {
			parts[i] = seq.Index(i)
		}
		cmd, err := commandArgs(fmt.Sprintf("%s: command %d", b.Name(), len(cmds)+1), parts)
		if err != nil {
			return nil, err
		}
		cmds = append(cmds, cmd)
	}
	if len(cmds) == 0 {
		return starlark.NewList(nil), nil
	}
	replies, kind, err := c.roundTrip(thread, cmds)
	if err != nil {
		return c.connError(b.Name(), err, kind, raise)
	}
	out := make([]starlark.Value, len(replies))
	for i, r := range replies {
		if out[i], err = c.toStarlark(b.Name(), cmds[i][0], r, raise); err != nil {
			return nil, err
		}
	}
	return starlark.NewList(out), nil
}

// roundTrip sends cmds in one write and reads one reply for each, under
// the connection's lock and timeout, cut short when the thread's context
// ends: the context's end sets a past deadline, which wakes a blocked
// read or write.
//
// A failure comes back with its kind: not-sent when no byte of the
// commands was written, unknown after.
func (c *Conn) roundTrip(thread *starlark.Thread, cmds [][]string) ([]any, errkind.ErrorKind, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, errkind.NotSent, errors.New("connection closed")
	}
	if c.broken != nil {
		return nil, errkind.NotSent, fmt.Errorf("connection out of step after an earlier error (%v): dial a new one", c.broken)
	}
	ctx := star.Context(thread)
	if err := ctx.Err(); err != nil {
		return nil, errkind.NotSent, context.Cause(ctx)
	}
	if err := c.conn.SetDeadline(time.Now().Add(c.timeout)); err != nil {
		return nil, errkind.NotSent, err
	}
	stop := context.AfterFunc(ctx, func() { _ = c.conn.SetDeadline(time.Unix(1, 0)) })
	var buf []byte
	for _, cmd := range cmds {
		buf = AppendCommand(buf, cmd)
	}
	replies := make([]any, 0, len(cmds))
	wrote, err := c.conn.Write(buf)
	for err == nil && len(replies) < len(cmds) {
		var r any
		if r, err = ReadReply(c.r); err == nil {
			replies = append(replies, r)
		}
	}
	if !stop() {
		// The context ended during the call; whatever the read saw, say why.
		err = context.Cause(ctx)
	}
	if err != nil {
		c.broken = err
		return nil, errkind.IOErrorKind(err, wrote), err
	}
	return replies, "", nil
}

// connError is a connection error as do and pipeline report it: raised,
// or returned as a redis.error with io set.
func (c *Conn) connError(name string, err error, kind errkind.ErrorKind, raise bool) (starlark.Value, error) {
	if raise {
		return nil, fmt.Errorf("%s %s: %w", name, c.addr, err)
	}
	return &Error{Message: fmt.Sprintf("%s: %v", c.addr, err), IO: true, Kind: kind}, nil
}

// toStarlark converts one reply; a server error is raised, naming the
// command, or returned as a redis.error.
func (c *Conn) toStarlark(name, cmd string, r any, raise bool) (starlark.Value, error) {
	switch v := r.(type) {
	case nil:
		return starlark.None, nil
	case string:
		return starlark.String(v), nil
	case int64:
		return starlark.MakeInt64(v), nil
	case *RespError:
		if raise {
			return nil, fmt.Errorf("%s %s: %s: %s", name, c.addr, cmd, v.Message)
		}
		return &Error{Message: v.Message, Kind: errkind.Refused}, nil
	case []any:
		elems := make([]starlark.Value, len(v))
		for i, e := range v {
			// An error inside an array (EXEC's replies) is always a value:
			// the other elements are results the script needs.
			ev, err := c.toStarlark(name, cmd, e, false)
			if err != nil {
				return nil, err
			}
			elems[i] = ev
		}
		return starlark.NewList(elems), nil
	}
	return nil, fmt.Errorf("%s: reply of unexpected type %T", name, r)
}

func (c *Conn) close(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return starlark.None, nil
	}
	c.closed = true
	if err := c.conn.Close(); err != nil {
		return nil, fmt.Errorf("%s %s: %w", b.Name(), c.addr, err)
	}
	return starlark.None, nil
}

// Error is a Redis error as a Starlark value (redis.error), returned
// instead of raised when raise_errors = False: the server's error reply
// (IO false), or the connection's failure (IO true: the command may or
// may not have run).
//
// It also reads as every protocol module's error value does (star.ErrorValue):
// ok, error_kind ("refused" for an error reply; "not-sent" or "unknown" for
// a connection error), error and op_type.
type Error struct {
	Message string
	IO      bool
	Kind    errkind.ErrorKind
}

// ErrorKind is e's classification; it marks e as an error value.
func (e *Error) ErrorKind() errkind.ErrorKind { return e.Kind }

var _ starlark.HasAttrs = (*Error)(nil)

// String renders redis.error("message").
func (e *Error) String() string { return fmt.Sprintf("redis.error(%q)", e.Message) }

// Type is "redis.error".
func (e *Error) Type() string { return "redis.error" }

// Freeze does nothing: an Error is immutable.
func (e *Error) Freeze() {}

// Truth is false, so `if not reply` catches an error (as it does None).
func (e *Error) Truth() starlark.Bool { return starlark.False }

// Hash fails: errors are not dict keys.
func (e *Error) Hash() (uint32, error) { return 0, errors.New("unhashable: redis.error") }

// Attr returns message, kind or io.
func (e *Error) Attr(name string) (starlark.Value, error) {
	switch name {
	case "message":
		return starlark.String(e.Message), nil
	case "kind":
		if e.IO {
			return starlark.String("IO"), nil
		}
		return starlark.String((&RespError{Message: e.Message}).Kind()), nil
	case "io":
		return starlark.Bool(e.IO), nil
	}
	return star.ErrorAttr(e.Kind, e.Message, name), nil
}

// AttrNames lists the attributes.
func (e *Error) AttrNames() []string {
	return []string{"error", "error_kind", "io", "kind", "message", "ok", "op_type"}
}
