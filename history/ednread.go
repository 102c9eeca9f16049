package history

import (
	"bytes"
	"unicode/utf8"
)

// readEDN reads a Jepsen EDN history: a sequence of top-level forms, each an op
// map (optionally tagged, as in #jepsen.history.Op{...}) or a vector or list of
// op maps. One map per line and one big vector are both such sequences.
func readEDN(data []byte) ([]Op, []int, error) {
	if ops, lines, ok := readEDNSplit(data); ok {
		return ops, lines, nil
	}
	r := ednReader{data: data}
	ops := make([]Op, 0, bytes.Count(data, []byte{'\n'})+1)
	lines := make([]int, 0, cap(ops))
	at := lineCounter{data: data}
	for {
		if err := r.skip(); err != nil {
			return nil, nil, err
		}
		if r.eof() {
			return ops, lines, nil
		}
		c := r.data[r.pos]
		if c != '[' && c != '(' {
			lines = append(lines, at.line(r.pos))
			op, err := r.readOpForm(int64(len(ops)))
			if err != nil {
				return nil, nil, err
			}
			ops = append(ops, op)
			continue
		}
		open, closer, kind := r.pos, byte(']'), "vector"
		if c == '(' {
			closer, kind = ')', "list"
		}
		r.pos++
		for {
			done, err := r.closeOrNext(closer, kind, open)
			if err != nil {
				return nil, nil, err
			}
			if done {
				break
			}
			lines = append(lines, at.line(r.pos))
			op, err := r.readOpForm(int64(len(ops)))
			if err != nil {
				return nil, nil, err
			}
			ops = append(ops, op)
		}
	}
}

// readOpForm reads an op map, skipping a record tag in front of it.
func (r *ednReader) readOpForm(ordinal int64) (Op, *ParseError) {
	if r.data[r.pos] == '#' && r.pos+1 < len(r.data) && isTagStart(r.data[r.pos+1]) {
		r.pos++
		r.token()
		if err := r.skip(); err != nil {
			return Op{}, err
		}
	}
	if r.eof() || r.data[r.pos] != '{' {
		return Op{}, r.errorf(r.pos, "expected an op map {:type ..., :process ...} or a vector of them, found %s", r.found())
	}
	return r.readOp(ordinal)
}

// readOp reads the op map at '{', converting fields as it meets them so that
// errors point at the offending value.
func (r *ednReader) readOp(ordinal int64) (Op, *ParseError) {
	open := r.pos
	if err := r.enter(open); err != nil {
		return Op{}, err
	}
	r.pos++
	b := opBuilder{edn: true}
	for {
		done, err := r.closeOrNext('}', "op map", open)
		if err != nil {
			return Op{}, err
		}
		if done {
			break
		}
		keyOff := r.pos
		f, name, err := r.readOpKey()
		if err != nil {
			return Op{}, err
		}
		if b.dup(f, name) {
			return Op{}, r.errorf(keyOff, "duplicate key :%s in op map", name)
		}
		if err := r.readField(&b, f, name); err != nil {
			if r.eof() {
				err.Msg += " (the op map opened at " + r.where(open) + " is incomplete)"
			}
			return Op{}, err
		}
	}
	r.leave()
	r.defaultedIndex, r.defaultedTime = b.seen&(1<<fieldIndex) == 0, b.seen&(1<<fieldTime) == 0
	op, err := b.finish(ordinal)
	if err != nil {
		return Op{}, r.errorf(open, "%v", err)
	}
	return op, nil
}

// readField reads the value of an op key into b. Integers and strings of the
// scalar core fields skip the boxed generic path.
func (r *ednReader) readField(b *opBuilder, f field, name string) *ParseError {
	if err := r.skip(); err != nil {
		return err
	}
	off := r.pos
	if r.eof() || r.data[r.pos] == '}' {
		return r.errorf(r.pos, "expected a value for key :%s, found %s", name, r.found())
	}
	var err error
	switch c := r.data[r.pos]; {
	case f == fieldValue && (c == '[' || c == '(') && leanValues:
		v, ok := r.readLean()
		if !ok {
			// The generic reader takes what the fast path does not, and
			// reports any error at its place.
			var perr *ParseError
			if v, perr = r.readValue(); perr != nil {
				return perr
			}
		}
		err = b.set(f, name, v)
	case isIntField(f) && r.startsNumber():
		text, kind, perr := r.scanNumber()
		if perr != nil {
			return perr
		}
		if n, ok := parseDecimal(text); kind == numInt && ok {
			err = b.setInt(f, n)
			break
		}
		v, msg := parseNumber(text, kind)
		if msg != "" {
			return r.errorf(off, "%s", msg)
		}
		err = b.set(f, name, v)
	case isTextField(f) && c == ':' && leanValues && r.pos+1 < len(r.data) && isConstituent(r.data[r.pos+1]):
		// A keyword such as :invoke or :txn, without boxing it.
		r.pos++
		tok := r.token()
		if !utf8.Valid(tok) {
			r.pos = off
			v, perr := r.readValue() // for its error
			if perr != nil {
				return perr
			}
			err = b.set(f, name, v)
			break
		}
		err = b.setText(f, r.textOf(f, tok), true)
	case isTextField(f) && c == '"':
		text, perr := r.readStringBytes()
		if perr != nil {
			return perr
		}
		err = b.setText(f, r.strs.intern(text), false)
	default:
		v, perr := r.readValue()
		if perr != nil {
			return perr
		}
		err = b.set(f, name, v)
	}
	if err != nil {
		return r.errorf(off, "%v", err)
	}
	return nil
}

