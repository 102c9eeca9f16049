package txn

import (
	"slices"
	"strings"
	"testing"
)

func TestRegisterAnomalies(t *testing.T) {
	wfr := rr("serializable")
	wfr.WritesFollowReads = true
	cases := []struct {
		name  string
		hist  []string
		o     Options
		types []string
	}{
		{"G1a aborted read", []string{"fail 0 [[:w :x 1]]", "ok 1 [[:r :x 1]]"}, rr("serializable"), []string{"G1a", "empty-transaction-graph"}},
		{"G1b intermediate read", []string{"ok 0 [[:w :x 1] [:w :x 2]]", "ok 1 [[:r :x 1]]"}, rr("serializable"), []string{"G1b", "empty-transaction-graph"}},
		{"internal: a read after the own write", []string{"ok 0 [[:w :x 1] [:r :x 2]]", "ok 1 [[:w :x 2]]"}, rr("serializable"), []string{"empty-transaction-graph", "internal"}},
		{"internal: a non-repeatable read", []string{"ok 0 [[:w :x 1]]", "ok 1 [[:w :x 2]]", "ok 2 [[:r :x 1] [:r :x 2]]"}, rr("serializable"), []string{"internal"}},
		{"future read", []string{"ok 0 [[:r :x 1] [:w :x 1]]"}, rr("serializable"), []string{"empty-transaction-graph", "future-read"}},
		{"garbage read", []string{"ok 0 [[:r :x 5]]", "ok 1 [[:w :y 1]]"}, withInit(rr("serializable"), nil), []string{"empty-transaction-graph", "garbage-read"}},
		{"garbage read against a given initial state", []string{"ok 0 [[:r :x 0]]", "ok 1 [[:r :y 0]]"}, withInit(rr("serializable"), map[string]any{"x": 0}), []string{"empty-transaction-graph", "garbage-read"}},
		{
			// Both read the initial state and both wrote: each write
			// anti-depends on the other's read.
			"lost update", []string{"ok 0 [[:r :x nil] [:w :x 1]]", "ok 1 [[:r :x nil] [:w :x 2]]"},
			rr("serializable"), []string{"lost-update", "G2-item"},
		},
		{"G1c", []string{"ok 0 [[:w :x 1] [:r :y 1]]", "ok 1 [[:w :y 1] [:r :x 1]]"}, rr("serializable"), []string{"G1c"}},
		{"G-single from a read of the initial state", []string{"ok 0 [[:w :x 1] [:w :y 1]]", "ok 1 [[:r :x nil] [:r :y 1]]"}, rr("serializable"), []string{"G-single-item"}},
		{
			// Each edge is both ww (by writes-follow-reads) and wr; Elle's
			// rw-register explains a step by wr before ww (its scc-sort-bug
			// case), so the cycle is named G1c, as Elle names it.
			"write cycle with writes-follow-reads",
			[]string{"ok 0 [[:w :x 1] [:r :y 1] [:w :y 2]]", "ok 1 [[:w :y 1] [:r :x 1] [:w :x 2]]"},
			wfr, []string{"G1c"},
		},
		{
			// A pure ww cycle stays G0: with sequential keys, process 0's
			// later read of x = 2 orders its x = 1 before process 1's x = 2,
			// and process 1's read of y = 2 orders its y = 1 before y = 2.
			"G0 with sequential keys",
			[]string{"ok 0 [[:w :x 1] [:w :y 2]]", "ok 1 [[:w :x 2] [:w :y 1]]", "ok 0 [[:r :x 2]]", "ok 1 [[:r :y 2]]"},
			Options{Workload: RWRegister, ConsistencyModels: []string{"read-uncommitted"}, SequentialKeys: true}, []string{"G0"},
		},
		{
			// The version order is unusable, so only the wr edges remain.
			"cyclic versions",
			[]string{"ok 0 [[:r :x 1] [:w :x 2]]", "ok 1 [[:r :x 2] [:w :x 1]]"},
			wfr, []string{"cyclic-versions", "G1c"},
		},
		{
			"G-single-realtime: a stale read",
			[]string{"ok 0 [[:w :x 1]]", "ok 1 [[:r :x nil]]"},
			rr("strict-serializable"), []string{"G-single-item-realtime"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := check(t, txns(t, tc.hist...), tc.o)
			want := slices.Sorted(slices.Values(tc.types))
			if got := types(r); !slices.Equal(got, want) {
				t.Fatalf("found %v, want %v\n%s", got, want, r.Explanation)
			}
			if r.Valid != Invalid {
				t.Fatalf("valid = %s\n%s", r.Valid, r.Explanation)
			}
		})
	}
}

