package netmod

import (
	"bufio"
	"context"
	"encoding/binary"
	"net"
	"testing"

	"go.starlark.net/starlark"
)

// closingServer accepts, reads one line and closes without answering: a
// request that was sent and whose outcome is unknown.
func closingServer(t *testing.T) string {
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
				_, _ = bufio.NewReader(c).ReadString('\n')
			}()
		}
	}()
	return l.Addr().String()
}

// closedPort is a loopback address nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// TestErrorsAsValues: with raise_errors = False each failure comes back
// as an error value whose kind says what the op should be recorded as.
func TestErrorsAsValues(t *testing.T) {
	echo, closing, closed := echoServer(t), closingServer(t), closedPort(t)
	for _, tc := range []struct {
		name, src, kind, opType string
	}{
		{"refused dial", `r = net.dial("` + closed + `", raise_errors = False)`, "not-sent", "fail"},
		{"closed after reading", `c = net.dial("` + closing + `")
c.send("PUT x\n")
r = c.read_line(raise_errors = False)`, "unknown", "info"},
		{"timeout after sending", `c = net.dial("` + echo + `")
c.set_deadline("50ms")
c.send("hang\n")
r = c.read(3, raise_errors = False)`, "unknown", "info"},
		{"frame torn by close", `c = net.dial("` + closing + `")
c.send("GET\n")
r = c.read_frame(">I", raise_errors = False)`, "unknown", "info"},
		{"send after close", `c = net.dial("` + echo + `")
c.close()
r = c.send("x", raise_errors = False)`, "not-sent", "fail"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, err := run(t, context.Background(), tc.src+`
is_err = net.is_error(r)
kind, op_type, ok, msg = r.error_kind, r.op_type, r.ok, r.error
truth = bool(r)
`)
			if err != nil {
				t.Fatal(err)
			}
			for k, want := range map[string]starlark.Value{
				"is_err": starlark.True, "kind": starlark.String(tc.kind), "op_type": starlark.String(tc.opType),
				"ok": starlark.False, "truth": starlark.False,
			} {
				if eq, _ := starlark.Equal(g[k], want); !eq {
					t.Errorf("%s = %v, want %v (error %v)", k, g[k], want, g["msg"])
				}
			}
			if g["msg"].(starlark.String) == "" {
				t.Error("error message is empty")
			}
		})
	}
}

// frameServer answers each frame (">I" length, payload) with the payload
// reversed, framed the same way.
func frameServer(t *testing.T) string {
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
					var n uint32
					if err := binary.Read(r, binary.BigEndian, &n); err != nil {
						return
					}
					p := make([]byte, n)
					if _, err := r.Read(p); err != nil && n > 0 {
						return
					}
					for i, j := 0, len(p)-1; i < j; i, j = i+1, j-1 {
						p[i], p[j] = p[j], p[i]
					}
					c.Write(binary.BigEndian.AppendUint32(nil, n))
					c.Write(p)
				}
			}()
		}
	}()
	return l.Addr().String()
}

func TestReadFrame(t *testing.T) {
	addr := frameServer(t)
	g, err := run(t, context.Background(), `
c = net.dial("`+addr+`")
c.send(b"\x00\x00\x00\x03abc")
got = c.read_frame(">I")
c.send(b"\x00\x00\x00\x00")
empty = c.read_frame()
c.send(b"\x00\x00\x00\x05hello")
big = c.read_frame(">I", max = 4, raise_errors = False)
`)
	if err != nil {
		t.Fatal(err)
	}
	if eq, _ := starlark.Equal(g["got"], starlark.Bytes("cba")); !eq {
		t.Errorf("got = %v, want b\"cba\"", g["got"])
	}
	if eq, _ := starlark.Equal(g["empty"], starlark.Bytes("")); !eq {
		t.Errorf("empty = %v", g["empty"])
	}
	if s := g["big"].String(); s == "" || g["big"].Type() != "error" {
		t.Errorf("a frame over max = %v, want an error value", g["big"])
	}
	if _, err := run(t, context.Background(), `net.dial("`+addr+`").read_frame("s")`); err == nil {
		t.Error("read_frame with prefix \"s\" did not fail")
	}
}