// textOf returns tok as a string, allocating it only when it differs from
// the last text of field f: a history repeats its op types and functions.
func (r *ednReader) textOf(f field, tok []byte) string {
	switch string(tok) {
	case "invoke":
		return string(Invoke)
	case "ok":
		return string(OK)
	case "fail":
		return string(Fail)
	case "info":
		return string(Info)
	}
	if string(tok) == r.last[f] {
		return r.last[f]
	}
	s := r.strs.intern(tok)
	r.last[f] = s
	return s
}

// readOpKey reads a key of an op map: a keyword, or a string for symmetry with
// other maps. Core field names are not allocated.
func (r *ednReader) readOpKey() (field, string, *ParseError) {
	start := r.pos
	if r.data[r.pos] == ':' {
		r.pos++
		tok := r.token()
		if f := fieldOf(tok); f != fieldExtra {
			return f, fieldNames[f], nil
		}
		r.pos = start
	}
	k, err := r.readValue()
	if err != nil {
		return 0, "", err
	}
	name, ok := textOf(k)
	if !ok {
		return 0, "", r.errorf(start, "expected a keyword as op map key, found %s", describe(k, true))
	}
	return fieldOf(name), name, nil
}

// leanValues turns on the fast path for op values (and for keywords in the
// text fields). The generic reader boxes every element into a freshly grown
// []any; a list-append history of a million transactions is mostly
// micro-op vectors, and that boxing was most of its check time. Tests turn
// it off to compare the two paths.
var leanValues = true

const (
	// leanDepth is how deep the fast path nests: a transaction, its
	// micro-ops, and the list a micro-op read.
	leanDepth = 3
	// leanChunk is how many elements one slab allocation holds: vectors are
	// carved from slabs rather than allocated one by one.
	leanChunk = 8192
	// leanOwn is the size from which a vector gets an allocation of its own,
	// so a big one does not waste the rest of a slab.
	leanOwn = leanChunk / 8
	// maxBoxedInt bounds the table of boxed integers (16 bytes an entry).
	maxBoxedInt = 1 << 20
	// mopSlots is the size of the cache of recent micro-ops. A completion
	// repeats its invocation's appends a few ops later, so a small cache
	// finds nearly all of them.
	mopSlots = 4096
)

// leanState holds the fast path's buffers and caches, kept across ops.
//
// Values it hands out may share memory (an append micro-op of a completion
// is its invocation's; a list read is a prefix of an earlier list of the
// same key), which is safe because nothing modifies a value read from a
// history and every shared slice has its capacity clipped, so appending to
// one copies it.
type leanState struct {
	stack []any // elements of the vectors being read, innermost last
	chunk []any // the current slab; chunk[used:] is free
	used  int
	gen   int   // counts slabs, so a failed read can tell whether its slab is still current
	ints  []any // ints[n] is n boxed, once met, for 256 <= n < len(ints)
	// lists holds, per micro-op key, the elements of the lists read of it.
	// A list-append read is usually the key's longest list so far or a
	// prefix of it, so reads share one array that grows in place.
	lists map[any]growList
	mops  [mopSlots]cachedMop // recent all-scalar micro-ops by hash
	undo  []leanUndo          // what the current op value changed in lists
	slots []int32             // the mops slots the current op value filled
	whole bool                // the list share just returned is its key's last
}

// cachedMop is a micro-op of the cache: its []any, boxed once, and its hash,
// compared first so that a slot held by another micro-op costs no look at
// its elements.
type cachedMop struct {
	hash uint64
	mop  any
}

// growList is one key's shared list: arr[:n] has been handed out; arr[n:]
// is free room for elements read later.
type growList struct {
	arr  []any // len(arr) == cap(arr)
	n    int
	last any // arr[:n:n], boxed once: re-reads of the whole list share it
	// read is the micro-op [fn key last], boxed once: transactions that
	// read the key while nothing was appended to it share one micro-op.
	read   any
	readFn Keyword
}

