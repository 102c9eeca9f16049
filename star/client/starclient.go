package client

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"go.starlark.net/starlark"

	"github.com/faultline/faultline/client"
	"github.com/faultline/faultline/control"
	"github.com/faultline/faultline/history"
	"github.com/faultline/faultline/star"
	starcontrol "github.com/faultline/faultline/star/control"
	"github.com/faultline/faultline/star/httpmod"
)

// Limits of client.starlark's calls that have no op deadline of their own.
const (
	// StarlarkOpenTimeout bounds open(node) and close(conn).
	StarlarkOpenTimeout = 30 * time.Second
	// StarlarkSetupTimeout bounds setup and teardown on all nodes.
	StarlarkSetupTimeout = 2 * time.Minute
	// starlarkSteps bounds each call's Starlark work, so a runaway loop in
	// invoke ends as that op's info rather than a hung worker.
	starlarkSteps = 50_000_000
)

// Starlark is a client written in Starlark, Jepsen's client protocol:
//
//		client.starlark(open, invoke, close = None, setup = None, teardown = None,
//		                retries = None, hidden_retries = False)
//
//	  - setup(node) runs once per run on every node, in parallel, before the
//	    first op (Jepsen calls setup! per client; once per node is what a
//	    suite needs to create tables or wait for readiness). teardown(node)
//	    likewise once per run on every node when the run ends.
//	  - open(node) runs for each worker process on the node it is bound to and
//	    returns the connection value. A process whose op ended info is
//	    replaced, so its successor calls open again.
//	  - invoke(conn, op) gets op as a dict: f, key (when set), value, process,
//	    node. It returns the completion as a dict: type "ok" | "fail" | "info",
//	    optional value (absent: the invocation's value, as Jepsen's
//	    (assoc op :type :ok) keeps it), optional error, and optional extra:
//	    a dict of more fields to record on the op (a stream sequence, a
//	    zxid), kept in history.jsonl and EDN as Jepsen keeps any key of an
//	    op map. Extra names may not be the op's own fields.
//	  - close(conn) when the worker ends.
//
// An error raised by invoke, a return that is not such a dict, or the op's
// timeout makes the op info with the message and script position. Each
// worker has its own Starlark thread, with its own random stream seeded
// from the run's seed and the thread's name; the functions and their
// module are frozen when the run starts, so workers share nothing mutable.
//
// retries is the author's account of how the client resends requests (for
// the hidden-retries audit); None leaves that audit unable to judge.
type Starlark struct {
	OpenFn, InvokeFn             starlark.Callable
	CloseFn, SetupFn, TeardownFn starlark.Callable // nil when not given
	RetriesHow                   string            // "" when the script did not say
	HiddenRetries                bool
}

var (
	_ client.Client        = (*Starlark)(nil)
	_ client.PoolStarter   = (*Starlark)(nil)
	_ client.RetryReporter = (*Starlark)(nil)
	_ client.Ender         = (*starSession)(nil)
)

// newStarlark is client.starlark(open, invoke, close=None, setup=None,
// teardown=None, retries=None, hidden_retries=False).
func newStarlark(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var open, invoke, closeFn, setup, teardown starlark.Value = nil, nil, starlark.None, starlark.None, starlark.None
	var retries starlark.Value = starlark.None
	var hidden bool
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "open", &open, "invoke", &invoke,
		"close?", &closeFn, "setup?", &setup, "teardown?", &teardown, "retries?", &retries, "hidden_retries?", &hidden); err != nil {
		return nil, err
	}
	c := &Starlark{HiddenRetries: hidden}
	switch r := retries.(type) {
	case starlark.NoneType:
		if hidden {
			return nil, fmt.Errorf("%s: hidden_retries needs retries, the account of how the client resends", b.Name())
		}
	case starlark.String:
		if strings.TrimSpace(string(r)) == "" {
			return nil, fmt.Errorf("%s: retries must say how the client resends requests, got an empty string", b.Name())
		}
		c.RetriesHow = string(r)
	default:
		return nil, fmt.Errorf("%s: retries must be a string or None, got %s", b.Name(), retries.Type())
	}
	for _, a := range []struct {
		name     string
		v        starlark.Value
		dst      *starlark.Callable
		optional bool
	}{
		{"open", open, &c.OpenFn, false}, {"invoke", invoke, &c.InvokeFn, false},
		{"close", closeFn, &c.CloseFn, true}, {"setup", setup, &c.SetupFn, true}, {"teardown", teardown, &c.TeardownFn, true},
	} {
		if a.optional && a.v == starlark.None {
			continue
		}
		fn, ok := a.v.(starlark.Callable)
		if !ok {
			return nil, fmt.Errorf("%s: %s must be a function, got %s", b.Name(), a.name, a.v.Type())
		}
		*a.dst = fn
	}
	return NewValue(c), nil
}

