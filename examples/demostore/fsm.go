package demostore

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"sync"

	"github.com/hashicorp/raft"
)

// opCode names what a log entry does to the store.
type opCode byte

const (
	opRead  opCode = 1 // returns the key's value; goes through the log so reads are linearizable
	opWrite opCode = 2 // sets the key to to
	opCAS   opCode = 3 // sets the key to to if it holds from
)

// command is one log entry. It is encoded by hand (op, from, to, key) so a
// write costs one small allocation, not a JSON round trip.
type command struct {
	op       opCode
	from, to int64
	key      string
}

// commandHeader is the fixed part of an encoded command: op + from + to.
const commandHeader = 1 + 8 + 8

// encode returns the command's log bytes.
func (c command) encode() []byte {
	b := make([]byte, commandHeader, commandHeader+len(c.key))
	b[0] = byte(c.op)
	binary.BigEndian.PutUint64(b[1:], uint64(c.from))
	binary.BigEndian.PutUint64(b[9:], uint64(c.to))
	return append(b, c.key...)
}

// decodeCommand parses log bytes written by encode.
func decodeCommand(b []byte) (command, error) {
	if len(b) < commandHeader {
		return command{}, fmt.Errorf("command of %d bytes is shorter than its %d-byte header", len(b), commandHeader)
	}
	c := command{
		op:   opCode(b[0]),
		from: int64(binary.BigEndian.Uint64(b[1:])),
		to:   int64(binary.BigEndian.Uint64(b[9:])),
		key:  string(b[commandHeader:]),
	}
	if c.op < opRead || c.op > opCAS {
		return command{}, fmt.Errorf("unknown command op %d", c.op)
	}
	return c, nil
}

// result is what applying a command returns to the node that proposed it.
type result struct {
	value   int64
	present bool  // the key held a value (before a write; after a cas)
	ok      bool  // a cas matched
	err     error // the entry could not be decoded
}

// store is the replicated state machine: a map of int64 registers. Reads
// of the local state (the stale-reads and unsafe-cas bugs, /status) run
// concurrently with raft's apply loop, hence the lock.
type store struct {
	mu sync.RWMutex
	kv map[string]int64
}

var _ raft.FSM = (*store)(nil)

func newStore() *store { return &store{kv: map[string]int64{}} }

// local returns the key's value in this replica's state, however stale.
func (s *store) local(key string) (int64, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	v, ok := s.kv[key]
	return v, ok
}

// Apply implements raft.FSM. It returns a result.
func (s *store) Apply(l *raft.Log) any {
	if l.Type != raft.LogCommand {
		return result{}
	}
	c, err := decodeCommand(l.Data)
	if err != nil {
		return result{err: fmt.Errorf("log index %d: %w", l.Index, err)}
	}
	return s.apply(c)
}

// apply executes one decoded command.
func (s *store) apply(c command) result {
	if c.op == opRead {
		v, ok := s.local(c.key)
		return result{value: v, present: ok}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	cur, present := s.kv[c.key]
	if c.op == opCAS && (!present || cur != c.from) {
		return result{value: cur, present: present}
	}
	s.kv[c.key] = c.to
	return result{value: c.to, present: true, ok: true}
}

// Snapshot implements raft.FSM with a copy of the map, so Persist can run
// while Apply goes on.
func (s *store) Snapshot() (raft.FSMSnapshot, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	cp := make(map[string]int64, len(s.kv))
	for k, v := range s.kv {
		cp[k] = v
	}
	return snapshot(cp), nil
}

// Restore implements raft.FSM, replacing the state with a snapshot's.
func (s *store) Restore(rc io.ReadCloser) error {
	defer rc.Close()
	kv := map[string]int64{}
	if err := json.NewDecoder(rc).Decode(&kv); err != nil {
		return fmt.Errorf("restore snapshot: %w", err)
	}
	s.mu.Lock()
	s.kv = kv
	s.mu.Unlock()
	return nil
}

// snapshot is a point-in-time copy of the store, persisted as JSON.
type snapshot map[string]int64

// Persist implements raft.FSMSnapshot.
func (m snapshot) Persist(sink raft.SnapshotSink) error {
	if err := json.NewEncoder(sink).Encode(map[string]int64(m)); err != nil {
		_ = sink.Cancel()
		return fmt.Errorf("persist snapshot: %w", err)
	}
	if err := sink.Close(); err != nil {
		return fmt.Errorf("persist snapshot: %w", err)
	}
	return nil
}

// Release implements raft.FSMSnapshot.
func (snapshot) Release() {}
