package gen

import (
	"fmt"

	"github.com/faultline/faultline/history"
)

// ConcurrentKeys is Jepsen's independent/concurrent-generator: the allowed
// client threads are split, in order, into groups of n; each group works on
// one key at a time, running the generator fgen makes for that key until it
// is exhausted, then takes the next key nobody has had yet. Every op a
// group's generator gives is stamped with the group's key (Op.Key, which
// check.linearizable(model = "kv") and the per-key checkers split on), so
// the per-key generator itself need not know its key.
//
// keys is the key sequence, handed out in order; nil means the integers 0,
// 1, 2, ... without end (as Jepsen's (range)). When the keys run out a group
// whose generator is exhausted stops, and the whole is exhausted once every
// group is. Events reach a group's generator only while it still works on
// the event's key: a completion that arrives after its group moved on is
// not shown to the new key's generator.
//
// The run's client threads must be a positive multiple of n; otherwise the
// run fails with an error saying so (Jepsen refuses the same). The nemesis
// thread is never used.
func ConcurrentKeys(n int, keys []any, fgen func(ctx *Context, key any) (Generator, error)) Generator {
	return &keysGen{n: n, keys: keys, fgen: fgen}
}

// group states: a group that has no key yet, or whose last key's generator
// is exhausted, needs one; a group past the last key is done.
const (
	groupNeedsKey uint8 = iota
	groupRunning
	groupDone
)

type keyGroup struct {
	state uint8
	key   any
	g     Generator
}

type keysGen struct {
	n      int
	keys   []any
	fgen   func(*Context, any) (Generator, error)
	next   int        // index of the next key to hand out
	groups []keyGroup // nil until the first Op; then one per group
}

// keyAt returns the i-th key of the sequence.
func (k *keysGen) keyAt(i int) (any, bool) {
	if k.keys == nil {
		return int64(i), true
	}
	if i < len(k.keys) {
		return k.keys[i], true
	}
	return nil, false
}

// layout checks that the run's client threads split into whole groups and
// returns how many groups there are. Groups are fixed by thread number
// (threads 0..n-1 are group 0, and so on), not by which threads the caller
// allows at the moment, so a key never changes hands when a combinator
// outside narrows the threads for a while.
func (k *keysGen) layout(ctx *Context) (int, bool) {
	if k.n < 1 {
		ctx.Fail(fmt.Errorf("concurrent_keys: threads per key must be positive, got %d", k.n))
		return 0, false
	}
	if ctx.n%k.n != 0 {
		ctx.Fail(fmt.Errorf("concurrent_keys: %d client threads cannot be split into groups of %d threads per key; make the concurrency a multiple of %d", ctx.n, k.n, k.n))
		return 0, false
	}
	return ctx.n / k.n, ctx.n > 0
}

// enterGroup restricts the allowed set to group g's allowed slots; ok is
// false when none of them is allowed.
func (k *keysGen) enterGroup(ctx *Context, g int) (saved []uint64, ok bool) {
	buf := ctx.scratch()
	for s := g * k.n; s < (g+1)*k.n; s++ {
		if hasBit(ctx.allowed, s) {
			setBit(buf, s)
			ok = true
		}
	}
	return ctx.enter(buf), ok
}

func (k *keysGen) Op(ctx *Context) (history.Op, Generator, Status) {
	ngroups, ok := k.layout(ctx)
	if !ok {
		return history.Op{}, nil, Exhausted
	}
	groups := make([]keyGroup, ngroups)
	copy(groups, k.groups)
	next := k.next
	var (
		best    history.Op
		bestG   = -1
		bestGen Generator
		live    bool
	)
	for g := range groups {
		if !k.groupAllowed(ctx, g) {
			// Its threads are not ours to use: it keeps its key (or takes
			// none), and does not keep the whole alive.
			continue
		}
		for empty := 0; groups[g].state != groupDone; {
			if groups[g].state == groupNeedsKey {
				key, ok := k.keyAt(next)
				if !ok {
					groups[g] = keyGroup{state: groupDone}
					break
				}
				next++
				gg, err := k.fgen(ctx, key)
				if err != nil {
					ctx.Fail(err)
					return history.Op{}, nil, Exhausted
				}
				groups[g] = keyGroup{state: groupRunning, key: key, g: gg}
			}
			saved, _ := k.enterGroup(ctx, g)
			op, nextGen, st := step(ctx, groups[g].g)
			ctx.leave(saved)
			if ctx.err != nil {
				return history.Op{}, nil, Exhausted
			}
			if st == Exhausted {
				// This key is finished: the group takes the next one.
				groups[g] = keyGroup{state: groupNeedsKey}
				if empty++; empty == maxEmptyCalls {
					ctx.Fail(fmt.Errorf("concurrent_keys: %d keys in a row gave no op", empty))
					return history.Op{}, nil, Exhausted
				}
				continue
			}
			live = true
			if st == Pending {
				groups[g].g = nextGen
				break
			}
			if op.Type == history.Invoke || op.Type == "" {
				op.Key = groups[g].key
			}
			if soonest(bestG >= 0, &best, &op) {
				best, bestG, bestGen = op, g, nextGen
			}
			break
		}
	}
	if !live {
		return history.Op{}, nil, Exhausted
	}
	if bestG >= 0 {
		groups[bestG].g = bestGen
	}
	succ := &keysGen{n: k.n, keys: k.keys, fgen: k.fgen, next: next, groups: groups}
	if bestG < 0 {
		return history.Op{}, succ, Pending
	}
	return best, succ, Ready
}

// groupAllowed reports whether any thread of group g is allowed.
func (k *keysGen) groupAllowed(ctx *Context, g int) bool {
	for s := g * k.n; s < (g+1)*k.n; s++ {
		if hasBit(ctx.allowed, s) {
			return true
		}
	}
	return false
}

func (k *keysGen) Update(ctx *Context, ev history.Op) Generator {
	s, ok := ctx.slotOfProcess(ev.Process)
	if !ok || s >= ctx.n || !hasBit(ctx.allowed, s) || k.groups == nil {
		return k
	}
	if k.n < 1 {
		return k
	}
	g := s / k.n
	if g >= len(k.groups) || k.groups[g].state != groupRunning || !history.Equal(k.groups[g].key, ev.Key) {
		return k
	}
	saved, _ := k.enterGroup(ctx, g)
	next := tell(ctx, k.groups[g].g, ev)
	ctx.leave(saved)
	if same(next, k.groups[g].g) {
		return k
	}
	groups := append([]keyGroup(nil), k.groups...)
	groups[g].g = next
	return &keysGen{n: k.n, keys: k.keys, fgen: k.fgen, next: k.next, groups: groups}
}