// String implements client.Client.
func (c *Starlark) String() string {
	return fmt.Sprintf("client.starlark(open=%s, invoke=%s)", c.OpenFn.Name(), c.InvokeFn.Name())
}

// freeze freezes the functions, as the script's value does when frozen.
func (c *Starlark) freeze() {
	for _, fn := range c.funcs() {
		fn.Freeze()
	}
}

// Retries implements client.RetryReporter with what the script declared;
// an empty how (nothing declared) leaves the audit unable to judge.
func (c *Starlark) Retries() (hidden bool, how string) {
	if c.RetriesHow == "" {
		return false, ""
	}
	return c.HiddenRetries, "declared by the client script: " + c.RetriesHow
}

// Simulated implements client.Client: the script talks to real systems in real time.
func (c *Starlark) Simulated() bool { return false }

func (c *Starlark) funcs() []starlark.Callable {
	var out []starlark.Callable
	for _, fn := range []starlark.Callable{c.OpenFn, c.InvokeFn, c.CloseFn, c.SetupFn, c.TeardownFn} {
		if fn != nil {
			out = append(out, fn)
		}
	}
	return out
}

// Start implements client.Client. open gets a node value, which only a run with
// nodes has.
func (c *Starlark) Start(uint64) (client.Session, error) {
	return nil, errors.New("client.starlark: the run has no nodes to open (give --local, --nodes or --nodes-file, or declare nodes)")
}

// StartPool implements client.PoolStarter: it freezes the functions and their
// modules' globals (workers run them on several threads at once) and runs
// setup on every node. setup and open stop when ctx (the run's) ends;
// teardown and close still run after it, within their own limits.
func (c *Starlark) StartPool(ctx context.Context, seed uint64, pool *control.Pool, out io.Writer) (client.Session, error) {
	if pool == nil {
		return c.Start(0)
	}
	if out == nil {
		out = os.Stderr
	}
	for _, fn := range c.funcs() {
		fn.Freeze()
		if f, ok := fn.(*starlark.Function); ok {
			for _, v := range f.Globals() {
				v.Freeze()
			}
		}
	}
	end, cancel := context.WithCancel(context.WithoutCancel(ctx))
	s := &starSession{cfg: c, pool: pool, out: out, seed: seed, run: ctx, end: end, cancel: cancel, http: httpmod.NewClient()}
	if c.SetupFn != nil {
		if err := s.onEveryNode(ctx, "setup", c.SetupFn); err != nil {
			s.http.CloseIdleConnections()
			cancel()
			return nil, err
		}
	}
	return s, nil
}

type starSession struct {
	cfg    *Starlark
	pool   *control.Pool
	out    io.Writer
	seed   uint64          // the run's: each thread's random stream derives from it
	run    context.Context // the run's: setup and open stop with it
	end    context.Context // teardown and close: outlives an interrupted run, ends at Close
	cancel context.CancelFunc
	http   *http.Client // one pool of connections for the run's http.request calls
	once   sync.Once    // teardown runs once
	endErr error
}

// thread makes a Starlark thread for the client's code: print to the run's
// output, the run's nodes and HTTP client, ctx as its context, and a random
// stream of its own, seeded from the run's seed and the thread's name so
// that the same seed makes the same draws on the same worker.
func (s *starSession) thread(name string, ctx context.Context) *starlark.Thread {
	out := s.out
	t := &starlark.Thread{Name: name, Print: func(_ *starlark.Thread, msg string) { fmt.Fprintln(out, msg) }}
	star.SetContext(t, ctx)
	star.SetPool(t, s.pool)
	h := fnv.New64a()
	h.Write([]byte(name))
	star.SetRand(t, rand.New(rand.NewPCG(s.seed, h.Sum64())))
	t.SetLocal(httpmod.ClientLocal, s.http)
	return t
}

