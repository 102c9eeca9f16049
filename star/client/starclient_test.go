package client

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
	"go.starlark.net/syntax"

	"github.com/faultline/faultline/client"
	"github.com/faultline/faultline/control"
	"github.com/faultline/faultline/history"
	"github.com/faultline/faultline/star"
	starcontrol "github.com/faultline/faultline/star/control"
	"github.com/faultline/faultline/star/httpmod"
	"github.com/faultline/faultline/star/netmod"
)

// starlarkClient is the client.starlark client behind a script's value.
func starlarkClient(v starlark.Value) (*Starlark, bool) {
	c, _ := FromStarlark(v)
	s, ok := c.(*Starlark)
	return s, ok
}

// loadStarClient executes src (which must bind `c` to a client.starlark
// value) with the modules a script sees, and starts it on a one-node pool.
func loadStarClient(t *testing.T, src string) (*Starlark, client.Session) {
	t.Helper()
	return loadStarClientSeed(t, src, 1)
}

// loadStarClientSeed is loadStarClient with the run's seed given. Scripts
// also see draw(), a draw from the calling thread's random stream.
func loadStarClientSeed(t *testing.T, src string, seed uint64) (*Starlark, client.Session) {
	t.Helper()
	pre := starlark.StringDict{
		"draw": starlark.NewBuiltin("draw", func(thread *starlark.Thread, b *starlark.Builtin, _ starlark.Tuple, _ []starlark.Tuple) (starlark.Value, error) {
			r := star.Rand(thread)
			if r == nil {
				return nil, errors.New("no random stream on this thread")
			}
			return starlark.MakeInt64(r.Int64N(1 << 40)), nil
		}),
		"client":  Module,
		"control": starcontrol.Module,
		"http":    httpmod.Module,
		"net":     netmod.Module,
		"struct":  starlark.NewBuiltin("struct", starlarkstruct.Make),
	}
	opts := &syntax.FileOptions{Set: true, While: true, TopLevelControl: true, Recursion: true}
	g, err := starlark.ExecFileOptions(opts, &starlark.Thread{Name: "load"}, "client_test.star", src, pre)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	g.Freeze()
	c, ok := starlarkClient(g["c"])
	if !ok {
		t.Fatalf("c is %v, want a client.starlark value", g["c"])
	}
	pool, err := control.NewPool([]control.Node{{Name: "n1", Host: "127.0.0.1"}}, control.LocalDialer())
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	sess, err := c.StartPool(context.Background(), seed, pool, &out)
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	t.Cleanup(func() {
		if err := sess.Close(); err != nil {
			t.Errorf("session close: %v", err)
		}
	})
	return c, sess
}