func TestRegisterValid(t *testing.T) {
	cases := []struct {
		name string
		hist []string
		wfr  bool
	}{
		{"serial", []string{"ok 0 [[:r :x nil] [:w :x 1]]", "ok 1 [[:r :x 1] [:w :x 2] [:r :x 2]]", "ok 0 [[:r :x 2]]"}, true},
		{"an indeterminate write read later", []string{"info 0 [[:w :x 1]]", "ok 1 [[:r :x 1]]"}, false},
		{"an indeterminate write never read", []string{"info 0 [[:w :x 1]]", "ok 1 [[:r :x nil] [:w :y 1]]", "ok 2 [[:r :y 1]]"}, false},
		{"a failed write nobody read", []string{"fail 0 [[:w :x 1]]", "ok 1 [[:r :x nil] [:w :x 2]]", "ok 2 [[:r :x 2]]"}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := rr()
			o.WritesFollowReads = tc.wfr
			r := check(t, txns(t, tc.hist...), o)
			if r.Valid != Valid || len(r.Counts) != 0 {
				t.Fatalf("%s: %v\n%s", r.Valid, types(r), r.Explanation)
			}
		})
	}
}

// TestRegisterVersionSources: each source of version order Elle offers
// (initial state, transaction order, writes-follow-reads, sequential and
// linearizable keys) orders what it should, and a source that would make an
// order cyclic is reported and left out.
func TestRegisterVersionSources(t *testing.T) {
	ser := rr("serializable")
	with := func(o Options, f func(*Options)) Options { f(&o); return o }
	cases := []struct {
		name  string
		hist  []string
		o     Options
		valid string
		types []string
	}{
		// T2 wrote x = 3 after T1 read x = nil only if T1 committed first;
		// the given order says T2 (op 3) committed before T1 (op 1).
		{"no order, no cycle", []string{"ok 0 [[:r :x nil] [:w :y 2]]", "ok 1 [[:w :x 3] [:w :y 4]]"}, ser, Valid, nil},
		{"transaction order", []string{"ok 0 [[:r :x nil] [:w :y 2]]", "ok 1 [[:w :x 3] [:w :y 4]]"},
			with(ser, func(o *Options) { o.TransactionOrder = map[int64]int{1: 2, 3: 1} }), Invalid, []string{"G-single-item"}},
		// Process 0 wrote x = 1 and then read x = 2: 1 < 2 by sequential
		// keys; process 1 read x = 2 and then x = 1: 2 < 1. Cyclic, so the
		// source is dropped and reported.
		{"sequential keys cyclic", []string{"ok 0 [[:w :x 1]]", "ok 0 [[:r :x 2]]", "ok 1 [[:w :x 2]]", "ok 1 [[:r :x 2]]", "ok 1 [[:r :x 1]]"},
			with(rr("read-uncommitted"), func(o *Options) { o.SequentialKeys = true }), Invalid, []string{"cyclic-versions"}},
		{"sequential keys off", []string{"ok 0 [[:w :x 1]]", "ok 0 [[:r :x 2]]", "ok 1 [[:w :x 2]]", "ok 1 [[:r :x 2]]", "ok 1 [[:r :x 1]]"},
			rr("read-uncommitted"), Valid, nil},
		// Linearizable keys: T1's write of x = 1 completed before T2 read
		// x = nil began, so nil came after 1, against the initial state.
		{"linearizable keys stale read", []string{"ok 0 [[:w :x 1]]", "ok 1 [[:r :x nil]]"},
			with(rr("read-uncommitted"), func(o *Options) { o.LinearizableKeys = true }), Invalid, []string{"cyclic-versions"}},
		// A known initial state: a read of it is fine, of anything else
		// unwritten is garbage.
		{"initial state read", []string{"ok 0 [[:r :x 0] [:w :x 1]]", "ok 1 [[:r :x 1]]"}, withInit(ser, 0), Valid, nil},
		{"initial state map", []string{"ok 0 [[:r :x 0] [:r :y nil]]", "ok 1 [[:w :x 1]]"},
			withInit(ser, map[string]any{"x": 0}), Valid, nil},
		{"initial state map, other key garbage", []string{"ok 0 [[:r :x 0] [:r :y 0]]", "ok 1 [[:w :x 1]]"},
			withInit(ser, map[string]any{"x": 0}), Invalid, []string{"garbage-read"}},
		{"initial state orders", []string{"ok 0 [[:r :x 0] [:r :y 1]]", "ok 1 [[:w :x 1] [:w :y 1]]"}, withInit(ser, 0), Invalid, []string{"G-single-item"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := check(t, txns(t, tc.hist...), tc.o)
			if r.Valid != tc.valid || !slices.Equal(r.AnomalyTypes, tc.types) {
				t.Fatalf("%s %v, want %s %v\n%s", r.Valid, r.AnomalyTypes, tc.valid, tc.types, r.Explanation)
			}
		})
	}
	o := la()
	o.SequentialKeys = true
	if err := ValidateOptions(o); err == nil || !strings.Contains(err.Error(), "sequential-keys applies to rw-register only") {
		t.Errorf("sequential keys on list-append: %v", err)
	}
}