// leanUndo records a change to lists, so that an attempt the generic
// reader must redo leaves no reference to slab space it gives back.
type leanUndo struct {
	key  any
	list growList
	had  bool // key had a list
}

// readLean reads the vector or list at r.pos when it holds only what op
// values of transactional workloads hold: integers, keywords, strings,
// nil, booleans, nested up to leanDepth. It builds a value equal to the one
// the generic reader would. On anything else, including malformed input, it
// puts r.pos back and reports false, and the generic reader takes over, so
// errors are the generic reader's.
func (r *ednReader) readLean() (any, bool) {
	if r.depth+leanDepth > maxDepth {
		return nil, false
	}
	st := &r.lean
	start, gen, used := r.pos, st.gen, st.used
	v, ok := r.leanSeq(1, nil, false)
	if ok {
		if len(st.undo) > 0 {
			clear(st.undo)
			st.undo = st.undo[:0]
		}
		st.slots = st.slots[:0]
		return v, true
	}
	r.pos = start
	clear(st.stack)
	st.stack = st.stack[:0]
	for i := len(st.undo) - 1; i >= 0; i-- {
		if u := st.undo[i]; u.had {
			st.lists[u.key] = u.list
		} else {
			delete(st.lists, u.key)
		}
	}
	clear(st.undo)
	st.undo = st.undo[:0]
	for _, s := range st.slots {
		st.mops[s] = cachedMop{} // a cache: forgetting costs only a miss
	}
	st.slots = st.slots[:0]
	if st.gen == gen {
		// Nothing points at what this attempt carved any more: give it back.
		clear(st.chunk[used:st.used])
		st.used = used
	}
	return nil, false
}

// leanSeq reads the vector or list at r.pos, at nesting level (1 for the op
// value itself). When keyed, the vector is a micro-op's list and key the
// micro-op's key.
func (r *ednReader) leanSeq(level int, key any, keyed bool) (any, bool) {
	closer := byte(']')
	if r.data[r.pos] == '(' {
		closer = ')'
	}
	r.pos++
	st := &r.lean
	base := len(st.stack)
	nested := false
	whole := false // elems[2] is its key's whole shared list
	for {
		r.pos = r.spaceEnd(r.pos)
		if r.pos >= len(r.data) {
			return nil, false
		}
		var v any
		switch c := r.data[r.pos]; c {
		case closer:
			r.pos++
			elems := st.stack[base:]
			var out any
			switch {
			case keyed:
				out = st.share(key, elems)
			case level == leanDepth-1 && !nested && len(elems) <= 3:
				out = st.mop(elems)
			case level == leanDepth-1 && whole && len(elems) == 3:
				out = st.readMop(elems)
			default:
				out = st.carve(elems, len(elems))
			}
			// elems is left as it is: what it references is in the value
			// just built, the next elements overwrite it, and clearing
			// pointers costs write barriers while the collector runs.
			st.stack = st.stack[:base]
			return out, true
		case '[', '(':
			if level == leanDepth {
				return nil, false
			}
			nested = true
			var k any
			kk := false
			if level == leanDepth-1 && len(st.stack)-base == 2 {
				k = st.stack[base+1]
				kk = isScalarKey(k)
			}
			st.whole = false
			inner, ok := r.leanSeq(level+1, k, kk)
			if !ok {
				return nil, false
			}
			whole, st.whole = kk && st.whole, false
			v = inner
		case ':':
			kw, err := r.readKeyword()
			if err != nil {
				return nil, false
			}
			v = kw
		case '"':
			b, err := r.readStringBytes()
			if err != nil {
				return nil, false
			}
			v = r.strs.intern(b)
		case ']', ')', '}', '{', '#', ';', '\\', '\'':
			// Another closer, a map, a set or tag, a comment or discard, a
			// character: the generic reader's business.
			return nil, false
		default:
			tok := r.token()
			if n, ok := leanInt(tok); ok {
				v = st.box(n)
				break
			}
			switch string(tok) {
			case "nil":
			case "true":
				v = true
			case "false":
				v = false
			default:
				return nil, false // a float, a symbol, a malformed number
			}
		}
		st.stack = append(st.stack, v)
	}
}

// leanInt converts tok when it is an integer the generic reader reads as
// int64: decimal digits after an optional sign, no leading zero, in range.
func leanInt(tok []byte) (int64, bool) {
	d := tok
	if len(d) > 0 && (d[0] == '+' || d[0] == '-') {
		d = d[1:]
	}
	if len(d) == 0 || len(d) > 1 && d[0] == '0' {
		return 0, false
	}
	for _, c := range d {
		if !isDigit(c) {
			return 0, false
		}
	}
	return parseDecimal(tok)
}

