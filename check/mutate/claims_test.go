package mutate

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/check"
	"github.com/faultline/faultline/history"
)

// rec is one EDN op line with free-form extra fields (":key :a, :value 1").
func rec(p, typ, f, fields string) string {
	return "{:process " + p + ", :type :" + typ + ", :f :" + f + ", " + fields + "}"
}

// pair is an invocation of f immediately followed by its completion typ.
func pair(p, f, typ, inv, comp string) []string {
	return []string{rec(p, "invoke", f, inv), rec(p, typ, f, comp)}
}

// keyedHistory writes and reads two keys and ends with a dump of the final
// state: a no-lost-ack workload that also reads, so read mutants would
// apply to it if the audit did not match mutants to claims. Every op takes
// 10 ns (the test histories' clock).
func keyedHistory(t testing.TB) []history.Op {
	return edn(t, cat(
		pair("0", "write", "ok", ":key :a, :value 1", ":key :a, :value 1"),
		pair("1", "write", "ok", ":key :b, :value 2", ":key :b, :value 2"),
		pair("2", "read", "ok", ":key :a, :value nil", ":key :a, :value 1"),
		pair("0", "write", "ok", ":key :a, :value 3", ":key :a, :value 3"),
		pair("1", "read", "ok", ":key :b, :value nil", ":key :b, :value 2"),
		pair("0", "write", "ok", ":key :b, :value 4", ":key :b, :value 4"),
		pair("2", "read", "ok", ":key :a, :value nil", ":key :a, :value 3"),
		pair("1", "read", "ok", ":key :b, :value nil", ":key :b, :value 4"),
		pair("2", "dump", "ok", ":value nil", ":value {:a 3, :b 4}"),
	)...)
}

// recoveryHistory writes, suffers a kill at 30 ns, and writes on: the first
// ok write after the kill completes at 50 ns, and clients keep going until
// 150 ns.
func recoveryHistory(t testing.TB) []history.Op {
	return edn(t, cat(
		whole(0, "write", "1", "1"),
		[]string{"{:process :nemesis, :type :info, :f :kill, :value :n1}", "{:process :nemesis, :type :info, :f :kill, :value :n1}"},
		whole(0, "write", "2", "2"), whole(1, "read", "nil", "2"), whole(0, "write", "3", "3"),
		whole(1, "read", "nil", "3"), whole(0, "write", "4", "4"), whole(1, "read", "nil", "4"),
	)...)
}

// groupedHistory has two tenants (an Extra field), each with ok reads and
// writes of its own key.
func groupedHistory(t testing.TB) []history.Op {
	var lines []string
	for i, tenant := range []string{"x", "y", "x", "y", "x", "y", "x", "y"} {
		f, inv, res := "write", "1", "1"
		if i%4 >= 2 {
			f, inv, res = "read", "nil", "1"
		}
		p := "0"
		if tenant == "y" {
			p = "1"
		}
		lines = append(lines, pair(p, f, "ok", ":key :"+tenant+", :tenant :"+tenant+", :value "+inv, ":key :"+tenant+", :tenant :"+tenant+", :value "+res)...)
	}
	return edn(t, lines...)
}

// growingHistory writes growing values and reads them back in the writer's
// session and another: the session oracles' workload.
func growingHistory(t testing.TB) []history.Op {
	return edn(t, cat(
		whole(0, "write", "1", "1"), whole(0, "read", "nil", "1"), whole(1, "read", "nil", "1"),
		whole(0, "write", "2", "2"), whole(1, "read", "nil", "2"), whole(0, "read", "nil", "2"), whole(1, "read", "nil", "2"),
	)...)
}

// orders places two orders under business keys 1 and 2, the second retried
// after an info.
func orders() []string {
	return cat(pair("0", "place", "ok", ":order_id 1, :value 10", ":order_id 1, :value 10"),
		pair("1", "place", "info", ":order_id 2, :value 20", ":order_id 2, :value 20"),
		pair("1", "place", "ok", ":order_id 2, :value 20", ":order_id 2, :value 20"))
}

