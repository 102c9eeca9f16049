package check

import "testing"

// TestSegMemoChains checks that entries with one hash form one chain, newest
// first, that growing the table keeps them, and that a released cache is
// empty when it is handed out again.
func TestSegMemoChains(t *testing.T) {
	m := newSegMemo(70)
	if m.words != 2 {
		t.Fatalf("words = %d, want 2", m.words)
	}
	bits := []uint64{1, 2}
	for i := range 100 { // enough to resize the table several times
		h := uint64(i % 10)
		m.add(m.find(h), h, bits, []int{i}, int64(i))
	}
	for h := range uint64(10) {
		var got []int64
		for i := m.head(m.find(h)); i >= 0; i = m.ents[i].next {
			got = append(got, m.states[i].(int64))
			if e := m.ents[i]; m.pend[e.poff] != int(m.states[i].(int64)) || e.plen != 1 {
				t.Fatalf("hash %d: entry %d has pending %v", h, i, m.pend[e.poff:e.poff+e.plen])
			}
		}
		if len(got) != 10 || got[0] != int64(90+h) || got[9] != int64(h) {
			t.Fatalf("hash %d: chain %v, want the 10 states newest first", h, got)
		}
	}
	if m.head(m.find(12345)) >= 0 {
		t.Fatal("an absent hash has a chain")
	}
	m.release()
	m = newSegMemo(10)
	defer m.release()
	if m.used != 0 || len(m.ents)+len(m.states)+len(m.bits)+len(m.pend) != 0 || m.head(m.find(3)) >= 0 {
		t.Fatalf("a reused cache is not empty: used %d, %d entries", m.used, len(m.ents))
	}
}

// TestSegMemoKeep checks which released caches are kept for later searches:
// a bounded number, none larger than memoKeepBytes.
func TestSegMemoKeep(t *testing.T) {
	memoFree.Lock()
	saved := memoFree.list
	memoFree.list = nil
	memoFree.Unlock()
	defer func() {
		memoFree.Lock()
		memoFree.list = saved
		memoFree.Unlock()
	}()
	for _, tc := range []struct {
		name     string
		ents     int // capacity of the entry arena
		released int
		kept     int
	}{
		{"one small", 10, 1, 1},
		{"more than memoKeep", 10, memoKeep + 3, memoKeep},
		{"too large", memoKeepBytes / 16, 1, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			memoFree.list = nil
			ms := make([]*segMemo, tc.released) // all held at once, as parallel searches hold them
			for i := range ms {
				ms[i] = newSegMemo(10)
				ms[i].ents = make([]memoEntry, 0, tc.ents)
			}
			for _, m := range ms {
				m.release()
			}
			if got := len(memoFree.list); got != tc.kept {
				t.Fatalf("kept %d caches, want %d", got, tc.kept)
			}
		})
	}
}
