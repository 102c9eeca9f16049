package netmod

import (
	"bufio"
	"context"
	"errors"
	"net"
	"strings"
	"testing"

	"go.starlark.net/starlark"

	"github.com/faultline/faultline/star"
)

// echoServer answers each line it reads with "+" and the line, and
// "bytes" with five raw bytes; "hang" gets no answer.
func echoServer(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				r := bufio.NewReader(c)
				for {
					line, err := r.ReadString('\n')
					if err != nil {
						return
					}
					switch strings.TrimSpace(line) {
					case "hang":
						continue
					case "bytes":
						c.Write([]byte("\x00\x01\x02\r\n"))
					case "half":
						c.Write([]byte("no newline"))
						return
					default:
						c.Write([]byte("+" + strings.TrimSpace(line) + "\r\n"))
					}
				}
			}()
		}
	}()
	return l.Addr().String()
}

func run(t *testing.T, ctx context.Context, src string) (starlark.StringDict, error) {
	t.Helper()
	th := &starlark.Thread{Name: "test"}
	star.SetContext(th, ctx)
	stop := context.AfterFunc(ctx, func() { th.Cancel("cancelled") })
	defer stop()
	return starlark.ExecFile(th, "t.star", src, starlark.StringDict{"net": Module})
}

func TestConn(t *testing.T) {
	addr := echoServer(t)
	g, err := run(t, context.Background(), `
c = net.dial("`+addr+`", timeout = "2s")
n = c.send("PING\n")
pong = c.read_line()
c.send(b"bytes\n")
raw = c.read(5)
c.set_deadline("10s")
c.send("again\n")
again = c.read_line()
c.set_deadline(None)
c.send("half\n")
half = c.read_line()
open_before = bool(c)
c.close()
c.close()
open_after = bool(c)
`)
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]starlark.Value{
		"n": starlark.MakeInt(5), "pong": starlark.String("+PING"), "raw": starlark.Bytes("\x00\x01\x02\r\n"),
		"again": starlark.String("+again"), "half": starlark.String("no newline"),
		"open_before": starlark.True, "open_after": starlark.False,
	} {
		if eq, _ := starlark.Equal(g[k], want); !eq {
			t.Errorf("%s = %v, want %v", k, g[k], want)
		}
	}
}

func TestConnErrors(t *testing.T) {
	addr := echoServer(t)
	// A port nothing listens on: reserve one and close it.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	l.Close()
	for _, tc := range []struct{ src, want string }{
		{`net.dial("` + closed + `")`, "connection refused"},
		{`net.dial("` + addr + `", timeout = "0s")`, "timeout must be positive"},
		{`c = net.dial("` + addr + `"); c.close(); c.send("x")`, "connection closed"},
		{`c = net.dial("` + addr + `"); c.send(1)`, "bytes or a string"},
		{`c = net.dial("` + addr + `"); c.read(-1)`, "n must be between"},
		{`c = net.dial("` + addr + `"); c.set_deadline("1ns"); c.send("hang\n"); c.read_line()`, "timeout"},
		{`c = net.dial("` + addr + `"); c.send("half\n"); c.read_line(); c.read_line()`, "EOF"},
	} {
		_, err := run(t, context.Background(), tc.src)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.src, err, tc.want)
		}
	}
}

// TestConnCancel: a read blocked on a silent server returns when the
// thread's context ends, naming the cause.
func TestConnCancel(t *testing.T) {
	addr := echoServer(t)
	ctx, cancel := context.WithCancelCause(context.Background())
	th := &starlark.Thread{Name: "test"}
	star.SetContext(th, ctx)
	g, err := starlark.ExecFile(th, "t.star", `c = net.dial("`+addr+`")`, starlark.StringDict{"net": Module})
	if err != nil {
		t.Fatal(err)
	}
	c := g["c"].(*Conn)
	if _, err := starlark.Call(th, mustAttr(t, c, "send"), starlark.Tuple{starlark.String("hang\n")}, nil); err != nil {
		t.Fatal(err)
	}
	done := make(chan error)
	go func() {
		_, err := starlark.Call(th, mustAttr(t, c, "read_line"), nil, nil)
		done <- err
	}()
	cancel(errors.New("op timed out"))
	if err := <-done; err == nil || !strings.Contains(err.Error(), "op timed out") {
		t.Fatalf("read_line after cancel: %v, want the cause", err)
	}
}

func mustAttr(t *testing.T, c *Conn, name string) starlark.Callable {
	t.Helper()
	v, err := c.Attr(name)
	if err != nil || v == nil {
		t.Fatalf("attr %s: %v", name, err)
	}
	return v.(starlark.Callable)
}