// call runs fn(args) on thread with ctx as its context: the thread is
// cancelled when ctx ends, and gets a fresh step budget. cancelled reports
// whether ctx ended during the call, which leaves the thread unusable.
func call(ctx context.Context, thread *starlark.Thread, fn starlark.Callable, args starlark.Tuple) (v starlark.Value, cancelled bool, err error) {
	star.SetContext(thread, ctx)
	thread.SetMaxExecutionSteps(thread.ExecutionSteps() + starlarkSteps)
	stop := context.AfterFunc(ctx, func() { thread.Cancel(context.Cause(ctx).Error()) })
	v, err = starlark.Call(thread, fn, args, nil)
	return v, !stop(), err
}

// onEveryNode runs fn(node) on each node in parallel with control.on_nodes'
// semantics: each call runs to its end; the error names every failed node.
func (s *starSession) onEveryNode(parent context.Context, what string, fn starlark.Callable) error {
	ctx, cancel := context.WithTimeoutCause(parent, StarlarkSetupTimeout, fmt.Errorf("client %s took over %s", what, StarlarkSetupTimeout))
	defer cancel()
	thread := s.thread("client/"+what, ctx)
	if _, _, err := call(ctx, thread, starcontrol.Module.Members["on_nodes"].(starlark.Callable), starlark.Tuple{fn}); err != nil {
		return fmt.Errorf("client %s: %s", what, scriptMessage(err))
	}
	return nil
}

// Open implements client.Session: open(node) on the worker's own thread.
func (s *starSession) Open(_, process int, node string) (client.Worker, error) {
	nv, err := starcontrol.NewNodeValue(s.pool, node)
	if err != nil {
		return nil, fmt.Errorf("client open: %w", err)
	}
	ctx, cancel := context.WithTimeoutCause(s.run, StarlarkOpenTimeout, fmt.Errorf("client open took over %s", StarlarkOpenTimeout))
	defer cancel()
	thread := s.thread(fmt.Sprintf("client/%d", process), ctx)
	conn, cancelled, err := call(ctx, thread, s.cfg.OpenFn, starlark.Tuple{nv})
	if err != nil {
		return nil, fmt.Errorf("client open on %s: %s", node, scriptMessage(err))
	}
	if cancelled {
		return nil, fmt.Errorf("client open on %s: %v", node, context.Cause(ctx))
	}
	return &starWorker{s: s, thread: thread, conn: conn, node: node}, nil
}

// End implements client.Ender: teardown on every node, once, while the system
// still runs.
func (s *starSession) End() error {
	s.once.Do(func() {
		if s.cfg.TeardownFn != nil {
			s.endErr = s.onEveryNode(s.end, "teardown", s.cfg.TeardownFn)
		}
	})
	return s.endErr
}

// Close implements client.Session: End if the run did not, then release the
// connections.
func (s *starSession) Close() error {
	err := s.End()
	s.cancel()
	s.http.CloseIdleConnections()
	return err
}

// starWorker is one process's connection and thread.
type starWorker struct {
	s      *starSession
	thread *starlark.Thread
	conn   starlark.Value
	node   string
	dead   string // why the thread can no longer run (cancelled mid-call)
}

// Invoke implements client.Worker.
func (w *starWorker) Invoke(ctx context.Context, op history.Op) history.Op {
	if w.dead != "" {
		return indeterminate(op, "client thread unusable: "+w.dead)
	}
	od, err := opDict(op)
	if err != nil {
		op.Type = history.Fail
		op.Error = "client.starlark: " + err.Error()
		return op
	}
	v, cancelled, err := call(ctx, w.thread, w.s.cfg.InvokeFn, starlark.Tuple{w.conn, od})
	if cancelled {
		w.dead = context.Cause(ctx).Error()
		return indeterminate(op, "invoke: "+w.dead)
	}
	if err != nil {
		if client.IsDefinite(err) {
			// A builtin (sql's, say) knows the op cannot have taken effect.
			op.Type, op.Error = history.Fail, "invoke: "+scriptMessage(err)
			return op
		}
		return indeterminate(op, "invoke: "+scriptMessage(err))
	}
	return completion(op, v)
}

