package txn

import (
	"slices"
	"strings"
	"testing"
)

// TestTxnOrder holds the transaction-order source to Elle's rule
// (rw_register.clj key-writes-version-sorted): every ok or info completion's
// writes are ordered, the transactions the order leaves out first in history
// order, then the listed ones by position, equal positions in history order.
func TestTxnOrder(t *testing.T) {
	// Completions at indices 1, 3, 5 (and 7 for the info one, 9 failed).
	hist := []string{"ok 0 [[:w :x 1]]", "ok 1 [[:w :x 2] [:w :y 2]]", "ok 2 [[:w :x 3]]",
		"info 3 [[:w :x 4]]", "fail 4 [[:w :x 5]]"}
	cases := []struct {
		name  string
		order map[int64]int
		want  string // each key's chain, keys sorted: ":x: 1 2 3; :y: 2"
	}{
		{"all listed", map[int64]int{1: 3, 3: 2, 5: 1, 7: 0}, ":x: 4 3 2 1; :y: 2"},
		{"none listed: history order", map[int64]int{}, ":x: 1 2 3 4; :y: 2"},
		{"unlisted first", map[int64]int{1: 0}, ":x: 2 3 4 1; :y: 2"},
		{"unlisted first, listed by position", map[int64]int{1: 9, 5: 2}, ":x: 2 4 3 1; :y: 2"},
		{"equal positions keep history order", map[int64]int{5: 1, 1: 1}, ":x: 2 4 1 3; :y: 2"},
		{"negative positions still follow the unlisted", map[int64]int{3: -5}, ":x: 1 3 4 2; :y: 2"},
		{"an index that is no completion is ignored", map[int64]int{0: 1, 100: 2}, ":x: 1 2 3 4; :y: 2"},
	}
	ops := txns(t, hist...)
	h, err := parse(ops, RWRegister)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			es := h.txnOrder(tc.order)
			if got := chains(h, es); got != tc.want {
				t.Errorf("chains %q, want %q", got, tc.want)
			}
		})
	}
}

// chains spells version edges that form one chain per key as "k: v1 v2 ...",
// keys sorted, "; " between.
func chains(h *hist, es []vedge) string {
	next := map[int32]int32{}
	hasPrev := map[int32]bool{}
	for _, e := range es {
		next[e.from] = e.to
		hasPrev[e.to] = true
	}
	var out []string
	for v := range next {
		if hasPrev[v] {
			continue
		}
		s := h.keyName(h.vers[v].key) + ":"
		for x, ok := v, true; ok; x, ok = next[x] {
			s += " " + fmtv(h.vers[x].val)
		}
		out = append(out, s)
	}
	// A key written once has no edge: list it with its one version.
	for k := range h.in.keys {
		n := 0
		for _, vr := range h.vers {
			if vr.key == int32(k) && vr.writer >= 0 {
				n++
			}
		}
		if n == 1 {
			for _, vr := range h.vers {
				if vr.key == int32(k) && vr.writer >= 0 {
					out = append(out, h.keyName(int32(k))+": "+fmtv(vr.val))
				}
			}
		}
	}
	slices.Sort(out)
	return strings.Join(out, "; ")
}

