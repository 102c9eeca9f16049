package txn

import (
	"slices"
	"strings"
	"testing"
)

// appendCases are small list-append histories, one per anomaly class, with
// every anomaly type the checker must find in them (no more, no fewer).
var appendCases = []struct {
	name  string
	hist  []string
	o     Options
	types []string
}{
	{
		name: "G0 write cycle",
		hist: []string{
			"ok 0 [[:append :x 1] [:append :y 2]]",
			"ok 1 [[:append :x 2] [:append :y 1]]",
			"ok 2 [[:r :x [1 2]] [:r :y [1 2]]]",
		},
		o:     la("serializable"),
		types: []string{"G0"},
	},
	{
		name: "G1a aborted read",
		hist: []string{
			"fail 0 [[:append :x 1]]",
			"ok 1 [[:r :x [1]]]",
		},
		o:     la("serializable"),
		types: []string{"G1a", "empty-transaction-graph"},
	},
	{
		// Reading another transaction's intermediate state also makes a
		// cycle: the reader saw the writer's first append but not its second.
		name: "G1b intermediate read",
		hist: []string{
			"ok 0 [[:append :x 1] [:append :x 2]]",
			"ok 1 [[:r :x [1]]]",
		},
		o:     la("serializable"),
		types: []string{"G1b", "G-single-item"},
	},
	{
		// Elle's README example: T3's read orders T1's append of x before
		// T2's, while T1 read T2's append of y.
		name: "G1c cyclic information flow",
		hist: []string{
			"ok 0 [[:append :x 1] [:r :y [1]]]",
			"ok 1 [[:append :x 2] [:append :y 1]]",
			"ok 2 [[:r :x [1 2]]]",
		},
		o:     la("serializable"),
		types: []string{"G1c"},
	},
	{
		name: "G-single read skew",
		hist: []string{
			"ok 0 [[:append :x 1] [:append :y 1]]",
			"ok 1 [[:r :x []] [:r :y [1]]]",
			"ok 2 [[:r :x [1]]]",
		},
		o:     la("serializable"),
		types: []string{"G-single-item"},
	},
	{
		name: "G-nonadjacent",
		hist: []string{
			"ok 0 [[:r :a []] [:r :d [1]]]",
			"ok 1 [[:append :a 1] [:append :b 1]]",
			"ok 2 [[:r :b [1]] [:r :c []]]",
			"ok 3 [[:append :c 1] [:append :d 1]]",
			"ok 4 [[:r :a [1]] [:r :c [1]]]",
		},
		o:     la("serializable"),
		types: []string{"G-nonadjacent-item"},
	},
	{
		name: "G2-item write skew",
		hist: []string{
			"ok 0 [[:r :x []] [:r :y []] [:append :x 1]]",
			"ok 1 [[:r :x []] [:r :y []] [:append :y 1]]",
			"ok 2 [[:r :x [1]] [:r :y [1]]]",
		},
		o:     la("serializable"),
		types: []string{"G2-item"},
	},
	{
		name: "internal inconsistency",
		hist: []string{
			"ok 0 [[:append :x 1]]",
			"ok 1 [[:r :x [1]] [:append :x 2] [:r :x [1]]]",
		},
		o:     la("serializable"),
		types: []string{"internal"},
	},
	{
		name: "internal: own append missing without an earlier read",
		hist: []string{
			"ok 0 [[:append :x 1]]",
			"ok 1 [[:append :x 2] [:r :x [1]]]",
		},
		o:     la("serializable"),
		types: []string{"internal"},
	},
	{
		name:  "future read",
		hist:  []string{"ok 0 [[:r :x [1]] [:append :x 1]]"},
		o:     la("serializable"),
		types: []string{"empty-transaction-graph", "future-read"},
	},
	{
		name:  "garbage read",
		hist:  []string{"ok 0 [[:r :x [9]]]", "ok 1 [[:append :y 1]]"},
		o:     withInit(la("serializable"), nil), // every key starts empty
		types: []string{"empty-transaction-graph", "garbage-read"},
	},
	{
		name:  "duplicate elements",
		hist:  []string{"ok 0 [[:append :x 1]]", "ok 1 [[:r :x [1 1]]]"},
		o:     la("serializable"),
		types: []string{"duplicate-elements"},
	},
	{
		name: "incompatible order",
		hist: []string{
			"ok 0 [[:append :x 1]]",
			"ok 1 [[:append :x 2]]",
			"ok 2 [[:r :x [1 2]]]",
			"ok 3 [[:r :x [2 1]]]",
		},
		o:     la("serializable"),
		types: []string{"incompatible-order"},
	},
	{
		name: "dirty update",
		hist: []string{
			"fail 0 [[:append :x 1]]",
			"ok 1 [[:append :x 2]]",
			"ok 2 [[:r :x [1 2]]]",
		},
		o:     la("serializable"),
		types: []string{"G1a", "dirty-update"},
	},
	{
		// Two transactions read [1] and both appended: the second append
		// came after the first, which the second's read missed.
		name: "lost update",
		hist: []string{
			"ok 0 [[:append :x 1]]",
			"ok 1 [[:r :x [1]] [:append :x 2]]",
			"ok 2 [[:r :x [1]] [:append :x 3]]",
			"ok 3 [[:r :x [1 2 3]]]",
		},
		o:     la("serializable"),
		types: []string{"G-single-item", "lost-update"},
	},
	{
		// As Elle (txn.clj lost-update-cases), a read of nil and a read
		// of [] are different values: no lost update, though the cycle
		// stands.
		name: "lost update: nil and [] read apart",
		hist: []string{
			"ok 1 [[:r :x nil] [:append :x 2]]",
			"ok 2 [[:r :x []] [:append :x 3]]",
			"ok 3 [[:r :x [2 3]]]",
		},
		o:     la("serializable"),
		types: []string{"G-single-item"},
	},
	{
		name: "lost update: both read nil",
		hist: []string{
			"ok 1 [[:r :x nil] [:append :x 2]]",
			"ok 2 [[:r :x nil] [:append :x 3]]",
			"ok 3 [[:r :x [2 3]]]",
		},
		o:     la("serializable"),
		types: []string{"G-single-item", "lost-update"},
	},
	{
		// Elle takes a transaction's first read of a key, even after its
		// own append: T1 and T2 both read [1] and then appended.
		name: "lost update: the first read follows an append",
		hist: []string{
			"ok 1 [[:append :x 1] [:r :x [1]] [:append :x 2]]",
			"ok 2 [[:r :x [1]] [:append :x 3]]",
			"ok 3 [[:r :x [1 2 3]]]",
		},
		o:     la("serializable"),
		types: []string{"G-single-item", "G1b", "lost-update"},
	},
	{
		name: "G0-process",
		hist: []string{
			"ok 0 [[:append :x 1]]",
			"ok 0 [[:append :x 2]]",
			"ok 1 [[:r :x [2 1]]]",
		},
		o:     la("strong-session-read-uncommitted"),
		types: []string{"G0-process"},
	},
	{
		name: "G-single-process: a process misses its own write",
		hist: []string{
			"ok 0 [[:append :x 1]]",
			"ok 0 [[:r :x []]]",
			"ok 1 [[:r :x [1]]]",
		},
		o:     la("strong-session-serializable"),
		types: []string{"G-single-item-process"},
	},
	{
		name: "G1c-process: a process reads its own future write",
		hist: []string{
			"ok 0 [[:r :x [1]]]",
			"ok 0 [[:append :x 1]]",
		},
		o:     la("strong-session-read-committed"),
		types: []string{"G1c-process"},
	},
	{
		// As G2-item-realtime below, with process order instead.
		name: "G2-item-process",
		hist: []string{
			"invoke 1 [[:r :b nil] [:append :a 1]]",
			"ok 2 [[:append :b 1]]",
			"ok 2 [[:r :a []]]",
			"ok 1 [[:r :b []] [:append :a 1]]",
			"ok 3 [[:r :a [1]] [:r :b [1]]]",
		},
		o:     la("strong-session-serializable"),
		types: []string{"G2-item-process"},
	},
	{
		name: "G0-realtime",
		hist: []string{
			"ok 0 [[:append :x 1]]",
			"ok 1 [[:append :x 2]]",
			"ok 2 [[:r :x [2 1]]]",
		},
		o:     la("strict-serializable"),
		types: []string{"G0-realtime"},
	},
	{
		name: "G1c-realtime: a read of a write that had not begun",
		hist: []string{
			"ok 1 [[:r :x [1]]]",
			"ok 0 [[:append :x 1]]",
		},
		o:     la("strict-serializable"),
		types: []string{"G1c-realtime"},
	},
	{
		name: "G-single-realtime: a stale read",
		hist: []string{
			"ok 0 [[:append :x 1]]",
			"ok 1 [[:r :x []]]",
			"ok 2 [[:r :x [1]]]",
		},
		o:     la("strict-serializable"),
		types: []string{"G-single-item-realtime"},
	},
	{
		// T2 overlaps both T1 and T3; only T3 -> T1 is realtime.
		name: "G2-item-realtime",
		hist: []string{
			"invoke 1 [[:r :b nil] [:append :a 1]]",
			"ok 2 [[:append :b 1]]",
			"ok 0 [[:r :a []]]",
			"ok 1 [[:r :b []] [:append :a 1]]",
			"ok 3 [[:r :a [1]] [:r :b [1]]]",
		},
		o:     la("strict-serializable"),
		types: []string{"G2-item-realtime"},
	},
	{
		name: "G-nonadjacent-process",
		hist: []string{
			"ok 0 [[:append :c 1]]",
			"ok 0 [[:r :a []]]",
			"ok 1 [[:append :a 1] [:append :b 1]]",
			"ok 2 [[:r :b [1]] [:r :c []]]",
			"ok 3 [[:r :a [1]] [:r :c [1]]]",
		},
		o:     Options{Workload: ListAppend, ConsistencyModels: []string{"strong-session-snapshot-isolation"}},
		types: []string{"G-nonadjacent-item-process"},
	},
}

