package binarymod

import (
	"bufio"
	"context"
	"encoding/binary"
	"io"
	"net"
	"strings"
	"testing"

	"go.starlark.net/starlark"

	"github.com/faultline/faultline/star"
	"github.com/faultline/faultline/star/netmod"
)

// TestWorkedExample runs the framing example of the module's reference
// against a loopback server speaking its protocol, so the documented
// code is code that works.
func TestWorkedExample(t *testing.T) {
	start := strings.Index(moduleDoc, "```python\n")
	end := strings.LastIndex(moduleDoc, "```")
	if start < 0 || end <= start {
		t.Fatal("the module doc has no python example")
	}
	src := moduleDoc[start+len("```python\n") : end]

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
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
					var hdr [4]byte
					if _, err := io.ReadFull(r, hdr[:]); err != nil {
						return
					}
					req := make([]byte, binary.BigEndian.Uint32(hdr[:]))
					if _, err := io.ReadFull(r, req); err != nil {
						return
					}
					key := string(req[3 : 3+binary.BigEndian.Uint16(req[1:3])])
					var resp []byte
					switch key {
					case "k":
						resp = binary.BigEndian.AppendUint64([]byte{0}, 42)
					case "missing":
						resp = []byte{1}
					default:
						resp = append([]byte{2}, "no such table"...)
					}
					c.Write(binary.BigEndian.AppendUint32(nil, uint32(len(resp))))
					c.Write(resp)
				}
			}()
		}
	}()

	th := &starlark.Thread{Name: "test"}
	star.SetContext(th, context.Background())
	g, err := starlark.ExecFile(th, "example.star", src+`
c = net.dial("`+l.Addr().String()+`")
found, missing, refused = get(c, b"k"), get(c, b"missing"), get(c, b"x")
`, starlark.StringDict{"binary": Module, "net": netmod.Module})
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]string{
		"found":   `{"type": "ok", "value": 42}`,
		"missing": `{"type": "ok", "value": None}`,
		"refused": `{"type": "fail", "error": "no such table"}`,
	} {
		if got := g[k].String(); got != want {
			t.Errorf("%s = %s, want %s", k, got, want)
		}
	}
}
