package mutate

import (
	"math/rand/v2"
	"slices"
	"sort"

	"github.com/faultline/faultline/history"
)

// regOp is a register call decoded: its key, what it wrote, what it read.
type regOp struct {
	call
	key   string
	write bool // write/put, or cas (val is the value cas installs)
	val   any  // written value, or the value an ok read returned
}

// registers is a register-family history split by key.
type registers struct {
	tuples    bool                         // values are Jepsen [k v] tuples
	reads     []regOp                      // ok reads
	casReads  []regOp                      // ok cas ops, as reads of their from value (for shrinking)
	writers   map[string][]regOp           // ok writes and cas per key, by completion position
	producers map[string]map[string]int    // per key: how many ops of any outcome write each value
	sources   map[string]map[string][]call // per key and value: the ops, not failed, that write it
	appends   map[string]bool              // keys some kv append touches
	appended  []regOp                      // kv appends, not failed
	values    *phantoms
}

// isRegisterWrite reports whether f changes a register (kv append included).
// A history without one is no register history: counters and sets read too.
func isRegisterWrite(f string) bool {
	switch f {
	case "write", "put", "cas", "append":
		return true
	}
	return false
}

// splitRegisters reads the register-family calls of v; nil when there are none.
func splitRegisters(v *view) *registers {
	r := &registers{writers: map[string][]regOp{}, producers: map[string]map[string]int{}, sources: map[string]map[string][]call{}, appends: map[string]bool{}, values: newPhantoms()}
	found := false
	for _, c := range v.calls {
		inv := &v.h[c.inv]
		if inv.Key == nil && (inv.F == "read" || inv.F == "get") {
			if t, ok := inv.Value.([]any); ok && len(t) == 2 {
				r.tuples = true
			}
		}
		found = found || isRegisterWrite(inv.F)
	}
	if !found {
		return nil
	}
	for _, c := range v.calls {
		inv := &v.h[c.inv]
		key, arg, ok := r.keyOf(inv, inv.Value)
		if !ok {
			continue
		}
		switch inv.F {
		case "append":
			r.appends[key] = true
			r.values.see(arg)
			if v.outcome(c) != history.Fail {
				r.appended = append(r.appended, regOp{call: c, key: key, write: true, val: arg})
			}
		case "read", "get":
			if !v.ok(c) {
				continue
			}
			_, res, ok := r.keyOf(inv, v.h[c.comp].Value)
			if !ok {
				continue
			}
			r.values.see(res)
			r.reads = append(r.reads, regOp{call: c, key: key, val: res})
		case "write", "put", "cas":
			w := arg
			if inv.F == "cas" {
				pair, ok := arg.([]any)
				if !ok || len(pair) != 2 {
					continue
				}
				r.values.see(pair[0])
				w = pair[1]
				if v.ok(c) {
					r.casReads = append(r.casReads, regOp{call: c, key: key, val: pair[0]})
				}
			}
			r.values.see(w)
			if r.producers[key] == nil {
				r.producers[key] = map[string]int{}
			}
			r.producers[key][valueKey(w)]++
			if v.outcome(c) != history.Fail {
				if r.sources[key] == nil {
					r.sources[key] = map[string][]call{}
				}
				r.sources[key][valueKey(w)] = append(r.sources[key][valueKey(w)], c)
			}
			if v.ok(c) {
				r.writers[key] = append(r.writers[key], regOp{call: c, key: key, write: true, val: w})
			}
		}
	}
	for _, ws := range r.writers {
		sort.Slice(ws, func(i, j int) bool { return ws[i].comp < ws[j].comp })
	}
	return r
}

// keyOf finds an op's key and the value inside a tuple, if the history uses them.
func (r *registers) keyOf(inv *history.Op, val any) (string, any, bool) {
	if inv.Key != nil {
		return valueKey(inv.Key), val, true
	}
	if !r.tuples {
		return "", val, true
	}
	t, ok := val.([]any)
	if !ok || len(t) != 2 {
		return "", nil, false
	}
	return valueKey(t[0]), t[1], true
}