// appendCase returns the history of the appendCases entry with that name.
func appendCase(t testing.TB, name string) []string {
	t.Helper()
	for _, c := range appendCases {
		if c.name == name {
			return c.hist
		}
	}
	t.Fatalf("no append case %q", name)
	return nil
}

func TestAppendAnomalies(t *testing.T) {
	for _, tc := range appendCases {
		t.Run(tc.name, func(t *testing.T) {
			r := check(t, txns(t, tc.hist...), tc.o)
			tc.types = slices.Sorted(slices.Values(tc.types))
			if got := types(r); !slices.Equal(got, tc.types) {
				t.Fatalf("found %v, want %v\n%s", got, tc.types, r.Explanation)
			}
			if r.Valid != Invalid {
				t.Fatalf("valid = %s, want invalid\n%s", r.Valid, r.Explanation)
			}
			if !slices.Equal(r.AnomalyTypes, tc.types) {
				t.Fatalf("AnomalyTypes = %v, want %v", r.AnomalyTypes, tc.types)
			}
			for _, typ := range tc.types {
				for _, a := range r.Anomalies[typ] {
					if a.Type != typ || len(a.Ops) == 0 || a.Explanation == "" {
						t.Errorf("incomplete anomaly %+v", a)
					}
					if isCycle := slices.Contains(cycleTypes, typ); isCycle != (a.DOT != "") {
						t.Errorf("%s: DOT present = %v", typ, a.DOT != "")
					}
				}
			}
		})
	}
}