// lockHistory: process 0 holds the lock while process 1's acquire fails,
// then releases it, and process 1 takes it.
func lockHistory(t testing.TB) []history.Op {
	return edn(t, cat(whole(0, "acquire", "nil", "nil"),
		[]string{op(1, "invoke", "acquire", "nil"), op(1, "fail", "acquire", "nil")},
		whole(0, "release", "nil", "nil"), whole(1, "acquire", "nil", "nil"), whole(1, "release", "nil", "nil"))...)
}

func ratio(x float64) *float64 { return &x }

// TestAuditFitsOracle audits correct oracles on histories that also read:
// each oracle gets the mutants of its own claim, judges them alone, and
// catches them, so a scenario with a sound oracle can pass. Oracles no
// mutant fits on a history are named with the reason.
func TestAuditFitsOracle(t *testing.T) {
	bankHist := func(t testing.TB) []history.Op {
		return edn(t, cat(
			pair("0", "read", "ok", ":value nil", ":value {:a 5, :b 5}"),
			pair("1", "transfer", "ok", ":value {:from :a, :to :b, :amount 2}", ":value {:from :a, :to :b, :amount 2}"),
			pair("0", "read", "ok", ":value nil", ":value {:a 3, :b 7}"),
			pair("0", "read", "ok", ":value nil", ":value {:a 3, :b 7}"),
		)...)
	}
	queueHist := func(t testing.TB) []history.Op {
		return edn(t, cat(whole(0, "enqueue", "1", "1"), whole(1, "enqueue", "2", "2"), whole(0, "enqueue", "3", "3"),
			whole(2, "dequeue", "nil", "1"), whole(2, "drain", "nil", "[2 3]"))...)
	}
	for _, tt := range []struct {
		name  string
		h     func(testing.TB) []history.Op
		c     func(testing.TB) check.Checker
		kinds map[string][]string // per oracle: the kinds judged against it, each mutant caught
		unfit []string            // the Unfit lines, each must contain its text
	}{
		{"no-lost-ack over a history that reads", keyedHistory,
			func(testing.TB) check.Checker { return check.NoLostAck(check.NoLostAckOptions{}) },
			map[string][]string{"no-lost-ack": {LostAck}}, nil},
		{"no-lost-ack over keyless adds and a set read", func(t testing.TB) []history.Op {
			return edn(t, cat(whole(0, "add", "1", "1"), whole(1, "add", "2", "2"), whole(2, "read", "nil", "[1 2]"),
				whole(2, "dump", "nil", "[1 2]"))...)
		}, func(testing.TB) check.Checker { return check.NoLostAck(check.NoLostAckOptions{}) },
			map[string][]string{"no-lost-ack": {LostAck}}, nil},
		{"slo p99 over the whole run", keyedHistory,
			func(t testing.TB) check.Checker {
				return must(t)(check.SLO(check.SLOOptions{P99: 50 * time.Nanosecond}))
			},
			map[string][]string{"slo": {SlowOps}}, nil},
		{"slo p50 per window", keyedHistory, func(t testing.TB) check.Checker {
			return must(t)(check.SLO(check.SLOOptions{P50: 15 * time.Nanosecond, Window: 60 * time.Nanosecond, MinOps: 2}))
		}, map[string][]string{"slo": {SlowOps}}, nil},
		{"slo error rate", keyedHistory,
			func(t testing.TB) check.Checker { return must(t)(check.SLO(check.SLOOptions{ErrorRate: ratio(0.1)})) },
			map[string][]string{"slo": {FailedOps}}, nil},
		{"fairness min throughput by key", groupedHistory, func(t testing.TB) check.Checker {
			return must(t)(check.Fairness(check.FairnessOptions{MinThroughput: 1}))
		}, map[string][]string{"fairness": {StarvedGroup}}, nil},
		{"fairness p99 ratio by tenant", groupedHistory, func(t testing.TB) check.Checker {
			return must(t)(check.Fairness(check.FairnessOptions{Group: "tenant", MaxP99Ratio: 3}))
		}, map[string][]string{"fairness": {StarvedGroup}}, nil},
		{"fairness error rate", groupedHistory, func(t testing.TB) check.Checker {
			return must(t)(check.Fairness(check.FairnessOptions{Group: "tenant", MaxErrorRate: ratio(0.5)}))
		}, map[string][]string{"fairness": {StarvedGroup}}, nil},
		{"recovery after a kill", recoveryHistory, func(t testing.TB) check.Checker {
			return must(t)(check.Recovery(check.RecoveryOptions{Within: 50 * time.Nanosecond, F: []string{"write"}}))
		}, map[string][]string{"recovery": {SlowRecovery}}, nil},
		{"bank with a declared total", bankHist,
			func(testing.TB) check.Checker { return check.Bank(check.BankOptions{Total: 10}) },
			map[string][]string{"bank": {BrokenConservation}}, nil},
		{"bank taking the total from the first read", bankHist,
			func(testing.TB) check.Checker { return check.Bank(check.BankOptions{}) },
			map[string][]string{"bank": {BrokenConservation}}, nil},
		{"unique ids", func(t testing.TB) []history.Op {
			return edn(t, cat(whole(0, "generate", "nil", "1"), whole(1, "generate", "nil", "2"), whole(0, "generate", "nil", "3"))...)
		}, func(testing.TB) check.Checker { return check.UniqueIDs() }, map[string][]string{"unique-ids": {DuplicateEffect}}, nil},
		{"queue", queueHist, func(testing.TB) check.Checker { return check.Queue() }, map[string][]string{"queue": {PhantomRead}}, nil},
		{"total queue", queueHist, func(testing.TB) check.Checker { return check.TotalQueue() },
			map[string][]string{"total-queue": {PhantomRead, LostWrite}}, nil},
		// Each child judges only its own claim's mutants: slowed ops are
		// not held against no-lost-ack, a lost ack not against the SLO.
		{"compose of no-lost-ack, slo and stats", keyedHistory, func(t testing.TB) check.Checker {
			return check.Compose(check.NoLostAck(check.NoLostAckOptions{}),
				check.Compose(must(t)(check.SLO(check.SLOOptions{P99: 50 * time.Nanosecond})), check.Stats()))
		}, map[string][]string{"no-lost-ack": {LostAck}, "slo": {SlowOps}}, nil},
		{"linearizable over writes only", func(t testing.TB) []history.Op {
			return edn(t, cat(whole(0, "write", "1", "1"), whole(1, "write", "2", "2"))...)
		}, func(t testing.TB) check.Checker { return linearizable(t, "register") }, nil,
			[]string{"no mutant fits linearizable on this history: no ok read of a written key"}},
		{"linearizable over reads of keys never written", func(t testing.TB) []history.Op {
			return edn(t, cat(
				pair("0", "put", "ok", `:key "a", :value 1`, `:key "a", :value 1`),
				pair("1", "get", "ok", `:key "b", :value nil`, `:key "b", :value nil`),
				pair("1", "get", "ok", `:key "c", :value nil`, `:key "c", :value nil`))...)
		}, func(t testing.TB) check.Checker { return linearizable(t, "kv") }, nil,
			[]string{"no mutant fits linearizable on this history: no ok read of a written key"}},
		// The only acknowledged write was overwritten by one that ended
		// info: no-lost-ack passes without judging it, and nothing can be
		// removed from the dump that would make it fail.
		{"compose: slo fits, no-lost-ack has nothing to lose", func(t testing.TB) []history.Op {
			return edn(t, cat(
				pair("0", "write", "ok", ":key :k, :value 1", ":key :k, :value 1"),
				pair("1", "write", "info", ":key :k, :value 2", ":key :k, :value 2"),
				pair("2", "read", "ok", ":key :k, :value nil", ":key :k, :value 2"),
				pair("2", "dump", "ok", ":value nil", ":value {:k 2}"))...)
		}, func(t testing.TB) check.Checker {
			return check.Compose(must(t)(check.SLO(check.SLOOptions{P99: 50 * time.Nanosecond})),
				check.NoLostAck(check.NoLostAckOptions{}), check.Stats())
		}, map[string][]string{"slo": {SlowOps}},
			[]string{"no mutant fits no-lost-ack on this history: no acknowledged write is in the final dump as itself"}},
		{"an oracle with no mutant kind beside one with", registerHistory, func(t testing.TB) check.Checker {
			return check.Compose(linearizable(t, "register"), lenient{"oracle-nobody-mutates"})
		}, map[string][]string{"linearizable": {StaleRead, PhantomRead}},
			[]string{"no mutant fits oracle-nobody-mutates on this history: the audit has no mutant kind for oracle-nobody-mutates's claim"}},
		{"monotonic reads of growing values", growingHistory,
			func(testing.TB) check.Checker { return check.MonotonicReads(check.SessionOptions{}) },
			map[string][]string{"monotonic-reads": {StaleRead}}, nil},
		{"monotonic reads of a version field", func(t testing.TB) []history.Op {
			return edn(t, cat(
				pair("0", "write", "ok", ":value :a", ":value :a"),
				pair("1", "read", "ok", ":value nil", ":value :a, :version 1"),
				pair("0", "write", "ok", ":value :b", ":value :b"),
				pair("1", "read", "ok", ":value nil", ":value :b, :version 2"))...)
		}, func(testing.TB) check.Checker { return check.MonotonicReads(check.SessionOptions{Version: "version"}) },
			map[string][]string{"monotonic-reads": {StaleRead}}, nil},
		{"exactly once over a list dump", func(t testing.TB) []history.Op {
			return edn(t, cat(orders(), pair("2", "dump", "ok", ":value nil", ":value [{:order_id 1} {:order_id 2}]"))...)
		}, func(t testing.TB) check.Checker {
			return must(t)(check.ExactlyOnce(check.ExactlyOnceOptions{Key: "order_id"}))
		},
			map[string][]string{"exactly-once": {DuplicateEffect, LostAck}}, nil},
		{"exactly once over a map dump of bare keys", func(t testing.TB) []history.Op {
			return edn(t, cat(orders(), pair("2", "dump", "ok", ":value nil", ":value {:a 1, :b 2}"))...)
		}, func(t testing.TB) check.Checker {
			return must(t)(check.ExactlyOnce(check.ExactlyOnceOptions{Key: "order_id"}))
		},
			map[string][]string{"exactly-once": {DuplicateEffect, LostAck}}, nil},
		{"replicas over map dumps", func(t testing.TB) []history.Op {
			return edn(t, cat(whole(0, "write", "1", "1"),
				pair("1", "dump", "ok", ":node \"n1\", :value nil", ":node \"n1\", :value {:x 1}"),
				pair("2", "dump", "ok", ":node \"n2\", :value nil", ":node \"n2\", :value {:x 1}"))...)
		}, func(testing.TB) check.Checker { return check.Replicas(check.ReplicasOptions{}) },
			map[string][]string{"replicas": {PhantomRead}}, nil},
		{"mutual exclusion", lockHistory,
			func(t testing.TB) check.Checker { return must(t)(check.MutualExclusion(check.MutexOptions{})) },
			map[string][]string{"mutual-exclusion": {DuplicateEffect}}, nil},
		{"mutual exclusion with a lease", lockHistory,
			func(t testing.TB) check.Checker {
				return must(t)(check.MutualExclusion(check.MutexOptions{Lease: time.Second}))
			},
			map[string][]string{"mutual-exclusion": {DuplicateEffect}}, nil},
		{"prefix order", func(t testing.TB) []history.Op {
			return edn(t, cat(whole(0, "append", "1", "1"), whole(1, "append", "2", "2"),
				whole(2, "read", "nil", "[1 2]"), whole(2, "read", "nil", "[1 2]"))...)
		}, func(t testing.TB) check.Checker { return must(t)(check.PrefixOrder(check.PrefixOrderOptions{})) },
			map[string][]string{"prefix-order": {PhantomRead, DuplicateEffect}}, nil},
		{"replay equivalence", func(t testing.TB) []history.Op {
			return edn(t, cat(whole(0, "write", "1", "1"), whole(1, "dump", "nil", "{:x 1}"), whole(1, "replay", "nil", "{:x 1}"))...)
		}, func(t testing.TB) check.Checker { return must(t)(check.ReplayEquivalence(check.ReplayOptions{})) },
			map[string][]string{"replay-equivalence": {PhantomRead}}, nil},
		{"boundary", func(t testing.TB) []history.Op {
			return edn(t, cat(
				pair("0", "write", "ok", `:key "acme/1", :value "a"`, `:key "acme/1", :value "a"`),
				pair("1", "write", "ok", `:key "bolt/1", :value "b"`, `:key "bolt/1", :value "b"`),
				pair("0", "read", "ok", `:key "acme/1", :value nil`, `:key "acme/1", :value "a"`),
				pair("1", "read", "ok", `:key "bolt/1", :value nil`, `:key "bolt/1", :value ["b"]`),
				pair("1", "read", "fail", `:key "acme/1", :value nil`, `:key "acme/1", :value nil`))...)
		}, func(t testing.TB) check.Checker { return must(t)(check.Boundary(check.BoundaryOptions{})) },
			map[string][]string{"boundary": {CrossTenantLeak}}, nil},
		{"transactional rw-register", func(t testing.TB) []history.Op {
			return edn(t, cat(whole(0, "txn", "[[:w :x 1] [:w :y 2]]", "[[:w :x 1] [:w :y 2]]"),
				whole(1, "txn", "[[:r :x nil] [:r :y nil]]", "[[:r :x 1] [:r :y 2]]"),
				whole(2, "txn", "[[:r :z nil]]", "[[:r :z nil]]"))...)
		}, func(t testing.TB) check.Checker {
			// The initial state is given (nil): only then is a value nobody
			// wrote a garbage read rather than an unrecorded earlier value.
			return must(t)(check.Transactional(check.TransactionalOptions{Workload: "rw-register", ConsistencyModels: []string{"serializable"}, HasInit: true}))
		}, map[string][]string{"transactional": {PhantomRead}}, nil},
		{"read your writes", growingHistory,
			func(testing.TB) check.Checker { return check.ReadYourWrites(check.SessionOptions{}) },
			map[string][]string{"read-your-writes": {StaleRead}}, nil},
		// The one comparison starts from the initial state, which no read
		// can go back from.
		{"monotonic reads never past the initial state", func(t testing.TB) []history.Op {
			return edn(t, cat(whole(1, "read", "nil", "nil"), whole(0, "write", "1", "1"), whole(1, "read", "nil", "1"))...)
		}, func(testing.TB) check.Checker { return check.MonotonicReads(check.SessionOptions{}) }, nil,
			[]string{"no mutant fits monotonic-reads on this history: no session reads a key again after a read of a real version ended"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := tt.h(t)
			before := clone(h)
			rep := Audit(context.Background(), tt.c(t), h, Options{Seed: 3})
			unchanged(t, before, h)
			if rep.Baseline != check.Valid {
				t.Fatalf("baseline %s: %s", rep.Baseline, rep)
			}
			if len(rep.Escaped) > 0 || len(rep.Undecided) > 0 {
				t.Errorf("a sound oracle let mutants through: %s; undecided %+v", rep, rep.Undecided)
			}
			got := map[string][]string{}
			for _, o := range rep.Oracles {
				if o.Applied > 0 {
					got[o.Checker] = o.Kinds
				}
				if o.Caught != o.Applied || (o.Applied == 0) != (o.Unfit != "") {
					t.Errorf("oracle %+v: want every applied mutant caught and a reason exactly when none applied", o)
				}
			}
			if len(got) != len(tt.kinds) {
				t.Errorf("oracles with mutants %v, want %v", got, tt.kinds)
			}
			for name, kinds := range tt.kinds {
				if !slices.Equal(got[name], kinds) {
					t.Errorf("%s judged kinds %q, want %q", name, got[name], kinds)
				}
			}
			if len(rep.Unfit) != len(tt.unfit) {
				t.Fatalf("unfit %q, want %d lines like %q", rep.Unfit, len(tt.unfit), tt.unfit)
			}
			for i, want := range tt.unfit {
				if !strings.Contains(rep.Unfit[i], want) {
					t.Errorf("unfit[%d] = %q, want it to contain %q", i, rep.Unfit[i], want)
				}
			}
			if len(tt.kinds) == 0 && (rep.Checked != 0 || !strings.Contains(rep.Skipped, tt.unfit[0])) {
				t.Errorf("no mutant applies, yet checked %d, skipped %q", rep.Checked, rep.Skipped)
			}
			if len(tt.kinds) > 0 && (rep.Checked == 0 || rep.Caught != rep.Checked) {
				t.Errorf("report %s", rep)
			}
			for _, m := range rep.Escaped {
				if _, ok := tt.kinds[m.Oracle]; !ok {
					t.Errorf("mutant judged by %q, not one of the oracles: %+v", m.Oracle, m)
				}
			}
		})
	}
}