// readValue builds the completion value of read rd returning x.
func (r *registers) readValue(v *view, rd regOp, x any) any {
	if r.tuples && v.h[rd.inv].Key == nil {
		return []any{v.h[rd.comp].Value.([]any)[0], x}
	}
	return x
}

// absent reports whether x is a value stores use for "no value": nil, and in
// kv the empty string. A read of it may be a read of the initial state.
func absent(x any) bool {
	switch y := x.(type) {
	case nil:
		return true
	case string:
		return y == ""
	case history.Keyword:
		return y == ""
	}
	return false
}

// registerMutants derives stale and phantom reads.
func registerMutants(v *view, rng *rand.Rand, max int) ([]Mutant, string) {
	r := splitRegisters(v)
	if r == nil {
		return nil, ""
	}
	// A read of a key nobody writes shows nothing about the claim: the
	// history holds no write for the oracle to order it against.
	written := slices.DeleteFunc(slices.Clone(r.reads), func(rd regOp) bool { return r.producers[rd.key] == nil && !r.appends[rd.key] })
	if len(written) == 0 {
		return nil, "no ok read of a written key"
	}
	order := pick(rng, written)
	stale := r.staleReads(v, rng, order, max)
	var phantom []Mutant
	for _, rd := range order {
		if len(phantom) == max {
			break
		}
		x, ok := r.values.next()
		if !ok {
			break
		}
		phantom = append(phantom, v.mutant(PhantomRead, false, v.withValue(rd.comp, r.readValue(v, rd, x)),
			"op %d (ok read of key %s by process %d) returns %s, a value no op wrote, instead of %s",
			v.h[rd.comp].Index, keyName(v, rd), v.h[rd.inv].Process, history.FormatEDN(x), history.FormatEDN(rd.val)))
	}
	ms := append(byPos(stale), byPos(phantom)...)
	if len(stale) == 0 {
		return ms, "no ok read follows two completed writes, the older of a value no other op writes"
	}
	return ms, ""
}

// staleReads finds reads that can return a value overwritten before they
// began: W1 wrote x, and x only; W1 completed before W2 began; W2 completed
// before the read began. No linearization can then place x after W2.
func (r *registers) staleReads(v *view, rng *rand.Rand, order []regOp, max int) []Mutant {
	var out []Mutant
	const scan = 64 // candidate W1s looked at per read: bounds the work per read
	for _, rd := range order {
		if len(out) == max {
			break
		}
		ws := r.writers[rd.key]
		if r.appends[rd.key] || len(ws) < 2 {
			continue
		}
		j := sort.Search(len(ws), func(i int) bool { return ws[i].comp >= rd.inv })
		if j == 0 {
			continue
		}
		w2 := ws[j-1]
		k := sort.Search(j, func(i int) bool { return ws[i].comp >= w2.inv })
		if k == 0 {
			continue
		}
		start := rng.IntN(k)
		for n := range min(k, scan) {
			w1 := ws[(start+n)%k]
			if absent(w1.val) || r.producers[rd.key][valueKey(w1.val)] != 1 || history.Equal(w1.val, rd.val) {
				continue
			}
			out = append(out, v.mutant(StaleRead, true, v.withValue(rd.comp, r.readValue(v, rd, w1.val)),
				"op %d (ok read of key %s by process %d) returns %s instead of %s: only op %d wrote %s, and op %d overwrote it with %s before the read began",
				v.h[rd.comp].Index, keyName(v, rd), v.h[rd.inv].Process, history.FormatEDN(w1.val), history.FormatEDN(rd.val),
				v.h[w1.comp].Index, history.FormatEDN(w1.val), v.h[w2.comp].Index, history.FormatEDN(w2.val)))
			break
		}
	}
	return out
}

// keyName names a register op's key for descriptions; "-" for a single register.
func keyName(v *view, o regOp) string {
	if o.key == "" && v.h[o.inv].Key == nil {
		return "-"
	}
	return o.key
}
