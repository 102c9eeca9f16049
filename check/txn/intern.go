package txn

import (
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/faultline/faultline/history"
)

// canon maps a generic value to a comparable one such that two values are
// equal under history.Equal's rules exactly when their canons are ==: integral
// floats become int64, keywords become strings, and collections become a
// canonical text (sets and maps sorted), tagged so it never equals a string.
// Scalars are returned without allocating.
func canon(v any) any {
	if s, ok := scalarCanon(v); ok {
		return s
	}
	var b strings.Builder
	appendCanon(&b, v)
	return composite(b.String())
}

// scalarCanon is canon for a scalar; ok is false for a collection, whose
// canon is its text.
func scalarCanon(v any) (any, bool) {
	switch x := v.(type) {
	case int64, string, bool, nil:
		return v, true
	case history.Keyword:
		return string(x), true
	case int:
		return int64(x), true
	case float64:
		if x == math.Trunc(x) && x >= math.MinInt64 && x < math.MaxInt64 {
			return int64(x), true
		}
		return v, true
	}
	return nil, false
}

// composite is the canon of a collection.
type composite string

// appendCanon writes a canonical text for v.
func appendCanon(b *strings.Builder, v any) {
	// Scalars only: asking canon of a collection would ask appendCanon again.
	s, _ := scalarCanon(v)
	switch x := s.(type) {
	case int64:
		b.WriteString(strconv.FormatInt(x, 10))
		return
	case string:
		b.WriteString(strconv.Quote(x))
		return
	case float64:
		b.WriteString(strconv.FormatFloat(x, 'g', -1, 64))
		return
	case bool:
		b.WriteString(strconv.FormatBool(x))
		return
	case nil:
		if v == nil {
			b.WriteString("nil")
			return
		}
	}
	switch x := v.(type) {
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(' ')
			}
			appendCanon(b, e)
		}
		b.WriteByte(']')
	case history.Set:
		b.WriteString(sortedCanon(x))
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(strconv.Quote(k))
			b.WriteByte(' ')
			appendCanon(b, x[k])
		}
		b.WriteByte('}')
	default:
		// Outside the generic model: its EDN text is the best identity there is.
		b.WriteString("?" + history.FormatEDN(v))
	}
}

// sortedCanon renders a set's elements in sorted canonical order.
func sortedCanon(elems []any) string {
	parts := make([]string, len(elems))
	for i, e := range elems {
		var b strings.Builder
		appendCanon(&b, e)
		parts[i] = b.String()
	}
	sort.Strings(parts)
	return "#{" + strings.Join(parts, " ") + "}"
}

// same reports whether two values are equal for the checker.
func same(a, b any) bool {
	if x, ok := a.(int64); ok {
		y, ok := b.(int64)
		if ok {
			return x == y
		}
	}
	return canon(a) == canon(b)
}

// keyed is a value of one key, as a map key.
type keyed struct {
	key int32
	val any // a canon
}

// interner numbers keys densely from 0.
type interner struct {
	dense []int32 // dense[x] is 1 + the id of integer key x, 0 if none, for 0 <= x < maxDenseKey
	ints  map[int64]int32
	any   map[any]int32
	keys  []any // original key by id, for messages
}

// maxDenseKey bounds the integer keys found by indexing rather than hashing:
// Jepsen numbers keys from 0, and a slice index costs a fraction of a map
// probe on every micro-op.
const maxDenseKey = 1 << 20

func newInterner() *interner {
	return &interner{ints: make(map[int64]int32), any: make(map[any]int32)}
}

// key returns k's id, adding it if new.
func (in *interner) key(k any) int32 {
	if x, ok := k.(int64); ok {
		if x >= 0 && x < maxDenseKey {
			return in.denseKey(x, k)
		}
		if id, ok := in.ints[x]; ok {
			return id
		}
		id := int32(len(in.keys))
		in.ints[x] = id
		in.keys = append(in.keys, k)
		return id
	}
	c := canon(k)
	if x, ok := c.(int64); ok {
		return in.key(x)
	}
	if id, ok := in.any[c]; ok {
		return id
	}
	id := int32(len(in.keys))
	in.any[c] = id
	in.keys = append(in.keys, k)
	return id
}

