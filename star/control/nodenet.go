package control

import (
	"fmt"

	"go.starlark.net/starlark"

	"github.com/faultline/faultline/control"
	"github.com/faultline/faultline/star"
)

// listenAddr is listen_addr(service, port) -> "host:port": where this
// node's process binds service. Over SSH it is the node's host and port; in
// local mode a port of this host allocated for the node.
func (n *NodeValue) listenAddr(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var (
		service string
		port    int
	)
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "service", &service, "port", &port); err != nil {
		return nil, err
	}
	a, err := n.pool.Network().ListenAddr(n.node.Name, service, port)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	return starlark.String(a), nil
}

// addrOf is addr_of(peer, service, port) -> "host:port": what this node
// dials to reach service on peer (a node value or name). In local mode it
// is the proxy of that one link, which is how partitions cut it.
func (n *NodeValue) addrOf(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var (
		peer    starlark.Value
		service string
		port    int
	)
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "peer", &peer, "service", &service, "port", &port); err != nil {
		return nil, err
	}
	var name string
	switch p := peer.(type) {
	case *NodeValue:
		name = p.node.Name
	case starlark.String:
		name = string(p)
	default:
		return nil, fmt.Errorf("%s: peer must be a node or a node name, got %s", b.Name(), peer.Type())
	}
	a, err := n.pool.Network().DialAddr(n.node.Name, name, service, port)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	return starlark.String(a), nil
}

// faultlineBinary is faultline() -> path of a faultline binary the node can
// run (for systems shipped inside it, such as the demo store). A local node
// runs this very binary; a remote node gets a copy (control.InstallBinary).
func (n *NodeValue) faultlineBinary(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
		return nil, err
	}
	self, err := control.SelfBinary()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	if n.node.Dir != "" {
		return starlark.String(self), nil
	}
	var remote string
	err = n.withRemote(thread, b, func(r control.Remote) (err error) {
		remote, _, err = control.InstallBinary(star.Context(thread), r, self, "faultline")
		return err
	})
	if err != nil {
		return nil, err
	}
	return starlark.String(remote), nil
}