// TestAuditJudgesEachOracleAlone: a mutant is held only against the oracle
// whose claim it breaks. Beside a sound no-lost-ack, a linearizable that
// accepts anything lets its read mutants escape (the compose as a whole
// would not: no-lost-ack alone does not see reads), and no-lost-ack still
// catches its own.
func TestAuditJudgesEachOracleAlone(t *testing.T) {
	c := check.Compose(lenient{"linearizable"}, check.NoLostAck(check.NoLostAckOptions{}))
	rep := Audit(context.Background(), c, keyedHistory(t), Options{Seed: 5})
	if len(rep.Oracles) != 2 {
		t.Fatalf("oracles %+v", rep.Oracles)
	}
	lin, nla := rep.Oracles[0], rep.Oracles[1]
	if lin.Checker != "linearizable" || lin.Applied == 0 || lin.Escaped != lin.Applied {
		t.Errorf("lenient linearizable: %+v, want every read mutant escaped", lin)
	}
	if nla.Checker != "no-lost-ack" || nla.Applied == 0 || nla.Caught != nla.Applied || !slices.Equal(nla.Kinds, []string{LostAck}) {
		t.Errorf("no-lost-ack: %+v, want only lost-ack mutants, all caught", nla)
	}
	for _, m := range rep.Escaped {
		if m.Oracle != "linearizable" || (m.Kind != StaleRead && m.Kind != PhantomRead) {
			t.Errorf("escaped %s judged by %s", m.Kind, m.Oracle)
		}
	}
	if s := rep.String(); !strings.Contains(s, "linearizable 0/") || !strings.Contains(s, "no-lost-ack ") {
		t.Errorf("String() does not break the count down by oracle: %s", s)
	}
}

// TestAuditRealtimePerOracle: mutants wrong only under real-time order are
// judged by an oracle that promises it, and left out for one that does not.
func TestAuditRealtimePerOracle(t *testing.T) {
	for _, tt := range []struct {
		models   []string
		realtime bool
	}{
		{nil, true}, // strict-serializable by default
		{[]string{"strict-serializable"}, true},
		{[]string{"serializable"}, false},
	} {
		t.Run(strings.Join(tt.models, ","), func(t *testing.T) {
			rep := Audit(context.Background(), transactional(t, tt.models...), listAppendHistory(t), Options{MaxPerKind: 4})
			if len(rep.Escaped) > 0 || rep.Checked == 0 {
				t.Fatalf("report %s", rep)
			}
			left := slices.ContainsFunc(rep.Notes, func(n string) bool { return strings.Contains(n, "real-time order") })
			if left == tt.realtime {
				t.Errorf("realtime mutants left out: %v, want %v (notes %q)", left, !tt.realtime, rep.Notes)
			}
		})
	}
}