// isScalarKey reports whether k can key leanState.lists: a value whose ==
// is EDN equality.
func isScalarKey(k any) bool {
	switch k.(type) {
	case int64, string, Keyword, bool, nil:
		return true
	}
	return false
}

// carve copies elems into slab memory with room for c elements, capacity
// clipped to c so that appending to the result copies it rather than
// overwriting a neighbour. An empty vector is non-nil, as the generic
// reader's is.
func (st *leanState) carve(elems []any, c int) []any {
	if c >= leanOwn {
		out := make([]any, len(elems), c)
		copy(out, elems)
		return out
	}
	if st.chunk == nil || len(st.chunk)-st.used < c {
		st.chunk, st.used = make([]any, leanChunk), 0
		st.gen++
	}
	out := st.chunk[st.used : st.used+len(elems) : st.used+c]
	copy(out, elems)
	st.used += c
	return out
}

// share returns elems, a list read of key, as a prefix of the key's shared
// list when it is one or extends it, else as a new shared list for the key.
// Its elements are scalars, so == compares them.
func (st *leanState) share(key any, elems []any) any {
	m := len(elems)
	if m == 0 {
		return st.carve(elems, 0)
	}
	g, had := st.lists[key]
	if m == g.n && equalScalars(g.arr[:m], elems) {
		st.whole = true
		return g.last
	}
	if m < g.n && equalScalars(g.arr[:m], elems) {
		return g.arr[:m:m]
	}
	st.undo = append(st.undo, leanUndo{key: key, list: g, had: had})
	if g.n < m && m <= len(g.arr) && equalScalars(g.arr[:g.n], elems[:g.n]) {
		copy(g.arr[g.n:m], elems[g.n:]) // room nobody was handed
		last := any(g.arr[:m:m])
		st.lists[key] = growList{arr: g.arr, n: m, last: last}
		st.whole = true
		return last
	}
	if st.lists == nil {
		st.lists = make(map[any]growList)
	}
	c := max(2*m, 16)
	arr := st.carve(elems, c)
	last := any(arr)
	st.lists[key] = growList{arr: arr[:c], n: m, last: last}
	st.whole = true
	return last
}

// readMop returns elems, a micro-op [fn key list] whose list is key's whole
// shared list, as the micro-op read of key last if it is the same, else as
// a new one the key remembers.
func (st *leanState) readMop(elems []any) any {
	fn, ok := elems[0].(Keyword)
	if !ok {
		return st.carve(elems, len(elems))
	}
	key := elems[1]
	g := st.lists[key]
	if g.read != nil && g.readFn == fn {
		return g.read
	}
	st.undo = append(st.undo, leanUndo{key: key, list: g, had: true})
	g.read, g.readFn = st.carve(elems, len(elems)), fn
	st.lists[key] = g
	return g.read
}

// mop returns elems, an all-scalar micro-op, as the same micro-op read
// recently if there is one, else as a new one that the cache remembers.
func (st *leanState) mop(elems []any) any {
	h := uint64(len(elems))
	for _, e := range elems {
		h = (h ^ scalarHash(e)) * 0x100000001b3
	}
	h ^= h >> 29
	c := &st.mops[h%mopSlots]
	if c.hash == h && c.mop != nil {
		if prev := c.mop.([]any); len(prev) == len(elems) && equalScalars(prev, elems) {
			return c.mop
		}
	}
	out := any(st.carve(elems, len(elems)))
	st.slots = append(st.slots, int32(h%mopSlots))
	*c = cachedMop{h, out}
	return out
}

// scalarHash hashes a scalar of the fast path cheaply: a collision costs
// only a cache miss, since the elements are compared.
func scalarHash(v any) uint64 {
	switch x := v.(type) {
	case int64:
		return uint64(x) * 0x9e3779b97f4a7c15
	case Keyword:
		if n := len(x); n > 0 {
			return uint64(n)<<16 ^ uint64(x[0])<<8 ^ uint64(x[n-1]) ^ 1
		}
		return 1
	case string:
		if n := len(x); n > 0 {
			return uint64(n)<<16 ^ uint64(x[0])<<8 ^ uint64(x[n-1])
		}
		return 2
	case bool:
		if x {
			return 3
		}
		return 5
	}
	return 7
}

func equalScalars(a, b []any) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// box returns n as an any. The runtime boxes 0..255 without allocating;
// larger keys and values recur across a history, so each is boxed once.
func (st *leanState) box(n int64) any {
	if n < 256 || n >= maxBoxedInt {
		return n
	}
	if int(n) >= len(st.ints) {
		grown := min(max(2*len(st.ints), int(n)+1, 1024), maxBoxedInt)
		st.ints = append(st.ints, make([]any, grown-len(st.ints))...)
	}
	if st.ints[n] == nil {
		st.ints[n] = n
	}
	return st.ints[n]
}
