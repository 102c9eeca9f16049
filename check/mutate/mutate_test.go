package mutate

import (
	"slices"
	"strings"
	"testing"

	"github.com/faultline/faultline/check"
	"github.com/faultline/faultline/history"
)

// TestMutantsKinds derives mutants from one small valid history per workload
// and checks which kinds come out, that each is a well-formed history of the
// same length differing from the original, and that the input is untouched.
func TestMutantsKinds(t *testing.T) {
	for _, tt := range []struct {
		name     string
		h        func(testing.TB) []history.Op
		kinds    []string
		realtime []string // kinds whose mutants all rely on real-time order; the others have a certain one
	}{
		{"register", registerHistory, []string{StaleRead, PhantomRead}, []string{StaleRead}},
		{"cas-register", func(t testing.TB) []history.Op {
			return edn(t, cat(whole(0, "write", "1", "1"), whole(1, "cas", "[1 2]", "[1 2]"),
				whole(0, "write", "3", "3"), whole(2, "read", "nil", "3"))...)
		}, []string{StaleRead, PhantomRead}, []string{StaleRead}},
		{"kv with keys", func(t testing.TB) []history.Op {
			return edn(t,
				kop(0, "invoke", "put", `"a"`, "1"), kop(0, "ok", "put", `"a"`, "1"),
				kop(1, "invoke", "put", `"a"`, "2"), kop(1, "ok", "put", `"a"`, "2"),
				kop(2, "invoke", "get", `"a"`, "nil"), kop(2, "ok", "get", `"a"`, "2"),
				kop(2, "invoke", "get", `"b"`, "nil"), kop(2, "ok", "get", `"b"`, "nil"))
		}, []string{StaleRead, PhantomRead}, []string{StaleRead}},
		{"kv as jepsen tuples", func(t testing.TB) []history.Op {
			return edn(t, cat(whole(0, "write", "[:k 1]", "[:k 1]"), whole(1, "write", "[:k 2]", "[:k 2]"),
				whole(2, "read", "[:k nil]", "[:k 2]"))...)
		}, []string{StaleRead, PhantomRead}, []string{StaleRead}},
		{"set", func(t testing.TB) []history.Op {
			return edn(t, cat(whole(0, "add", "1", "1"), whole(1, "add", "2", "2"), whole(2, "read", "nil", "[1 2]"))...)
		}, []string{LostWrite, DuplicateEffect, PhantomRead}, nil},
		{"set read as an EDN set: no duplicate", func(t testing.TB) []history.Op {
			return edn(t, cat(whole(0, "add", "1", "1"), whole(2, "read", "nil", "#{1}"))...)
		}, []string{LostWrite, PhantomRead}, nil},
		{"counter", func(t testing.TB) []history.Op {
			return edn(t, cat(whole(0, "add", "1", "1"), whole(1, "add", "5", "5"), whole(2, "read", "nil", "6"))...)
		}, []string{LostWrite, DuplicateEffect}, nil},
		{"list-append", listAppendHistory, []string{LostWrite, SwappedAppends, DuplicateEffect, PhantomRead}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := tt.h(t)
			before := clone(h)
			ms := Mutants(h, 7, 2)
			unchanged(t, before, h)
			var kinds []string
			certain := map[string]bool{}
			for _, m := range ms {
				certain[m.Kind] = certain[m.Kind] || !m.Realtime
				if !slices.Contains(kinds, m.Kind) {
					kinds = append(kinds, m.Kind)
				}
				if !m.Realtime && slices.Contains(tt.realtime, m.Kind) {
					t.Errorf("%s mutant does not say it relies on real-time order: %s", m.Kind, m.Description)
				}
				if len(m.Ops) != len(h) || slices.EqualFunc(m.Ops, h, func(a, b history.Op) bool { return history.Equal(a.Value, b.Value) }) {
					t.Errorf("%s mutant changes nothing or changes the length: %s", m.Kind, m.Description)
				}
				if _, err := history.Pair(m.Ops); err != nil {
					t.Errorf("%s mutant is malformed: %v", m.Kind, err)
				}
				if !strings.Contains(m.Description, "op ") {
					t.Errorf("%s mutant does not cite an op: %s", m.Kind, m.Description)
				}
			}
			for _, k := range kinds {
				if !certain[k] && !slices.Contains(tt.realtime, k) {
					t.Errorf("every %s mutant relies on real-time order", k)
				}
			}
			slices.SortFunc(kinds, func(a, b string) int { return slices.Index(Kinds, a) - slices.Index(Kinds, b) })
			want := slices.Clone(tt.kinds)
			slices.SortFunc(want, func(a, b string) int { return slices.Index(Kinds, a) - slices.Index(Kinds, b) })
			if !slices.Equal(kinds, want) {
				t.Errorf("kinds %q, want %q", kinds, want)
			}
			if again := Mutants(h, 7, 2); !sameMutants(ms, again) {
				t.Errorf("the same seed gave different mutants")
			}
		})
	}
}