// TestTxnOrderVerdicts checks partial orders end to end: Elle's G2-item
// transaction-order case with the order naming only some transactions.
func TestTxnOrderVerdicts(t *testing.T) {
	// T1 wx1wy2wz3, T2 rx1wy5, T3 rz3wx4, T4 wz7wy8 (completions at 1, 3, 5, 7).
	hist := []string{"ok 0 [[:w :x 1] [:w :y 2] [:w :z 3]]", "ok 0 [[:r :x 1] [:w :y 5]]",
		"ok 0 [[:r :z 3] [:w :x 4]]", "ok 0 [[:w :z 7] [:w :y 8]]"}
	ser := rr("serializable")
	cases := []struct {
		name  string
		order map[int64]int
		valid string
		types []string
	}{
		{"no order", nil, Valid, nil},
		{"full order T1 T3 T4 T2", map[int64]int{1: 1, 3: 4, 5: 2, 7: 3}, Invalid, []string{"G2-item"}},
		// T1 unlisted comes first; T3 < T4 < T2 as before.
		{"T1 left out", map[int64]int{3: 4, 5: 2, 7: 3}, Invalid, []string{"G2-item"}},
		// T3 and T4 listed, T1 and T2 unlisted, so first: y 2 < 5 < 8,
		// x 1 < 4, z 3 < 7: T2 reads x 1, T3 overwrote it (rw); T3 reads
		// z 3, T4 overwrote it (rw); T2's y 5 precedes T4's 8 (ww T2 -> T4):
		// no cycle back to T2.
		{"only T3 and T4 listed", map[int64]int{5: 1, 7: 2}, Valid, nil},
		// Empty is no order (nothing to go on but the history).
		{"empty order", map[int64]int{}, Valid, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := ser
			o.TransactionOrder = tc.order
			r := check(t, txns(t, hist...), o)
			if r.Valid != tc.valid || !slices.Equal(r.AnomalyTypes, tc.types) {
				t.Fatalf("%s %v, want %s %v\n%s", r.Valid, r.AnomalyTypes, tc.valid, tc.types, r.Explanation)
			}
		})
	}
}

// TestTouches holds the external values a transaction contributes to
// version inference to Elle's (transaction-graph->version-graphs): the
// first read unless it read nil, else the final write; the final write,
// else the read; intermediate writes and an info transaction's reads never.
func TestTouches(t *testing.T) {
	cases := []struct {
		name, line string
		want       string // per key "k first last"
	}{
		{"read then write", "ok 0 [[:r :x 3] [:w :x 4]]", ":x 3 4"},
		{"read nil then write: the write", "ok 0 [[:r :x nil] [:w :x 4]]", ":x 4 4"},
		{"read nil only", "ok 0 [[:r :x nil]]", ":x nil nil"},
		{"writes only: the final one", "ok 0 [[:w :x 1] [:w :x 2]]", ":x 2 2"},
		{"write then read: internal read", "ok 0 [[:w :x 1] [:r :x 1]]", ":x 1 1"},
		{"two reads: the first", "ok 0 [[:r :x 1] [:r :x 1] [:w :y 2]]", ":x 1 1; :y 2 2"},
		{"info: final write only", "info 0 [[:r :x nil] [:w :x 1] [:w :x 2]]", ":x 2 2"},
		{"info read only: nothing", "info 0 [[:r :x nil]]", ""},
		{"failed: nothing", "fail 0 [[:w :x 1]]", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// A writer of every value read, so reads name versions.
			h, err := parse(txns(t, "ok 9 [[:w :x 3]]", tc.line), RWRegister)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, x := range h.touches(1) {
				got = append(got, h.keyName(x.key)+" "+fmtv(h.vers[x.first].val)+" "+fmtv(h.vers[x.last].val))
			}
			if s := strings.Join(got, "; "); s != tc.want {
				t.Errorf("touches %q, want %q", s, tc.want)
			}
		})
	}
}

// TestRegisterKeyOrders checks verdicts that hang on those rules.
func TestRegisterKeyOrders(t *testing.T) {
	ser := rr("serializable")
	lin, seq := ser, ser
	lin.LinearizableKeys, seq.SequentialKeys = true, true
	cases := []struct {
		name  string
		hist  []string
		o     Options
		valid string
		types []string
	}{
		// T2 began after T1's write of 1 completed and read nil before
		// writing 2: linearizable keys order 1 before T2's write 2, not
		// before nil, so no version cycle, and T2's stale read of nil is an
		// anti-dependency on T1: G-single-item (Elle's answer).
		{"stale nil read then write", []string{"ok 0 [[:w :x 1]]", "ok 1 [[:r :x nil] [:w :x 2]]"}, lin, Invalid, []string{"G-single-item"}},
		// Process order relates ok transactions only: the info write of 2
		// on process 0 is not ordered after its 1, so reading 2 and then 1
		// on process 1 orders 2 < 1 alone, no cycle.
		{"sequential keys skip info", []string{"ok 0 [[:w :x 1]]", "info 0 [[:w :x 2]]", "ok 1 [[:r :x 2]]", "ok 1 [[:r :x 1]]"}, seq, Valid, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := check(t, txns(t, tc.hist...), tc.o)
			if r.Valid != tc.valid || !slices.Equal(r.AnomalyTypes, tc.types) {
				t.Fatalf("%s %v, want %s %v\n%s", r.Valid, r.AnomalyTypes, tc.valid, tc.types, r.Explanation)
			}
		})
	}
}

