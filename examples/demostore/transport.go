package demostore

import (
	"fmt"
	"net"
	"time"

	"github.com/hashicorp/raft"
)

// streamLayer is raft's network: it accepts on the node's own raft port and
// dials a peer at the address given for it by --peer. Raft's configuration
// names servers by id only, because the address to reach a peer differs per
// (from, to) pair when every link runs through faultline's proxy mesh.
type streamLayer struct {
	net.Listener
	self  nodeAddr
	peers map[string]string // peer id -> address this node dials
}

var _ raft.StreamLayer = (*streamLayer)(nil)

// nodeAddr is a raft server address that is just a node id.
type nodeAddr string

func (nodeAddr) Network() string  { return "demostore" }
func (a nodeAddr) String() string { return string(a) }

// Addr implements net.Listener with the node's id, which raft advertises
// to its peers as this server's address.
func (s *streamLayer) Addr() net.Addr { return s.self }

// Dial implements raft.StreamLayer.
func (s *streamLayer) Dial(id raft.ServerAddress, timeout time.Duration) (net.Conn, error) {
	addr, ok := s.peers[string(id)]
	if !ok {
		return nil, fmt.Errorf("dial %s: no --peer address for it", id)
	}
	c, err := net.DialTimeout("tcp", addr, timeout)
	if err != nil {
		return nil, fmt.Errorf("dial %s at %s: %w", id, addr, err)
	}
	return c, nil
}
