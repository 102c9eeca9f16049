package control

import (
	"fmt"
	"strings"
	"testing"

	"go.starlark.net/starlark"

	"github.com/faultline/faultline/control"
)

// meshNet is a control.Network whose every link has its own address, like the
// proxy mesh, so a test sees which link an address belongs to.
type meshNet struct{}

func (meshNet) ListenAddr(node, service string, port int) (string, error) {
	return fmt.Sprintf("listen-%s-%s:%d", node, service, port), nil
}

func (meshNet) DialAddr(from, to, service string, port int) (string, error) {
	if to == "down" {
		return "", fmt.Errorf("no link to %s", to)
	}
	return fmt.Sprintf("%s-to-%s-%s:%d", from, to, service, port), nil
}

func TestClientAddr(t *testing.T) {
	nodes := []control.Node{{Name: "n1", Host: "10.0.0.1"}, {Name: "down", Host: "10.0.0.9"}}
	hosts, err := control.NewPool(nodes, control.LocalDialer())
	if err != nil {
		t.Fatal(err)
	}
	mesh, err := control.NewPool(nodes, control.LocalDialer())
	if err != nil {
		t.Fatal(err)
	}
	mesh.SetNetwork(meshNet{})
	for _, tc := range []struct {
		pool       *control.Pool
		node, call string
		want, err  string
	}{
		{hosts, "n1", `client_addr("http", 8080)`, "10.0.0.1:8080", ""},
		{mesh, "n1", `client_addr("http", 8080)`, "client-to-n1-http:8080", ""},
		{mesh, "n1", `client_addr(service = "raft", port = 7000)`, "client-to-n1-raft:7000", ""},
		{mesh, "down", `client_addr("http", 8080)`, "", "no link to down"},
		{mesh, "n1", `client_addr("http", 0)`, "", "out of range"},
		{mesh, "n1", `client_addr("http")`, "", "missing argument for port"},
	} {
		nv, err := NewNodeValue(tc.pool, tc.node)
		if err != nil {
			t.Fatal(err)
		}
		v, err := starlark.Eval(&starlark.Thread{}, "t.star", "node."+tc.call, starlark.StringDict{"node": nv})
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s on %s: %v, want error %q", tc.call, tc.node, err, tc.err)
			}
		case err != nil:
			t.Errorf("%s on %s: %v", tc.call, tc.node, err)
		case v != starlark.String(tc.want):
			t.Errorf("%s on %s = %s, want %q", tc.call, tc.node, v, tc.want)
		}
	}
}
