package client

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/faultline/faultline/history"
)

// DumpF is the function of the final-state read that check.no_lost_ack
// judges: {"f": "dump", "value": keys} reads each key linearizably and
// completes ok with {key: value} (nil for an absent key), or fails when any
// read fails. A dump with no value reads every key the run wrote, which is
// what a workload that rotates keys needs: its keys are not known when the
// scenario is written. Run it once the cluster is healed and quiet, as a
// scenario's final= phase does.
const DumpF = "dump"

// dumpKeys returns the keys a dump op reads: the list in its value, or,
// with no value, written() — every key the session wrote.
func dumpKeys(op history.Op, written func() []any) ([]any, error) {
	if op.Value == nil {
		return written(), nil
	}
	list, ok := op.Value.([]any)
	if !ok {
		return nil, fmt.Errorf("dump value must be a list of keys or None, got %T", op.Value)
	}
	for _, k := range list {
		if _, ok := registerKey(k); !ok {
			return nil, fmt.Errorf("dump: unsupported key type %T", k)
		}
	}
	return list, nil
}

// dump completes op by reading each key with read, a linearizable read of
// the worker's system, and naming each entry as no-lost-ack names keys.
// The first read that does not complete ok fails the whole dump: a partial
// final state would report the missing keys' writes as lost.
func dump(ctx context.Context, op history.Op, keys []any, read func(context.Context, history.Op) history.Op) history.Op {
	state := make(map[string]any, len(keys))
	for _, k := range keys {
		r := read(ctx, history.Op{Type: history.Invoke, Process: op.Process, F: "read", Key: k})
		if r.Type != history.OK {
			return failWith(op, fmt.Sprintf("dump: read of key %s: %s", history.KeyText(k), r.Error))
		}
		state[history.KeyText(k)] = r.Value
	}
	return complete(op, history.OK, state)
}

// keyLog remembers the keys a session's writes and cas ops named, so a
// dump with no key list can read them all. Safe for concurrent workers.
type keyLog struct {
	mu   sync.Mutex
	keys map[any]struct{}
}

// note records op's key if op may write it.
func (l *keyLog) note(op history.Op) {
	if op.F != "write" && op.F != "cas" {
		return
	}
	k, ok := registerKey(op.Key)
	if !ok {
		return // the op fails on its key anyway
	}
	l.mu.Lock()
	if l.keys == nil {
		l.keys = map[any]struct{}{}
	}
	l.keys[k] = struct{}{}
	l.mu.Unlock()
}

// written returns the noted keys in a stable order.
func (l *keyLog) written() []any {
	l.mu.Lock()
	keys := make([]any, 0, len(l.keys))
	for k := range l.keys {
		keys = append(keys, k)
	}
	l.mu.Unlock()
	sortKeys(keys)
	return keys
}

// sortKeys orders keys by their dump names, so dumps read in a repeatable order.
func sortKeys(keys []any) {
	slices.SortFunc(keys, func(a, b any) int { return cmp.Compare(history.KeyText(a), history.KeyText(b)) })
}