// TestStarlarkCompletion maps what invoke returns (or raises) to the
// completion recorded in the history.
func TestStarlarkCompletion(t *testing.T) {
	const src = `
def open(node):
    return {"node": node.name}

def invoke(conn, op):
    f = op["f"]
    if f == "echo":      # the op dict as invoke sees it, back as the value
        return {"type": "ok", "value": [op["f"], op.get("key"), op["value"], op["process"], op["node"], conn["node"]]}
    if f == "ok-keep":   # no value: the invocation's is kept
        return {"type": "ok"}
    if f == "fail":
        return {"type": "fail", "error": ["not-found", op["value"]]}
    if f == "info":
        return {"type": "info", "error": "lost connection"}
    if f == "raise":
        fail("boom for %s" % op["value"])
    if f == "nodict":
        return "ok"
    if f == "badtype":
        return {"type": "done"}
    if f == "notype":
        return {"value": 1}
    if f == "extra":
        return {"type": "ok", "valeu": 1}
    if f == "badvalue":
        return {"type": "ok", "value": struct(a = 1)}
    if f == "index":
        return {"type": "ok", "value": [][1]}

c = client.starlark(open = open, invoke = invoke)
`
	_, sess := loadStarClient(t, src)
	w, err := sess.Open(0, 3, "n1")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	tests := []struct {
		f         string
		key       any
		value     any
		wantType  history.Type
		wantValue any
		wantErr   string // substring of the completion's error
	}{
		{"echo", int64(7), []any{int64(1), int64(2)}, history.OK, []any{"echo", int64(7), []any{int64(1), int64(2)}, int64(3), "n1", "n1"}, ""},
		{"echo", nil, "v", history.OK, []any{"echo", nil, "v", int64(3), "n1", "n1"}, ""},
		{"ok-keep", "k", int64(5), history.OK, int64(5), ""},
		{"fail", nil, "x", history.Fail, "x", "not-found"},
		{"info", nil, int64(9), history.Info, int64(9), "lost connection"},
		{"raise", nil, "op9", history.Info, "op9", "client_test.star:16:13: fail: boom"},
		{"raise", nil, "op9", history.Info, "op9", "boom for op9"},
		{"nodict", nil, nil, history.Info, nil, "got string"},
		{"badtype", nil, nil, history.Info, nil, `type "done"`},
		{"notype", nil, nil, history.Info, nil, "without type"},
		{"extra", nil, nil, history.Info, nil, `key "valeu"`},
		{"badvalue", nil, nil, history.Info, nil, "unusable value"},
		{"index", nil, nil, history.Info, nil, "client_test.star:28:42: index 1 out of range"},
		{"unknown", nil, nil, history.Info, nil, "got NoneType"},
	}
	for _, tc := range tests {
		t.Run(tc.f, func(t *testing.T) {
			op := history.Op{Type: history.Invoke, F: tc.f, Key: tc.key, Value: tc.value, Process: 3, Node: "n1"}
			got := w.Invoke(context.Background(), op)
			if got.Type != tc.wantType {
				t.Fatalf("type %s (error %v), want %s", got.Type, got.Error, tc.wantType)
			}
			if !history.Equal(got.Value, tc.wantValue) {
				t.Errorf("value %#v, want %#v", got.Value, tc.wantValue)
			}
			msg, _ := got.Error.(string)
			if l, ok := got.Error.([]any); ok && len(l) > 0 {
				msg, _ = l[0].(string)
			}
			if tc.wantErr == "" && got.Error != nil {
				t.Errorf("error %v, want none", got.Error)
			}
			if !strings.Contains(msg, tc.wantErr) {
				t.Errorf("error %q, want it to contain %q", msg, tc.wantErr)
			}
		})
	}
}

// TestStarlarkCompletionExtra: extra = {...} in a completion records more
// fields on the op; a name that is an op's own field, or extra that is not
// a dict, is the script's mistake and makes the op info naming it.
func TestStarlarkCompletionExtra(t *testing.T) {
	const src = `
def open(node):
    return None

def invoke(conn, op):
    f = op["f"]
    if f == "zxid":
        return {"type": "ok", "value": 3, "extra": {"zxid": 12, "server": op["node"]}}
    if f == "none":
        return {"type": "fail", "error": "no", "extra": None}
    if f == "core":
        return {"type": "ok", "extra": {"value": 1}}
    if f == "list":
        return {"type": "ok", "extra": [1]}
    if f == "intkey":
        return {"type": "ok", "extra": {1: 2}}

c = client.starlark(open = open, invoke = invoke)
`
	_, sess := loadStarClient(t, src)
	w, err := sess.Open(0, 1, "n1")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	shared := map[string]any{"tag": "gen"}
	tests := []struct {
		f         string
		wantType  history.Type
		wantExtra string // history.ExtraText of the completion
		wantErr   string
	}{
		{"zxid", history.OK, `server="n1" tag="gen" zxid=12`, ""},
		{"none", history.Fail, `tag="gen"`, "no"},
		{"core", history.Info, `tag="gen"`, `extra field "value" names a core op field`},
		{"list", history.Info, `tag="gen"`, "extra = list; want a dict"},
		{"intkey", history.Info, `tag="gen"`, "unusable extra fields"},
	}
	for _, tc := range tests {
		t.Run(tc.f, func(t *testing.T) {
			op := history.Op{Type: history.Invoke, F: tc.f, Process: 1, Node: "n1", Extra: shared}
			got := w.Invoke(context.Background(), op)
			if got.Type != tc.wantType {
				t.Fatalf("type %s (error %v), want %s", got.Type, got.Error, tc.wantType)
			}
			if s := history.ExtraText(got.Extra); s != tc.wantExtra {
				t.Errorf("extra %s, want %s", s, tc.wantExtra)
			}
			if msg := fmt.Sprint(got.Error); !strings.Contains(msg, tc.wantErr) || (tc.wantErr == "") != (got.Error == nil) {
				t.Errorf("error %v, want it to contain %q", got.Error, tc.wantErr)
			}
			if len(shared) != 1 {
				t.Errorf("the invocation's Extra was written to: %v", shared)
			}
		})
	}
}