// TestAppendValid holds histories that must stay valid under
// strict-serializable.
func TestAppendValid(t *testing.T) {
	cases := []struct {
		name string
		hist []string
	}{
		{"serial", []string{
			"ok 0 [[:append :x 1] [:r :y []]]",
			"ok 1 [[:r :x [1]] [:append :y 1]]",
			"ok 0 [[:r :x [1]] [:r :y [1]] [:append :x 2]]",
			"ok 1 [[:r :x [1 2]]]",
		}},
		{"concurrent but consistent", []string{
			"invoke 0 [[:append :x 1]]",
			"invoke 1 [[:r :x nil] [:append :y 1]]",
			"ok 1 [[:r :x []] [:append :y 1]]",
			"ok 0 [[:append :x 1]]",
			"ok 2 [[:r :x [1]] [:r :y [1]]]",
		}},
		{"an indeterminate append that took effect", []string{
			"info 0 [[:append :x 1]]",
			"ok 1 [[:r :x [1]]]",
			"ok 2 [[:append :x 2] [:r :x [1 2]]]",
		}},
		{"an indeterminate append that did not take effect", []string{
			"info 0 [[:append :x 1]]",
			"ok 1 [[:r :x []]]",
			"ok 2 [[:append :x 2]]",
			"ok 3 [[:r :x [2]]]",
		}},
		{"an invocation that never completed", []string{
			"invoke 0 [[:append :x 1]]",
			"ok 1 [[:append :x 2]]",
			"ok 2 [[:r :x [2 1]]]",
		}},
		{"a failed append nobody read", []string{
			"fail 0 [[:append :x 1]]",
			"ok 1 [[:append :x 2]]",
			"ok 2 [[:r :x [2]]]",
		}},
		{"own appends read back", []string{
			"ok 0 [[:append :x 1] [:r :x [1]] [:append :x 2] [:r :x [1 2]]]",
			"ok 1 [[:r :x [1 2]]]",
		}},
		{"keywords, strings and integers as keys and values", []string{
			`ok 0 [[:append "k" :a] [:append 7 "s"]]`,
			`ok 1 [[:r :k [:a]] [:r 7 ["s"]]]`,
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := check(t, txns(t, tc.hist...), la())
			if r.Valid != Valid || len(r.Counts) != 0 {
				t.Fatalf("%s: %v\n%s", r.Valid, types(r), r.Explanation)
			}
		})
	}
}

