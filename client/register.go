package client

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"

	"github.com/faultline/faultline/history"
	"github.com/faultline/faultline/internal/seed"
)

// Register is the in-process reference system: a set of registers (one per
// key; ops without a key share one) supporting read, write, cas and dump
// (DumpF; with no key list, every key ever written). With
// StaleReads > 0 it models a replica that serves reads without checking it is
// current: that fraction of reads returns an older version, which a
// linearizability checker must catch.
type Register struct {
	StaleReads float64 // probability that a read returns a superseded value
}

var _ Client = (*Register)(nil)

// String implements Client: the client as a scenario declares it.
func (r *Register) String() string {
	if r.StaleReads > 0 {
		return fmt.Sprintf("client.register(stale_reads=%g)", r.StaleReads)
	}
	return "client.register()"
}

// Simulated implements Client: the register lives in this process.
func (r *Register) Simulated() bool { return true }

// Start implements Client with a fresh, empty store.
func (r *Register) Start(root uint64) (Session, error) {
	return &registerStore{cfg: *r, root: root, regs: map[any]*versions{}}, nil
}

// versions is one register's value history, newest last.
type versions struct{ vals []any }

type registerStore struct {
	cfg  Register
	root uint64
	mu   sync.Mutex
	regs map[any]*versions
}

// Open implements Session.
func (s *registerStore) Open(thread, process int, node string) (Worker, error) {
	return &registerWorker{s: s, rng: seed.New(s.root, fmt.Sprintf("client/register/%d", process))}, nil
}

// Close implements Session.
func (s *registerStore) Close() error { return nil }

type registerWorker struct {
	s   *registerStore
	rng *rand.Rand
}

// Close implements Worker.
func (w *registerWorker) Close() error { return nil }

// Invoke implements Worker. The operation takes effect atomically under the
// store's lock, so without stale reads every history is linearizable.
func (w *registerWorker) Invoke(ctx context.Context, op history.Op) history.Op {
	if op.F == DumpF {
		return w.dump(ctx, op)
	}
	key, ok := registerKey(op.Key)
	if !ok {
		return failWith(op, fmt.Sprintf("unsupported key type %T", op.Key))
	}
	s := w.s
	s.mu.Lock()
	defer s.mu.Unlock()
	reg := s.regs[key]
	if reg == nil {
		reg = &versions{vals: []any{nil}}
		s.regs[key] = reg
	}
	cur := reg.vals[len(reg.vals)-1]
	switch op.F {
	case "read":
		if n := len(reg.vals); n > 1 && w.cfg().StaleReads > 0 && w.rng.Float64() < w.cfg().StaleReads {
			return complete(op, history.OK, reg.vals[w.rng.IntN(n-1)])
		}
		return complete(op, history.OK, cur)
	case "write":
		reg.vals = append(reg.vals, op.Value)
		return complete(op, history.OK, op.Value)
	case "cas":
		pair, ok := op.Value.([]any)
		if !ok || len(pair) != 2 {
			return failWith(op, "cas value must be [from, to]")
		}
		if !history.Equal(cur, pair[0]) {
			op.Type = history.Fail
			return op
		}
		reg.vals = append(reg.vals, pair[1])
		return complete(op, history.OK, op.Value)
	}
	return failWith(op, fmt.Sprintf("register has no operation %q (want read, write, cas or dump)", op.F))
}

// dump reads the current value of each key, never a stale one: it is the
// final linearizable read, whatever StaleReads says about other reads.
func (w *registerWorker) dump(ctx context.Context, op history.Op) history.Op {
	s := w.s
	s.mu.Lock()
	defer s.mu.Unlock()
	keys, err := dumpKeys(op, s.writtenLocked)
	if err != nil {
		return failWith(op, err.Error())
	}
	return dump(ctx, op, keys, func(_ context.Context, r history.Op) history.Op {
		var cur any
		if reg := s.regs[r.Key]; reg != nil {
			cur = reg.vals[len(reg.vals)-1]
		}
		return complete(r, history.OK, cur)
	})
}

// writtenLocked lists the keys some write or cas has set; s.mu is held.
func (s *registerStore) writtenLocked() []any {
	var keys []any
	for k, reg := range s.regs {
		if len(reg.vals) > 1 {
			keys = append(keys, k)
		}
	}
	sortKeys(keys)
	return keys
}

func (w *registerWorker) cfg() *Register { return &w.s.cfg }

// registerKey normalises an op key into a comparable map key.
func registerKey(k any) (any, bool) {
	switch k.(type) {
	case nil, string, int64, history.Keyword, bool:
		return k, true
	case float64:
		return k, true
	}
	return nil, false
}