// denseKey is key for an integer key 0 <= x < maxDenseKey; k is x boxed.
func (in *interner) denseKey(x int64, k any) int32 {
	if int(x) >= len(in.dense) {
		grown := min(max(2*len(in.dense), int(x)+1, 1024), maxDenseKey)
		in.dense = append(in.dense, make([]int32, grown-len(in.dense))...)
	}
	if id := in.dense[x]; id > 0 {
		return id - 1
	}
	id := int32(len(in.keys))
	in.dense[x] = id + 1
	in.keys = append(in.keys, k)
	return id
}

// smallKey is the most values a key may have for lookups to scan them rather
// than use a map: a short scan of adjacent memory beats a map probe that
// misses the cache, and most workloads retire keys after a few dozen writes.
const smallKey = 24

// values finds a key's version of a value. Written versions are indexed once
// parsing is done, grouped by key; versions made later (values read that
// nobody wrote, and initial states) go in a map of their own.
type values struct {
	off   []int32 // key k's written versions are ids[off[k]:off[k+1]]
	ids   []int32
	big   map[keyed]int32 // written versions of keys with more than smallKey
	extra map[keyed]int32 // versions nobody wrote
}

// indexVersions builds h.vals from the versions written while parsing, and
// rejects a value written twice to one key.
func (h *hist) indexVersions() error {
	nk := len(h.in.keys)
	x := &values{off: make([]int32, nk+1), ids: make([]int32, len(h.vers)), big: map[keyed]int32{}, extra: map[keyed]int32{}}
	for i := range h.vers {
		x.off[h.vers[i].key+1]++
	}
	for k := 0; k < nk; k++ {
		x.off[k+1] += x.off[k]
	}
	fill := make([]int32, nk)
	copy(fill, x.off)
	for i := range h.vers {
		k := h.vers[i].key
		x.ids[fill[k]] = int32(i)
		fill[k]++
	}
	h.vals = x
	for k := int32(0); k < int32(nk); k++ {
		g := x.ids[x.off[k]:x.off[k+1]]
		for j, id := range g {
			var prev int32 = -1
			if len(g) <= smallKey {
				for _, other := range g[:j] {
					if same(h.vers[other].val, h.vers[id].val) {
						prev = other
						break
					}
				}
			} else if p, ok := x.big[keyed{k, canon(h.vers[id].val)}]; ok {
				prev = p
			} else {
				x.big[keyed{k, canon(h.vers[id].val)}] = id
			}
			if prev >= 0 {
				return h.rewritten(prev, id)
			}
		}
	}
	return nil
}

// lookup returns the version of value v of key k, or -1.
func (h *hist) lookup(k int32, v any) int32 {
	x := h.vals
	if g := x.ids[x.off[k]:x.off[k+1]]; len(g) <= smallKey {
		for _, id := range g {
			if same(h.vers[id].val, v) {
				return id
			}
		}
	} else if id, ok := x.big[keyed{k, canon(v)}]; ok {
		return id
	}
	if id, ok := x.extra[keyed{k, canon(v)}]; ok {
		return id
	}
	return -1
}

// lookupOrAdd returns the version of value v of key k, making an unwritten
// one if there is none.
func (h *hist) lookupOrAdd(k int32, v any) int32 {
	if id := h.lookup(k, v); id >= 0 {
		return id
	}
	id := int32(len(h.vers))
	h.vers = append(h.vers, version{key: k, writer: -1, wmop: -1, pos: -1, val: v})
	h.vals.extra[keyed{k, canon(v)}] = id
	return id
}
