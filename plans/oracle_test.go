package plans

import (
	"slices"
	"testing"
)

func TestClassifyOracle(t *testing.T) {
	cases := []struct {
		text        string
		checkers    []string
		vague       []string
		placeholder bool
	}{
		// Named checkers.
		{"per-key linearizability (Porcupine)", []string{"linearizable"}, nil, false},
		{"Knossos accepts the history", []string{"linearizable"}, nil, false},
		{"strict serializability via Elle", []string{"strict-serializable", "serializable", "elle"}, nil, false},
		{"Elle finds no G2-item or G1c cycle", []string{"elle"}, nil, false},
		{"list-append checker, snapshot isolation", []string{"snapshot-isolation", "elle"}, nil, false},
		{"no-lost-ack on the final read", []string{"no-lost-ack"}, nil, false},
		{"every acknowledged write is present in the final dump", []string{"no-lost-ack"}, nil, false},
		{"set-full checker", []string{"set"}, nil, false},
		{"counter checker: final value within bounds", []string{"counter"}, nil, false},
		{"bank: total balance conserved", []string{"bank"}, nil, false},
		{"monotonic reads per session", []string{"monotonic-reads"}, nil, false},
		{"read-your-writes for every session", []string{"session-consistency"}, nil, false},
		{"exactly-once per business key", []string{"exactly-once"}, nil, false},
		{"each consumer view is a prefix of producer order", []string{"prefix-order"}, nil, false},
		{"replay equivalence of snapshot B", []string{"replay-equivalence"}, nil, false},
		{"replicas are pairwise identical after quiescence", []string{"replica-reconciliation"}, nil, false},
		{"mutual exclusion of lock holders", []string{"mutual-exclusion"}, nil, false},
		{"final-state invariant on the dump", []string{"final-state-invariant"}, nil, false},
		{"worst_group_p99 / aggregate_p99 <= 1.5", []string{"fairness", "predicate"}, nil, false},
		// SLOs need a number and a unit.
		{"p99 ≤ 20 ms at 2k ops/s", []string{"slo", "predicate"}, nil, false},
		{"PUT p99 latency under 250 ms", []string{"slo"}, nil, false},
		{"throughput at least 1500 ops/s", []string{"slo"}, nil, false},
		{"error rate below 0.1%", []string{"slo"}, nil, false},
		{"≤ 20 ms p99", []string{"slo"}, nil, false},
		{"p99 latency is acceptable", nil, nil, false},
		{"writes resume within 10 s of each kill", []string{"bounded-recovery"}, nil, false},
		{"a new leader is elected within 5s", []string{"bounded-recovery"}, nil, false},
		// Predicates.
		{"lost_acks == 0", []string{"predicate"}, nil, false},
		{"count(dupes) != 0 means FAIL", []string{"predicate"}, nil, false},
		{"charges_per_key <= 1", []string{"predicate"}, nil, false},
		{"leaked = 0", []string{"predicate"}, nil, false},
		{"0 cross-tenant reads over every pair", []string{"boundary", "zero-count"}, nil, false},
		{"tenant B's keys never appear in any response", []string{"boundary"}, nil, false},
		{"negative controls: tenant B is denied", []string{"boundary"}, nil, false},
		{"leaked_rows == 0 in every tenant's export", []string{"boundary", "predicate"}, nil, false},
		{"no duplicate charges per key", []string{"zero-count"}, nil, false},
		{"zero leaked rows", []string{"zero-count"}, nil, false},
		// Vague.
		{"logs look fine", nil, []string{"logs look fine"}, false},
		{"Looks OK to me", nil, []string{"Looks OK"}, false},
		{"no errors observed in the logs", nil, []string{"no errors observed in the logs"}, false},
		{"manually verify the output", nil, []string{"manually verify"}, false},
		{"eyeball the dashboard", nil, []string{"eyeball"}, false},
		{"the system works as expected", nil, []string{"works as expected"}, false},
		{"cluster stays healthy; health checks pass", nil, []string{"cluster stays healthy", "health checks pass"}, false},
		{"no crashes", nil, []string{"no crashes"}, false},
		{"linearizable, and logs look fine", []string{"linearizable"}, []string{"logs look fine"}, false},
		{"the data is correct", nil, nil, false},
		// Placeholders.
		{"", nil, nil, true},
		{"TBD", nil, nil, true},
		{"TODO: pick a checker", nil, nil, true},
		{"{{the property checked and how}}", nil, nil, true},
		{"n/a", nil, nil, true},
		{"…", nil, nil, true},
	}
	for _, c := range cases {
		got := ClassifyOracle(c.text)
		if !slices.Equal(got.Checkers, c.checkers) || !slices.Equal(got.Vague, c.vague) || got.Placeholder != c.placeholder {
			t.Errorf("%q:\n got %+v\nwant checkers %q vague %q placeholder %v", c.text, got, c.checkers, c.vague, c.placeholder)
		}
		if want := len(c.checkers) > 0 && !c.placeholder; got.Checkable() != want {
			t.Errorf("%q: Checkable() = %v", c.text, got.Checkable())
		}
	}
}

func TestOnlyWeak(t *testing.T) {
	cases := map[string]bool{
		"final-state invariant on the dump":           true,
		"final-state invariant plus no-lost-ack":      false,
		"final-state invariant: sum(balances) == 100": false,
		"logs look fine":                              false,
	}
	for text, want := range cases {
		if got := ClassifyOracle(text).OnlyWeak(); got != want {
			t.Errorf("%q: OnlyWeak() = %v", text, got)
		}
	}
}
