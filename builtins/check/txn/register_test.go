package txn

import (
	"slices"
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
		{"G1a aborted read", []string{"fail 0 [[:w :x 1]]", "ok 1 [[:r :x 1]]"}, rr("serializable"), []string{"G1a"}},
		{"G1b intermediate read", []string{"ok 0 [[:w :x 1] [:w :x 2]]", "ok 1 [[:r :x 1]]"}, rr("serializable"), []string{"G1b"}},
		{"internal: a read after the own write", []string{"ok 0 [[:w :x 1] [:r :x 2]]", "ok 1 [[:w :x 2]]"}, rr("serializable"), []string{"internal"}},
		{"internal: a non-repeatable read", []string{"ok 0 [[:w :x 1]]", "ok 1 [[:w :x 2]]", "ok 2 [[:r :x 1] [:r :x 2]]"}, rr("serializable"), []string{"internal"}},
		{"future read", []string{"ok 0 [[:r :x 1] [:w :x 1]]"}, rr("serializable"), []string{"future-read"}},
		{"garbage read", []string{"ok 0 [[:r :x 5]]", "ok 1 [[:w :y 1]]"}, rr("serializable"), []string{"garbage-read"}},
		{
			// Both read the initial state and both wrote: each write
			// anti-depends on the other's read.
			"lost update", []string{"ok 0 [[:r :x nil] [:w :x 1]]", "ok 1 [[:r :x nil] [:w :x 2]]"},
			rr("serializable"), []string{"lost-update", "G2-item"},
		},
		{"G1c", []string{"ok 0 [[:w :x 1] [:r :y 1]]", "ok 1 [[:w :y 1] [:r :x 1]]"}, rr("serializable"), []string{"G1c"}},
		{"G-single from a read of the initial state", []string{"ok 0 [[:w :x 1] [:w :y 1]]", "ok 1 [[:r :x nil] [:r :y 1]]"}, rr("serializable"), []string{"G-single"}},
		{
			"G0 with writes-follow-reads",
			[]string{"ok 0 [[:w :x 1] [:r :y 1] [:w :y 2]]", "ok 1 [[:w :y 1] [:r :x 1] [:w :x 2]]"},
			wfr, []string{"G0"},
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
			rr("strict-serializable"), []string{"G-single-realtime"},
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