// TestSimulatedValid checks many histories from the simulated
// strict-serializable database: concurrency, failures and indeterminate
// transactions must never produce an anomaly.
func TestSimulatedValid(t *testing.T) {
	for seed := uint64(1); seed <= 40; seed++ {
		for _, reg := range []bool{false, true} {
			s := sim{Txns: 300, Procs: 1 + int(seed%6), Keys: 3, MaxWrites: 8, MaxLen: 4, FailRate: 0.1, InfoRate: 0.1, Register: reg, Seed: seed}
			o := la("strict-serializable")
			if reg {
				o = rr("strict-serializable")
				o.WritesFollowReads = true
			}
			r := check(t, s.run(), o)
			if r.Valid != Valid || len(r.Counts) != 0 {
				t.Fatalf("seed %d register=%v: %s\n%s", seed, reg, r.Valid, r.Explanation)
			}
		}
	}
}

// TestSimulatedStale checks that a database whose reads lag behind is caught
// under strict-serializable.
func TestSimulatedStale(t *testing.T) {
	r := check(t, sim{Txns: 2000, Procs: 5, Keys: 3, MaxWrites: 8, MaxLen: 4, StaleLag: 5, Seed: 7}.run(), la())
	if r.Valid != Invalid {
		t.Fatalf("stale reads passed: %s", r.Summary)
	}
	if !strings.Contains(r.Summary, "not ") {
		t.Errorf("summary names no model ruled out: %s", r.Summary)
	}
}
