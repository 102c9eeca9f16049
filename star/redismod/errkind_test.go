package redismod

import (
	"bufio"
	"context"
	"net"
	"testing"

	"go.starlark.net/starlark"
)

// fakeServer answers every RESP command with reply, or closes the
// connection after reading one when reply is "".
func fakeServer(t *testing.T, reply string) string {
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
					if _, err := ReadReply(r); err != nil { // a command is an array, as a reply is
						return
					}
					if reply == "" {
						return
					}
					if _, err := c.Write([]byte(reply)); err != nil {
						return
					}
				}
			}()
		}
	}()
	return l.Addr().String()
}

// TestErrorKinds: the shared classification of a failed request, against
// loopback servers: nothing listening, one that closes after reading the
// command, one that answers with an error.
func TestErrorKinds(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	l.Close()
	for _, tc := range []struct {
		name, src, kind, opType string
	}{
		{"not sent", `e = redis.dial("` + closed + `", raise_errors = False)`, "not-sent", "fail"},
		{"unknown", `e = redis.dial("` + fakeServer(t, "") + `").do("SET", "k", "v", raise_errors = False)`, "unknown", "info"},
		{"refused", `e = redis.dial("` + fakeServer(t, "-READONLY You can't write against a read only replica.\r\n") + `").do("SET", "k", "v", raise_errors = False)`, "refused", "fail"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, err := run(t, context.Background(), tc.src+`
kind, op_type, ok, is_err, msg = e.error_kind, e.op_type, e.ok, redis.is_error(e), e.error
`)
			if err != nil {
				t.Fatal(err)
			}
			for k, want := range map[string]starlark.Value{
				"kind": starlark.String(tc.kind), "op_type": starlark.String(tc.opType), "ok": starlark.False, "is_err": starlark.True,
			} {
				if eq, _ := starlark.Equal(g[k], want); !eq {
					t.Errorf("%s = %v, want %v (error %v)", k, g[k], want, g["msg"])
				}
			}
		})
	}
}
