package redismod

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os/exec"
	"strings"
	"testing"
	"time"

	"go.starlark.net/starlark"

	"github.com/faultline/faultline/internal/integration"
	"github.com/faultline/faultline/star"
)

// startRedis runs a private redis-server (Debian's redis-server) on a
// free loopback port, without persistence, and returns its address.
func startRedis(t *testing.T) string {
	t.Helper()
	bin := integration.NeedCommand(t, "redis-server")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command(bin, "--port", fmt.Sprint(port), "--bind", "127.0.0.1", "--save", "",
		"--appendonly", "no", "--dir", t.TempDir(), "--daemonize", "no")
	if err := cmd.Start(); err != nil {
		t.Fatalf("start redis-server: %v", err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	// Readiness, not a timed assertion: poll until it answers.
	for i := 0; ; i++ {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			return addr
		}
		if i == 200 {
			t.Fatalf("redis-server on %s did not start: %v", addr, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func run(t *testing.T, ctx context.Context, src string) (starlark.StringDict, error) {
	t.Helper()
	th := &starlark.Thread{Name: "test"}
	star.SetContext(th, ctx)
	return starlark.ExecFile(th, "t.star", src, starlark.StringDict{"redis": Module})
}

func TestRedis(t *testing.T) {
	addr := startRedis(t)
	g, err := run(t, context.Background(), `
c = redis.dial("`+addr+`", timeout = "2s")
pong = c.do("PING")
set = c.do("SET", "k", "v1")
get = c.do("GET", "k")
missing = c.do("GET", "nope")
n = c.do("SADD", "s", 1, 2, 2.5, b"x")
members = sorted(c.do("SMEMBERS", "s"))
waited = c.do("WAIT", 0, 100)
pipe = c.pipeline([["INCR", "n"], ["INCR", "n"], ("GET", "n")])
empty = c.pipeline([])
e = c.do("INCR", "k", raise_errors = False)
e_is = redis.is_error(e)
e_truth = bool(e)
e_kind = e.kind
e_io = e.io
mixed = c.pipeline([["SET", "a", "1"], ["INCR", "k"]], raise_errors = False)
mixed_err = redis.is_error(mixed[1])
tx = c.pipeline([["MULTI"], ["INCR", "n"], ["HGET", "n", "f"], ["EXEC"]], raise_errors = False)
exec_inner = redis.is_error(tx[3][1])
still = c.do("GET", "k")
open_before = bool(c)
c.close()
c.close()
open_after = bool(c)
`)
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]string{
		"pong": `"PONG"`, "set": `"OK"`, "get": `"v1"`, "missing": "None", "n": "4",
		"members": `["1", "2", "2.5", "x"]`, "waited": "0", "pipe": `[1, 2, "2"]`, "empty": "[]",
		"e_is": "True", "e_truth": "False", "e_kind": `"ERR"`, "e_io": "False",
		"mixed_err": "True", "exec_inner": "True", "still": `"v1"`,
		"open_before": "True", "open_after": "False",
	} {
		if got := g[k].String(); got != want {
			t.Errorf("%s = %s, want %s", k, got, want)
		}
	}
	if got := g["mixed"].(*starlark.List).Index(0).String(); got != `"OK"` {
		t.Errorf("mixed[0] = %s, want \"OK\"", got)
	}
}

func TestRedisErrors(t *testing.T) {
	addr := startRedis(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	l.Close()
	dial := `c = redis.dial("` + addr + `"); `
	for _, tc := range []struct{ src, want string }{
		{`redis.dial("` + closed + `")`, "connection refused"},
		{`redis.dial("` + addr + `", timeout = "0s")`, "timeout must be positive"},
		{dial + `c.do("SET", "k", "v"); c.do("INCR", "k")`, "INCR: ERR value is not an integer"},
		{dial + `c.do("NOSUCH")`, "ERR unknown command 'NOSUCH'"},
		{dial + `c.do()`, "no command"},
		{dial + `c.do("SET", "k", None)`, "argument 3 must be a str, bytes, int or float, got NoneType"},
		{dial + `c.do("GET", "k", timeout = 1)`, `unexpected keyword argument "timeout"`},
		{dial + `c.do("GET", "k", raise_errors = 1)`, "raise_errors must be a bool"},
		{dial + `c.pipeline("GET")`, "commands must be a list of lists"},
		{dial + `c.pipeline(["GET"])`, "command 1 must be a list"},
		{dial + `c.pipeline([["GET"], []])`, "command 2: no command"},
		{dial + `c.close(); c.do("PING")`, "connection closed"},
		// BLPOP outlasts the connection's timeout: the command fails, and the
		// connection, out of step, refuses the next one.
		{`c = redis.dial("` + addr + `", timeout = "200ms"); c.do("BLPOP", "q", 0, raise_errors = False); c.do("PING")`, "out of step"},
	} {
		_, err := run(t, context.Background(), tc.src)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.src, err, tc.want)
		}
	}

	g, err := run(t, context.Background(), `
c = redis.dial("`+addr+`", timeout = "200ms")
e = c.do("BLPOP", "q", 0, raise_errors = False)
io, kind, truth = e.io, e.kind, bool(c)
dial_io = redis.dial("`+closed+`", raise_errors = False).io
`)
	if err != nil {
		t.Fatal(err)
	}
	if g["io"] != starlark.True || g["dial_io"] != starlark.True || g["kind"].String() != `"IO"` || g["truth"] != starlark.False {
		t.Errorf("timed-out command: io %s kind %s conn truth %s, want True \"IO\" False", g["io"], g["kind"], g["truth"])
	}
}

// TestRedisCancel: a command blocked on the server returns when the
// thread's context ends, naming the cause.
func TestRedisCancel(t *testing.T) {
	addr := startRedis(t)
	ctx, cancel := context.WithCancelCause(context.Background())
	th := &starlark.Thread{Name: "test"}
	star.SetContext(th, ctx)
	g, err := starlark.ExecFile(th, "t.star", `c = redis.dial("`+addr+`", timeout = "1h")`, starlark.StringDict{"redis": Module})
	if err != nil {
		t.Fatal(err)
	}
	do, err := g["c"].(*Conn).Attr("do")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error)
	go func() {
		_, err := starlark.Call(th, do, starlark.Tuple{starlark.String("BLPOP"), starlark.String("q"), starlark.MakeInt(0)}, nil)
		done <- err
	}()
	cancel(errors.New("op timed out"))
	if err := <-done; err == nil || !strings.Contains(err.Error(), "op timed out") {
		t.Fatalf("BLPOP after cancel: %v, want the cause", err)
	}
}