// TestElleVersionInference converts Elle's
// transaction-graph->version-graphs-test (rw_register_test.clj): Elle gives
// the transaction graph directly; here it is real-time order, so the
// linearizable-keys source infers from it. Each case's transactions run one
// after another unless its lines overlap them.
func TestElleVersionInference(t *testing.T) {
	cases := []struct {
		name string
		hist []string
		want string // version edges, "k: a>b ..." per key, sorted
	}{
		{"r->w", []string{"ok 0 [[:r :x 1]]", "ok 1 [[:w :x 2]]"}, ":x: 1>2"},
		{"fork-join", []string{"ok 0 [[:r :x 1]]", "invoke 1 [[:w :x 2]]", "invoke 2 [[:w :x 3]]", "ok 1 [[:w :x 2]]", "ok 2 [[:w :x 3]]",
			"ok 3 [[:r :x 4]]"}, ":x: 1>2 1>3 2>4 3>4"},
		// 3 is an internal version: 2 -> 4.
		{"external ww", []string{"ok 0 [[:w :x 1] [:w :x 2]]", "ok 1 [[:w :x 3] [:w :x 4] [:r :x 5]]"}, ":x: 2>4"},
		{"external wr", []string{"ok 0 [[:w :x 1] [:w :x 2]]", "ok 1 [[:r :x 3] [:r :x 4] [:w :x 5]]"}, ":x: 2>3"},
		{"external rw", []string{"ok 0 [[:r :x 1] [:r :x 2]]", "ok 1 [[:w :x 3] [:w :x 4] [:r :x 5]]"}, ":x: 1>4"},
		{"external rr", []string{"ok 0 [[:r :x 1] [:r :x 2]]", "ok 1 [[:r :x 3] [:r :x 4] [:w :x 5]]"}, ":x: 1>3"},
		{"don't infer v1 -> v1 deps", []string{"ok 0 [[:w :x 1]]", "ok 1 [[:r :x 1]]"}, ""},
		{"don't infer deps on failed or crashed reads", []string{"ok 0 [[:w :x 1]]", "fail 1 [[:r :x 2]]", "info 2 [[:r :x 3]]"}, ""},
		{"don't infer deps on failed writes, but do infer crashed", []string{"ok 0 [[:w :x 1]]", "fail 1 [[:w :x 2]]", "info 2 [[:r :x 3] [:w :x 4]]"}, ":x: 1>4"},
		{"see through failed/crashed ops", []string{"ok 0 [[:w :x 1]]", "info 1 [[:r :x nil]]", "ok 2 [[:r :x 3]]"}, ":x: 1>3"},
		{"see through seq. failed/crashed ops", []string{"ok 0 [[:w :x 1]]", "info 1 [[:r :x nil]]", "fail 2 [[:w :x 2]]", "ok 3 [[:w :x 3]]"}, ":x: 1>3"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h, err := parse(txns(t, tc.hist...), RWRegister)
			if err != nil {
				t.Fatal(err)
			}
			tt := make([][]touch, len(h.txns))
			for i := range tt {
				tt[i] = h.touches(int32(i))
			}
			byKey := map[string][]string{}
			for _, e := range h.chainOrder(tt, true) {
				k := h.keyName(h.vers[e.from].key)
				byKey[k] = append(byKey[k], fmtv(h.vers[e.from].val)+">"+fmtv(h.vers[e.to].val))
			}
			var got []string
			for k, es := range byKey {
				slices.Sort(es)
				got = append(got, k+": "+strings.Join(es, " "))
			}
			slices.Sort(got)
			if s := strings.Join(got, "; "); s != tc.want {
				t.Errorf("got %q, want %q", s, tc.want)
			}
		})
	}
}
