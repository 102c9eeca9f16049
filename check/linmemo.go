package check

import "sync"

// This file is the cache of visited configurations that the linearizability
// search (linsearch.go) and the explanation's reachable states (reach.go) share.

// memoEntry is a visited configuration of a segment, in terms that do not
// depend on the run that reached it: the segment's ops linearized, the carried
// ops still pending, and the state. Runs from different start configurations
// meet in the same configurations (a carried op taking effect first turns one
// start into another), and the shared cache is what keeps that from multiplying.
// Its state is states[i] for entry i, kept apart so the entries hold no
// pointers (the collector skips them, and growing them needs no barriers).
type memoEntry struct {
	next       int32 // the next entry with the same hash, -1 at the end
	off        int32 // the segment bits: bits[off : off+words]
	poff, plen int32 // the carried ops pending: pend[poff : poff+plen]
}

// segMemo is one segment's cache: hash chains over flat arenas, so an entry
// costs no allocation of its own and little for the collector to scan. The
// chain heads live in an open-addressing table (one probe sequence finds or
// places a head; a Go map needs two lookups per new configuration).
type segMemo struct {
	keys   []uint64 // table of hashes; slot empty when vals is 0
	vals   []int32  // first entry of the slot's chain, plus one (so a cleared table is empty)
	used   int
	ents   []memoEntry
	states []any // each entry's state
	bits   []uint64
	pend   []int
	words  int
}

// memoFree keeps a few emptied caches between searches: growing a cache's
// arenas and table from nothing is a large part of a short search (many checks
// in a row, or the many files of one check run). A sync.Pool lost them at
// every collection, and a run of short checks collects every few
// milliseconds, so most searches regrew theirs. What is kept is bounded:
// memoKeep caches of at most memoKeepBytes each.
var memoFree struct {
	sync.Mutex
	list []*segMemo
}

const (
	memoKeep      = 2 // one per core of a small machine; a search holds one at a time per partition
	memoKeepBytes = 8 << 20
)

func newSegMemo(ops int) *segMemo {
	var m *segMemo
	memoFree.Lock()
	if n := len(memoFree.list); n > 0 {
		m = memoFree.list[n-1]
		memoFree.list[n-1] = nil
		memoFree.list = memoFree.list[:n-1]
	}
	memoFree.Unlock()
	if m == nil {
		m = new(segMemo)
	}
	m.words = (ops + 63) / 64
	if len(m.vals) == 0 {
		m.resize(8) // most segments of a long history hold a few configurations
	}
	return m
}

// release empties m and keeps it for the next search, unless it grew so large
// that keeping it would hold more memory than a search of a short history
// gains from it, or enough are kept already.
func (m *segMemo) release() {
	if m.bytes() > memoKeepBytes {
		return
	}
	clear(m.vals) // a kept table is as large as the largest search's: a loop costs more than memclr
	m.used = 0
	clear(m.states) // drop the states they hold
	m.ents, m.states, m.bits, m.pend = m.ents[:0], m.states[:0], m.bits[:0], m.pend[:0]
	memoFree.Lock()
	if len(memoFree.list) < memoKeep {
		memoFree.list = append(memoFree.list, m)
	}
	memoFree.Unlock()
}

// bytes is the memory m's table and arenas hold.
func (m *segMemo) bytes() int {
	return 8*cap(m.keys) + 4*cap(m.vals) + 16*cap(m.ents) + 16*cap(m.states) + 8*cap(m.bits) + 8*cap(m.pend)
}

func (m *segMemo) resize(n int) {
	keys, vals := m.keys, m.vals
	m.keys, m.vals = make([]uint64, n), make([]int32, n)
	for i, v := range vals {
		if v > 0 {
			j := m.find(keys[i])
			m.keys[j], m.vals[j] = keys[i], v
		}
	}
}

// find returns the slot of h: its own, or the empty one where it belongs.
func (m *segMemo) find(h uint64) int {
	mask := len(m.keys) - 1
	for i := int(mix(h)) & mask; ; i = (i + 1) & mask {
		if m.vals[i] == 0 || m.keys[i] == h {
			return i
		}
	}
}

// head returns the first entry of slot's chain, -1 if it has none.
func (m *segMemo) head(slot int) int32 { return m.vals[slot] - 1 }

// add records an entry at slot (from find, for hash h); seg is copied.
func (m *segMemo) add(slot int, h uint64, seg []uint64, pend []int, st any) {
	next := m.head(slot)
	if next < 0 {
		m.keys[slot] = h
		m.used++
	}
	m.vals[slot] = int32(len(m.ents)) + 1
	m.ents = append(m.ents, memoEntry{next: next, off: int32(len(m.bits)), poff: int32(len(m.pend)), plen: int32(len(pend))})
	m.states = append(m.states, st)
	m.bits = append(m.bits, seg...)
	m.pend = append(m.pend, pend...)
	if 4*m.used > 3*len(m.keys) {
		m.resize(2 * len(m.keys))
	}
}