// TestStarlarkTimeout: an invoke blocked in http.request returns when the
// op's context ends, as info naming the cause, and the worker refuses
// further ops (its thread was cancelled; the engine replaces it).
func TestStarlarkTimeout(t *testing.T) {
	release := make(chan struct{})
	arrived := make(chan struct{}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case arrived <- struct{}{}:
		default:
		}
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	src := `
def open(node):
    return None

def invoke(conn, op):
    http.request("GET", "` + srv.URL + `", timeout = "1h")
    return {"type": "ok"}

c = client.starlark(open = open, invoke = invoke)
`
	_, sess := loadStarClient(t, src)
	w, err := sess.Open(0, 0, "n1")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	ctx, cancel := context.WithCancelCause(context.Background())
	done := make(chan history.Op)
	go func() { done <- w.Invoke(ctx, history.Op{Type: history.Invoke, F: "write", Value: int64(1)}) }()
	// Cancel once the request is in flight, so the cancellation is the one
	// that has to interrupt a blocked builtin.
	select {
	case got := <-done:
		t.Fatalf("invoke returned before the server saw the request: %+v", got)
	case <-arrived:
	}
	cancel(errors.New("op timed out"))
	got := <-done
	if got.Type != history.Info || !strings.Contains(got.Error.(string), "op timed out") {
		t.Fatalf("got %s %v, want info naming the op timeout", got.Type, got.Error)
	}
	again := w.Invoke(context.Background(), history.Op{Type: history.Invoke, F: "read"})
	if again.Type != history.Info || !strings.Contains(again.Error.(string), "unusable") {
		t.Fatalf("a cancelled worker ran again: %s %v", again.Type, again.Error)
	}
}

// TestStarlarkLifecycle: setup and teardown run once per node per run,
// open per worker, close with the worker; their errors name the node and
// the script line.
func TestStarlarkLifecycle(t *testing.T) {
	var setups, teardowns, opens, closes atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/setup":
			setups.Add(1)
		case "/teardown":
			teardowns.Add(1)
		case "/open":
			opens.Add(1)
		case "/close":
			closes.Add(1)
		}
	}))
	defer srv.Close()
	src := `
U = "` + srv.URL + `"
def setup(node):
    http.request("POST", U + "/setup")
def teardown(node):
    http.request("POST", U + "/teardown")
def open(node):
    http.request("POST", U + "/open")
    return node.name
def close(conn):
    http.request("POST", U + "/close")
def invoke(conn, op):
    return {"type": "ok", "value": conn}
c = client.starlark(open = open, invoke = invoke, close = close, setup = setup, teardown = teardown)
`
	c, sess := loadStarClient(t, src)
	if setups.Load() != 1 {
		t.Fatalf("setup ran %d times on one node, want 1", setups.Load())
	}
	for p := range 3 {
		w, err := sess.Open(p, p, "n1")
		if err != nil {
			t.Fatal(err)
		}
		if got := w.Invoke(context.Background(), history.Op{F: "read"}); got.Type != history.OK || got.Value != "n1" {
			t.Fatalf("invoke: %+v", got)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := sess.Open(9, 9, "n7"); err == nil || !strings.Contains(err.Error(), "n7") {
		t.Errorf("open on an unknown node: %v", err)
	}
	if err := sess.(client.Ender).End(); err != nil { // the run's end, before the db's teardown
		t.Fatal(err)
	}
	if teardowns.Load() != 1 {
		t.Fatalf("End ran teardown %d times, want 1", teardowns.Load())
	}
	if err := sess.Close(); err != nil { // after End: teardown not again
		t.Fatal(err)
	}
	if opens.Load() != 3 || closes.Load() != 3 || teardowns.Load() != 1 {
		t.Errorf("opens %d closes %d teardowns %d, want 3 3 1", opens.Load(), closes.Load(), teardowns.Load())
	}
	if c.Simulated() {
		t.Error("client.starlark claims simulated time")
	}
}

func TestStarlarkErrorsNamePosition(t *testing.T) {
	src := `
def setup(node):
    fail("no disk on " + node.name)
def open(node):
    return None
def invoke(conn, op):
    return {"type": "ok"}
c = client.starlark(open = open, invoke = invoke, setup = setup)
`
	pre := starlark.StringDict{"client": Module}
	g, err := starlark.ExecFile(&starlark.Thread{}, "e.star", src, pre)
	if err != nil {
		t.Fatal(err)
	}
	pool, err := control.NewPool([]control.Node{{Name: "n1", Host: "127.0.0.1"}}, control.LocalDialer())
	if err != nil {
		t.Fatal(err)
	}
	c, ok := starlarkClient(g["c"])
	if !ok {
		t.Fatalf("c is %v, want a client.starlark value", g["c"])
	}
	_, err = c.StartPool(context.Background(), 1, pool, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "no disk on n1") || !strings.Contains(err.Error(), "client setup") {
		t.Fatalf("setup error %v, want it to name the node and the failure", err)
	}
	if _, err := c.Start(1); err == nil {
		t.Error("Start without nodes succeeded")
	}
}

func TestNewStarlarkArgs(t *testing.T) {
	for _, tc := range []struct {
		src, want string
	}{
		{`client.starlark(open = 1, invoke = f)`, "open must be a function"},
		{`client.starlark(open = f)`, "missing argument for invoke"},
		{`client.starlark(open = f, invoke = f, close = "x")`, "close must be a function"},
		{`client.starlark(open = f, invoke = f, teardown = 3)`, "teardown must be a function"},
		{`client.starlark(f, f, None, None, None)`, ""},
		{`client.starlark(open = f, invoke = f, retries = "never: one request per op")`, ""},
		{`client.starlark(open = f, invoke = f, retries = "  ")`, "retries must say how"},
		{`client.starlark(open = f, invoke = f, retries = 3)`, "retries must be a string or None"},
		{`client.starlark(open = f, invoke = f, hidden_retries = True)`, "hidden_retries needs retries"},
	} {
		_, err := starlark.ExecFile(&starlark.Thread{}, "a.star", "def f(x, y = None):\n    pass\n"+tc.src+"\n", starlark.StringDict{"client": Module})
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.src, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: error %v, want %q", tc.src, err, tc.want)
		}
	}
}

