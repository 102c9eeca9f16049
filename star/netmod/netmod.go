// Package netmod is the Starlark "net" module: plain TCP connections for
// clients written in Starlark (client.starlark).
//
//	c = net.dial("127.0.0.1:6379", timeout = "5s")
//	c.send("PING\r\n")          # bytes or string; returns the bytes written
//	c.read_line()               # one line, without its "\n" or "\r\n"
//	c.read(5)                   # exactly 5 bytes, as bytes
//	c.set_deadline("500ms")     # every later call must finish within 500ms of now; None clears it
//	c.close()
//
// Every call raises on failure unless given raise_errors = False: then it
// returns an error value (star.ErrorValue: ok False, error_kind, error,
// op_type) that says what the failure means for the op — "not-sent" when
// the dial failed or nothing of the request was written (record fail),
// "unknown" when the connection failed after the request was written
// (record info). net never sees an answer it could call "refused": a
// protocol's error reply is the script's to read.
//
// Every blocking call also ends when the calling thread's run context does
// (star.Context): the op timed out or the run stopped. A client thread's
// context is its op's, so a hung server costs one op, not the run.
package netmod

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"

	"github.com/faultline/faultline/client/errkind"
	"github.com/faultline/faultline/internal/binfmt"
	"github.com/faultline/faultline/star"
)

// DefaultTimeout bounds a dial when the script gives no timeout.
const DefaultTimeout = 5 * time.Second

// maxLine bounds read_line so a peer that never sends "\n" cannot make a
// script buffer without limit.
const maxLine = 1 << 20

// Module is the Starlark "net" module.
func init() { star.Register("net", Module) }

var Module = &starlarkstruct.Module{
	Name: "net",
	Members: starlark.StringDict{
		"dial":     starlark.NewBuiltin("net.dial", dial),
		"is_error": star.IsErrorBuiltin("net.is_error"),
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
		return failed(fmt.Errorf("%s %s: %w", b.Name(), addr, err), errkind.DialErrorKind(err), raise)
	}
	return &Conn{addr: addr, conn: c, r: bufio.NewReader(c)}, nil
}

// Conn is a TCP connection as a Starlark value. Its methods are safe to
// call from several threads, one at a time.
type Conn struct {
	addr     string
	mu       sync.Mutex
	conn     net.Conn
	r        *bufio.Reader
	deadline time.Time // zero: none
	closed   bool
	// pending counts the bytes written since the last read that returned
	// data: the request whose answer is awaited. A failure while it is
	// zero lost nothing that was sent.
	pending int
}

// failed is a failure as a call reports it: raised, or returned as an
// error value of kind k when the script asked for errors as values.
func failed(err error, k errkind.ErrorKind, raise bool) (starlark.Value, error) {
	if raise {
		return nil, err
	}
	return star.NewError(k, err), nil
}

// raiseErrors reads the raise_errors keyword the connection's I/O
// methods take, leaving the others to UnpackArgs.
func raiseErrors(name string, kwargs []starlark.Tuple) ([]starlark.Tuple, bool, error) {
	raise := true
	var rest []starlark.Tuple
	for _, kv := range kwargs {
		if string(kv[0].(starlark.String)) != "raise_errors" {
			rest = append(rest, kv)
			continue
		}
		b, ok := kv[1].(starlark.Bool)
		if !ok {
			return nil, false, fmt.Errorf("%s: raise_errors must be a bool, got %s", name, kv[1].Type())
		}
		raise = bool(b)
	}
	return rest, raise, nil
}

var _ starlark.HasAttrs = (*Conn)(nil)

// String renders net.conn("addr").
func (c *Conn) String() string { return fmt.Sprintf("net.conn(%q)", c.addr) }

// Type is "net.conn".
func (c *Conn) Type() string { return "net.conn" }

// Freeze does nothing: the connection's state is guarded by its lock, so
// it may be shared by threads like any frozen value.
func (c *Conn) Freeze() {}

// Truth is true while the connection is open.
func (c *Conn) Truth() starlark.Bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return starlark.Bool(!c.closed)
}

// Hash fails: connections are not dict keys.
func (c *Conn) Hash() (uint32, error) { return 0, errors.New("unhashable: net.conn") }

