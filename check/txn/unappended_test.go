package txn

import (
	"context"
	"slices"
	"strings"
	"testing"
)

// TestUnappendedElements: a list-append read holding an element nobody
// appended is a garbage read only when every key is known to start empty
// (HasInit, as in a faultline run). Without it, as in Elle, the element may
// predate the history: it orders the key and gives rw edges, no anomaly of
// its own, and the verdict is what the rest of the history gives (Elle's
// analyses ignore such elements; its whole check gives no verdict).
func TestUnappendedElements(t *testing.T) {
	ser := la("serializable")
	cases := []struct {
		name  string
		hist  []string
		o     Options
		valid string
		types []string // every type found
	}{
		{"prefix from before the history", []string{"ok 0 [[:r :x [5 6]] [:append :x 1]]", "ok 1 [[:r :x [5 6 1]]]"}, ser,
			Valid, nil},
		{"prefix from before the history, known empty", []string{"ok 0 [[:r :x [5 6]] [:append :x 1]]", "ok 1 [[:r :x [5 6 1]]]"}, withInit(ser, nil),
			Invalid, []string{"garbage-read"}},
		{"known empty as an empty list", []string{"ok 0 [[:r :x [5]]]", "ok 1 [[:append :y 1]]"}, withInit(ser, []any{}),
			Invalid, []string{"empty-transaction-graph", "garbage-read"}},
		// A read's wr edge comes from the writer of its last element, as
		// in Elle: here nobody.
		{"element after appended ones", []string{"ok 0 [[:append :x 1]]", "ok 1 [[:r :x [1 9]]]"}, ser,
			Unknown, []string{"empty-transaction-graph"}},
		{"in a read incompatible with the order", []string{"ok 0 [[:append :x 1]]", "ok 1 [[:append :x 2]]", "ok 2 [[:r :x [1 2]]]", "ok 3 [[:r :x [2 7]]]"}, ser,
			Invalid, []string{"incompatible-order"}},
		{"in a read incompatible with the order, known empty", []string{"ok 0 [[:append :x 1]]", "ok 1 [[:append :x 2]]", "ok 2 [[:r :x [1 2]]]", "ok 3 [[:r :x [2 7]]]"}, withInit(ser, nil),
			Invalid, []string{"garbage-read", "incompatible-order"}},
		// T0 read x before T1's append of 1 (rw), T1 read y before T0's (rw).
		{"readers of it anti-depend on the next append", []string{"ok 0 [[:r :x [9]] [:append :y 1]]", "ok 1 [[:r :y nil] [:append :x 1]]", "ok 2 [[:r :x [9 1]]]"}, ser,
			Invalid, []string{"G2-item"}},
		{"an anomaly found besides is invalid", []string{"fail 0 [[:append :x 1]]", "ok 1 [[:r :x [1]] [:r :y [3]]]"}, la("read-committed"),
			Invalid, []string{"G1a", "empty-transaction-graph"}},
		{"allowed anomalies found besides stay valid", []string{"ok 0 [[:append :x 1] [:append :x 2]]", "ok 1 [[:r :x [1]] [:r :y [3]]]"}, la("read-uncommitted"),
			Valid, []string{"G-single-item", "G1b"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := check(t, txns(t, tc.hist...), tc.o)
			if r.Valid != tc.valid || !slices.Equal(types(r), tc.types) {
				t.Fatalf("%s %v, want %s %v\n%s", r.Valid, types(r), tc.valid, tc.types, r.Explanation)
			}
			noted := slices.ContainsFunc(r.Incomplete, func(s string) bool { return strings.Contains(s, "no transaction appended") })
			if noted == tc.o.HasInit {
				t.Fatalf("incomplete %q: the note belongs to an unknown initial state only", r.Incomplete)
			}
		})
	}
}

// TestListAppendInitialState: list-append's one initial state is the empty
// one.
func TestListAppendInitialState(t *testing.T) {
	for _, init := range []any{nil, []any{}} {
		if err := ValidateOptions(withInit(la(), init)); err != nil {
			t.Errorf("init %v: %v", init, err)
		}
	}
	for _, init := range []any{0, []any{1}, map[string]any{"x": []any{}}} {
		_, err := Check(context.Background(), nil, withInit(la(), init))
		if err == nil || !strings.Contains(err.Error(), "can only start empty") {
			t.Errorf("init %v: %v", init, err)
		}
	}
}