// TestStarlarkRetries: what the script declares about resends is what the
// hidden-retries audit is told; nothing declared is nothing known.
func TestStarlarkRetries(t *testing.T) {
	for _, tc := range []struct {
		args     string
		hidden   bool
		how      string
		reporter bool
	}{
		{``, false, "", false},
		{`, retries = "never: one request per op"`, false, "declared by the client script: never: one request per op", true},
		{`, retries = "the driver resends on a dropped connection", hidden_retries = True`, true, "declared by the client script: the driver resends on a dropped connection", true},
	} {
		g, err := starlark.ExecFile(&starlark.Thread{}, "a.star", "def f(x, y = None):\n    pass\nc = client.starlark(open = f, invoke = f"+tc.args+")\n", starlark.StringDict{"client": Module})
		if err != nil {
			t.Fatal(err)
		}
		c, _ := starlarkClient(g["c"])
		hidden, how := c.Retries()
		if hidden != tc.hidden || how != tc.how {
			t.Errorf("%q: Retries() = %t, %q; want %t, %q", tc.args, hidden, how, tc.hidden, tc.how)
		}
	}
}

// TestStarlarkRand: client code draws from a random stream of its own
// thread, seeded from the run's seed and the worker, so a run replays the
// same draws and two workers do not share one.
func TestStarlarkRand(t *testing.T) {
	const src = `
def open(node):
    return None

def invoke(conn, op):
    return {"type": "ok", "value": [draw(), draw()]}

c = client.starlark(open = open, invoke = invoke)
`
	draws := func(seed uint64, process int) any {
		_, sess := loadStarClientSeed(t, src, seed)
		w, err := sess.Open(0, process, "n1")
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		got := w.Invoke(context.Background(), history.Op{Type: history.Invoke, F: "draw", Process: process, Node: "n1"})
		if got.Type != history.OK {
			t.Fatalf("draw: %s %v", got.Type, got.Error)
		}
		return got.Value
	}
	a, again := draws(7, 3), draws(7, 3)
	if !history.Equal(a, again) {
		t.Errorf("same seed and worker, different draws: %v, %v", a, again)
	}
	if other := draws(7, 4); history.Equal(a, other) {
		t.Errorf("two workers drew the same: %v", a)
	}
	if other := draws(8, 3); history.Equal(a, other) {
		t.Errorf("two seeds drew the same: %v", a)
	}
}