var connMethods = map[string]star.Method[*Conn]{
	"send":         (*Conn).send,
	"read_line":    (*Conn).readLine,
	"read":         (*Conn).read,
	"read_frame":   (*Conn).readFrame,
	"set_deadline": (*Conn).setDeadline,
	"close":        (*Conn).close,
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

// io runs fn under the connection's lock and deadline, cutting it short
// when the thread's context ends: the context's end sets a past deadline,
// which wakes any blocked read or write.
//
// fn returns how many bytes it wrote (a send) and whether it read any (a
// read that got data ends the pending request). A failure comes back
// with its kind: errkind.IOErrorKind of the pending request's bytes.
func (c *Conn) io(thread *starlark.Thread, what string, fn func() (wrote int, read bool, err error)) (errkind.ErrorKind, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return errkind.NotSent, fmt.Errorf("%s %s: connection closed", what, c.addr)
	}
	ctx := star.Context(thread)
	if err := ctx.Err(); err != nil {
		return errkind.NotSent, fmt.Errorf("%s %s: %v", what, c.addr, context.Cause(ctx))
	}
	if err := c.conn.SetDeadline(c.deadline); err != nil {
		return errkind.NotSent, fmt.Errorf("%s %s: %w", what, c.addr, err)
	}
	stop := context.AfterFunc(ctx, func() { _ = c.conn.SetDeadline(time.Unix(1, 0)) })
	wrote, read, err := fn()
	c.pending += wrote
	if !stop() {
		// The context ended during the call; whatever fn saw, report why.
		err = fmt.Errorf("%v", context.Cause(ctx))
	}
	if err != nil {
		return errkind.IOErrorKind(err, c.pending), fmt.Errorf("%s %s: %w", what, c.addr, err)
	}
	if read {
		c.pending = 0
	}
	return "", nil
}

func (c *Conn) send(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	kwargs, raise, err := raiseErrors(b.Name(), kwargs)
	if err != nil {
		return nil, err
	}
	var data starlark.Value
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "data", &data); err != nil {
		return nil, err
	}
	var buf []byte
	switch d := data.(type) {
	case starlark.String:
		buf = []byte(d)
	case starlark.Bytes:
		buf = []byte(d)
	default:
		return nil, fmt.Errorf("%s: data must be bytes or a string, got %s", b.Name(), data.Type())
	}
	var n int
	kind, err := c.io(thread, b.Name(), func() (int, bool, error) {
		var err error
		n, err = c.conn.Write(buf)
		return n, false, err
	})
	if err != nil {
		return failed(err, kind, raise)
	}
	return starlark.MakeInt(n), nil
}

func (c *Conn) readLine(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	kwargs, raise, err := raiseErrors(b.Name(), kwargs)
	if err != nil {
		return nil, err
	}
	if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
		return nil, err
	}
	var line []byte
	kind, err := c.io(thread, b.Name(), func() (int, bool, error) {
		err := c.readLineInto(&line)
		return 0, len(line) > 0, err
	})
	if err != nil {
		return failed(err, kind, raise)
	}
	n := len(line)
	if n > 0 && line[n-1] == '\n' {
		n--
		if n > 0 && line[n-1] == '\r' {
			n--
		}
	}
	return starlark.String(line[:n]), nil
}

// readLineInto reads one line, its newline included, into *line.
func (c *Conn) readLineInto(line *[]byte) error {
	{
		for {
			chunk, err := c.r.ReadSlice('\n')
			*line = append(*line, chunk...)
			if len(*line) > maxLine {
				return fmt.Errorf("line longer than %d bytes", maxLine)
			}
			if err == bufio.ErrBufferFull {
				continue
			}
			if err == io.EOF && len(*line) > 0 {
				return nil // a last line without its newline
			}
			return err
		}
	}
}

func (c *Conn) read(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	kwargs, raise, err := raiseErrors(b.Name(), kwargs)
	if err != nil {
		return nil, err
	}
	var n int
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "n", &n); err != nil {
		return nil, err
	}
	if n < 0 || n > maxLine*16 {
		return nil, fmt.Errorf("%s: n must be between 0 and %d, got %d", b.Name(), maxLine*16, n)
	}
	buf := make([]byte, n)
	kind, err := c.io(thread, b.Name(), func() (int, bool, error) {
		got, err := io.ReadFull(c.r, buf)
		return 0, got > 0, err
	})
	if err != nil {
		return failed(err, kind, raise)
	}
	return starlark.Bytes(buf), nil
}

func (c *Conn) setDeadline(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var d starlark.Value
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "d", &d); err != nil {
		return nil, err
	}
	var deadline time.Time
	if d != starlark.None {
		var dur star.Duration
		if err := dur.Unpack(d); err != nil {
			return nil, fmt.Errorf("%s: %w", b.Name(), err)
		}
		if dur > 0 {
			deadline = time.Now().Add(time.Duration(dur))
		}
	}
	c.mu.Lock()
	c.deadline = deadline
	c.mu.Unlock()
	return starlark.None, nil
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

// maxFrame bounds read_frame's default frame size.
const maxFrame = 16 << 20

func (c *Conn) readFrame(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	kwargs, raise, err := raiseErrors(b.Name(), kwargs)
	if err != nil {
		return nil, err
	}
	prefix, limit := ">I", maxFrame
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "prefix?", &prefix, "max?", &limit); err != nil {
		return nil, err
	}
	pf, err := binfmt.Prefix(prefix)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	if limit < 0 || limit > maxLine*16 {
		return nil, fmt.Errorf("%s: max must be between 0 and %d, got %d", b.Name(), maxLine*16, limit)
	}
	var body []byte
	kind, err := c.io(thread, b.Name(), func() (int, bool, error) {
		var got int
		var err error
		body, got, err = binfmt.ReadFrame(c.r, pf, limit)
		return 0, got > 0, err
	})
	if err != nil {
		return failed(err, kind, raise)
	}
	return starlark.Bytes(body), nil
}