func sameMutants(a, b []Mutant) bool {
	return slices.EqualFunc(a, b, func(x, y Mutant) bool { return x.Kind == y.Kind && x.Description == y.Description })
}

// TestStaleReadIsCertain pins the stale-read construction: the value read
// back is the older of two writes that both completed before the read began,
// and a value written twice is never chosen (a second write of it could
// explain the read).
func TestStaleReadIsCertain(t *testing.T) {
	h := edn(t, cat(
		whole(0, "write", "1", "1"),
		whole(1, "write", "2", "2"),
		whole(0, "write", "1", "1"), // 1 is written twice: never a certain stale value
		whole(1, "write", "3", "3"),
		whole(2, "read", "nil", "3"),
	)...)
	var stale []Mutant
	for _, m := range Mutants(h, 1, 10) {
		if m.Kind == StaleRead {
			stale = append(stale, m)
		}
	}
	if len(stale) != 1 {
		t.Fatalf("want one stale read, got %d", len(stale))
	}
	if got := stale[0].Ops[9].Value; !history.Equal(got, int64(2)) {
		t.Errorf("stale read returns %v, want 2: %s", got, stale[0].Description)
	}
}

// TestCounterBounds checks the counter mutants leave the possible range by
// the acknowledged add's delta, taking uncertain adds into account.
func TestCounterBounds(t *testing.T) {
	h := edn(t,
		op(0, "invoke", "add", "3"), op(0, "ok", "add", "3"),
		op(1, "invoke", "add", "10"), // in flight during the read: may or may not count
		op(2, "invoke", "read", "nil"), op(2, "ok", "read", "13"),
		op(1, "info", "add", "10"),
		op(3, "invoke", "add", "-1"), op(3, "fail", "add", "-1"), // failed: never counts
	)
	got := map[string]any{}
	for _, m := range Mutants(h, 1, 1) {
		got[m.Kind] = m.Ops[4].Value
	}
	// Possible range [3, 13]: lost-write reads 3-3, duplicate-effect 13+3.
	if !history.Equal(got[LostWrite], int64(0)) || !history.Equal(got[DuplicateEffect], int64(16)) {
		t.Errorf("got %v, want lost-write 0 and duplicate-effect 16", got)
	}
}

// TestMutantsNoShape says why nothing could be derived.
func TestMutantsNoShape(t *testing.T) {
	for _, tt := range []struct {
		name, why string
		h         []string
	}{
		{"unknown functions", "no op shape", cat(whole(0, "ping", "1", "1"), whole(1, "pong", "nil", "1"))},
		{"register never read", "no ok read", cat(whole(0, "write", "1", "1"))},
		{"unpaired", "cannot be paired", []string{op(0, "ok", "read", "1")}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ms, _, why := derive(edn(t, tt.h...), 1, 3)
			if len(ms) != 0 || !strings.Contains(why, tt.why) {
				t.Errorf("got %d mutants, reason %q; want none and %q", len(ms), why, tt.why)
			}
		})
	}
}

// TestFamiliesFitRegisteredCheckers: the checkers' registered Mutants name
// only families that exist, every family has a checker to judge it, and
// the pairing is the one the audit has always used.
func TestFamiliesFitRegisteredCheckers(t *testing.T) {
	judged := map[string]bool{}
	for _, s := range check.Checkers() {
		for _, m := range s.Mutants {
			if !slices.ContainsFunc(families, func(f family) bool { return f.name == m }) {
				t.Errorf("%s lists mutant family %q, which does not exist", s.Name, m)
			}
			judged[m] = true
		}
	}
	for _, f := range families {
		if !judged[f.name] {
			t.Errorf("no registered checker judges the %s family", f.name)
		}
	}
	want := map[string][]string{
		"linearizable": {"register"}, "set": {"set"}, "set-full": {"set"}, "counter": {"counter"},
		"transactional": {"list-append", "rw-register"}, "unique-ids": {"unique-ids"},
		"queue": {"queue"}, "total-queue": {"queue", "total-queue"}, "no-lost-ack": {"no-lost-ack"},
		"slo": {"slo"}, "fairness": {"fairness"}, "recovery": {"recovery"}, "bank": {"bank"},
		"monotonic-reads": {"monotonic-reads"}, "read-your-writes": {"read-your-writes"},
		"exactly-once": {"exactly-once"}, "replicas": {"replicas"}, "mutual-exclusion": {"mutual-exclusion"},
		"prefix-order": {"prefix-order"}, "replay-equivalence": {"replay-equivalence"}, "boundary": {"boundary"},
		"final-state": nil, "stats": nil, "compose": nil,
	}
	for name, fams := range want {
		var got []string
		for _, f := range fitting(name) {
			got = append(got, f.name)
		}
		if !slices.Equal(got, fams) {
			t.Errorf("fitting(%s) = %v, want %v", name, got, fams)
		}
	}
}
