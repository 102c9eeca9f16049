package txn

import (
	"math/rand/v2"
	"sort"

	"github.com/faultline/faultline/history"
)

// sim describes a simulated database run. Each transaction takes effect
// atomically at its completion, a point inside its invocation..completion
// window, so with StaleLag 0 every history it makes is strict-serializable.
type sim struct {
	Txns      int     // transactions to invoke
	Procs     int     // concurrent processes
	Keys      int     // keys in use at once; a key is retired after MaxWrites appends
	MaxWrites int     // appends per key before it is retired (Jepsen's max-writes-per-key)
	MaxLen    int     // micro-ops per transaction, 1..MaxLen
	FailRate  float64 // fraction that fail (and take no effect)
	InfoRate  float64 // fraction that end info (half of those take effect)
	StaleLag  int     // reads see the database as of this many commits ago
	Register  bool    // rw-register instead of list-append
	Seed      uint64
}

// run generates the history.
func (s sim) run() []history.Op {
	rng := rand.New(rand.NewPCG(s.Seed, 0x9e3779b97f4a7c15))
	db := &simDB{lists: map[int64]*simKey{}}
	active := make([]int64, s.Keys)
	writes := make([]int, s.Keys)
	for i := range active {
		active[i] = int64(i)
	}
	nextKey := int64(s.Keys)
	type flight struct {
		process int
		inv     []any
	}
	procs := make([]*flight, s.Procs)
	ids := make([]int, s.Procs)
	for i := range ids {
		ids[i] = i
	}
	ops := make([]history.Op, 0, 2*s.Txns+2*s.Procs)
	emit := func(p int, typ history.Type, v any) {
		ops = append(ops, history.Op{Index: int64(len(ops)), Time: int64(len(ops)), Process: p, Type: typ, F: "txn", Value: v})
	}
	invoked := 0
	for invoked < s.Txns || anyInFlight(procs) {
		slot := rng.IntN(s.Procs)
		fl := procs[slot]
		if fl == nil {
			if invoked == s.Txns {
				continue
			}
			n := 1 + rng.IntN(s.MaxLen)
			txn := make([]any, n)
			for i := range txn {
				ki := rng.IntN(s.Keys)
				k := db.key(active[ki])
				if rng.IntN(2) == 0 {
					txn[i] = []any{history.Keyword("r"), k.name, nil}
					continue
				}
				if writes[ki] == s.MaxWrites {
					active[ki], writes[ki] = nextKey, 0
					nextKey++
					k = db.key(active[ki])
				}
				writes[ki]++
				k.next++
				f := history.Keyword("append")
				if s.Register {
					f = "w"
				}
				txn[i] = []any{f, k.name, any(k.next)}
			}
			procs[slot] = &flight{ids[slot], txn}
			emit(ids[slot], history.Invoke, txn)
			invoked++
			continue
		}
		procs[slot] = nil
		switch x := rng.Float64(); {
		case x < s.FailRate:
			emit(fl.process, history.Fail, fl.inv)
		case x < s.FailRate+s.InfoRate:
			if rng.IntN(2) == 0 {
				db.apply(fl.inv, s.StaleLag, s.Register)
			}
			emit(fl.process, history.Info, fl.inv)
			ids[slot] += s.Procs // Jepsen gives the thread a fresh process
		default:
			emit(fl.process, history.OK, db.apply(fl.inv, s.StaleLag, s.Register))
		}
	}
	return ops
}

func anyInFlight[T any](xs []*T) bool {
	for _, x := range xs {
		if x != nil {
			return true
		}
	}
	return false
}

// simDB is the simulated store: per key, the elements appended (for a
// register, the last one is the value) and the commit at which each landed.
type simDB struct {
	lists  map[int64]*simKey
	commit int
}

type simKey struct {
	name  any // the key, boxed once
	elems []any
	at    []int // commit number of each element
	next  int64 // last value handed out
}

func (d *simDB) key(k int64) *simKey {
	sk := d.lists[k]
	if sk == nil {
		sk = &simKey{name: any(k)}
		d.lists[k] = sk
	}
	return sk
}

// apply commits txn and returns its completed value. Reads of list-append
// share the key's backing array: a prefix never changes once appended.
func (d *simDB) apply(txn []any, lag int, register bool) []any {
	d.commit++
	out := make([]any, len(txn))
	for i, m := range txn {
		mm := m.([]any)
		k := d.lists[mm[1].(int64)]
		if mm[0] != history.Keyword("r") {
			k.elems = append(k.elems, mm[2])
			k.at = append(k.at, d.commit)
			out[i] = mm
			continue
		}
		n := len(k.elems)
		if lag > 0 {
			// Elements this transaction wrote itself stay visible.
			n = sort.SearchInts(k.at, d.commit-lag+1)
			for n < len(k.at) && k.at[n] == d.commit {
				n++
			}
		}
		if register {
			var v any
			if n > 0 {
				v = k.elems[n-1]
			}
			out[i] = []any{mm[0], mm[1], v}
			continue
		}
		out[i] = []any{mm[0], mm[1], k.elems[:n:n]}
	}
	return out
}

// ring returns a history whose n transactions form one write-skew cycle
// and nothing shorter: transaction i reads key i empty and makes the first
// append to key i-1 (mod n), so each anti-depends on the one after it. Each
// runs on its own process and all overlap, then observers read every key.
func ring(n int) []history.Op {
	var ops []history.Op
	emit := func(p int, typ history.Type, v []any) {
		ops = append(ops, history.Op{Index: int64(len(ops)), Time: int64(len(ops)), Process: p, Type: typ, F: "txn", Value: v})
	}
	r, app := history.Keyword("r"), history.Keyword("append")
	for _, typ := range []history.Type{history.Invoke, history.OK} {
		for i := range n {
			read := []any(nil)
			if typ == history.OK {
				read = []any{}
			}
			emit(i, typ, []any{[]any{r, int64(i), read}, []any{app, int64((i + n - 1) % n), int64(1)}})
		}
	}
	for i := 0; i < n; i += 10 {
		var inv, ok []any
		for k := i; k < min(i+10, n); k++ {
			inv = append(inv, []any{r, int64(k), nil})
			ok = append(ok, []any{r, int64(k), []any{int64(1)}})
		}
		emit(n, history.Invoke, inv)
		emit(n, history.OK, ok)
	}
	return ops
}