// Close implements client.Worker: close(conn), on a fresh thread if the worker's
// own was cancelled.
func (w *starWorker) Close() error {
	fn := w.s.cfg.CloseFn
	if fn == nil {
		return nil
	}
	ctx, cancel := context.WithTimeoutCause(w.s.end, StarlarkOpenTimeout, fmt.Errorf("client close took over %s", StarlarkOpenTimeout))
	defer cancel()
	thread := w.thread
	if w.dead != "" {
		thread = w.s.thread(w.thread.Name+"/close", ctx)
	}
	if _, _, err := call(ctx, thread, fn, starlark.Tuple{w.conn}); err != nil {
		return fmt.Errorf("client close on %s: %s", w.node, scriptMessage(err))
	}
	return nil
}

// indeterminate completes op as info: it may or may not have taken effect.
func indeterminate(op history.Op, msg string) history.Op {
	op.Type = history.Info
	op.Error = msg
	return op
}

// opDict is op as invoke sees it: f, key (only when the op has one), value,
// process and node.
func opDict(op history.Op) (*starlark.Dict, error) {
	d := starlark.NewDict(5)
	set := func(k string, v any) error {
		sv, err := star.FromGo(v)
		if err != nil {
			return fmt.Errorf("op %s: %w", k, err)
		}
		return d.SetKey(starlark.String(k), sv)
	}
	if err := set("f", op.F); err != nil {
		return nil, err
	}
	if op.Key != nil {
		if err := set("key", op.Key); err != nil {
			return nil, err
		}
	}
	if err := set("value", op.Value); err != nil {
		return nil, err
	}
	if err := set("process", int64(op.Process)); err != nil {
		return nil, err
	}
	if err := set("node", op.Node); err != nil {
		return nil, err
	}
	return d, nil
}

// completion turns what invoke returned into op's completion; anything but
// a dict of type and optional value, error and extra is the script's mistake, and
// since the op may have been sent, it is info.
func completion(op history.Op, v starlark.Value) history.Op {
	d, ok := v.(*starlark.Dict)
	if !ok {
		return indeterminate(op, fmt.Sprintf("invoke must return a dict with type \"ok\", \"fail\" or \"info\", got %s", v.Type()))
	}
	var typ string
	out := op
	for _, item := range d.Items() {
		k, ok := item[0].(starlark.String)
		if !ok {
			return indeterminate(op, fmt.Sprintf("invoke returned a dict with key %s; keys are type, value, error and extra", item[0]))
		}
		switch string(k) {
		case "type":
			s, ok := item[1].(starlark.String)
			if !ok {
				return indeterminate(op, fmt.Sprintf("invoke returned type %s; want \"ok\", \"fail\" or \"info\"", item[1]))
			}
			typ = string(s)
		case "value":
			gv, err := star.ToGo(item[1])
			if err != nil {
				return indeterminate(op, "invoke returned an unusable value: "+err.Error())
			}
			out.Value = gv
		case "error":
			gv, err := star.ToGo(item[1])
			if err != nil {
				return indeterminate(op, "invoke returned an unusable error: "+err.Error())
			}
			out.Error = gv
		case "extra":
			gv, err := star.ToGo(item[1])
			m, isMap := gv.(map[string]any)
			switch {
			case err != nil:
				return indeterminate(op, "invoke returned unusable extra fields: "+err.Error())
			case !isMap && item[1] != starlark.None:
				return indeterminate(op, fmt.Sprintf("invoke returned extra = %s; want a dict of field name to value", item[1].Type()))
			}
			if out, err = history.WithExtra(out, m); err != nil {
				return indeterminate(op, "invoke returned "+err.Error())
			}
		default:
			return indeterminate(op, fmt.Sprintf("invoke returned a dict with key %q; keys are type, value, error and extra", string(k)))
		}
	}
	t, ok := history.Outcome(typ)
	switch {
	case typ == "":
		return indeterminate(op, "invoke returned a dict without type; want \"ok\", \"fail\" or \"info\"")
	case !ok:
		return indeterminate(op, fmt.Sprintf("invoke returned type %q; want \"ok\", \"fail\" or \"info\"", typ))
	}
	out.Type = t
	return out
}

// scriptMessage is err's message led by the innermost script position, so
// a failure in a client names the line that raised it.
func scriptMessage(err error) string {
	var ee *starlark.EvalError
	if !errors.As(err, &ee) {
		return err.Error()
	}
	msg := ee.Msg
	for i := len(ee.CallStack) - 1; i >= 0; i-- {
		pos := ee.CallStack[i].Pos
		if pos.IsValid() && pos.Filename() != "<builtin>" {
			return fmt.Sprintf("%s: %s", pos, msg)
		}
	}
	return strings.TrimSpace(msg)
}
