package verdict

import (
	goldenfile "github.com/faultline/faultline/internal/golden"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// landedFault is a fault with every landing signal seen and its heal verified.
func landedFault(name string, p Partition) Fault {
	return Fault{
		Name:           name,
		Partition:      p,
		Injector:       Yes("iptables rule installed"),
		Victim:         Yes("DROP counter 0→412"),
		Client:         Yes("37 client timeouts in the window"),
		ClientDeclared: true,
		Held:           Yes("counter still rising before heal"),
		Healed:         Yes("rule gone, counter frozen"),
	}
}

// hardening is a serious scenario whose every fact supports PASS-hardening:
// two landed faults (one asymmetric partition), a complete well-formed
// history, the hardening tier met with three seeds, clean logs and recovery.
func hardening() Evidence {
	return Evidence{
		Scenario:  "S1",
		Claims:    Claims{Categories: []ClaimCategory{Durability}},
		Attempted: true,
		Faults: []Fault{
			landedFault("isolate leader", Asymmetric),
			landedFault("majority partition", Symmetric),
		},
		Oracle: Oracle{
			Name: "linearizable(cas-register)", Outcome: Valid, Summary: "linearizable",
			Consumed: 20_000, Dropped: 1_000, Keys: 8,
			MatchesModel: Yes("cas-register × safety → linearizability"),
			Kinds:        []OracleKind{KindHistory, KindNoLostAck},
		},
		History: HistoryQuality{
			Complete:       Yes("journal closed at phase end"),
			Timestamps:     Yes("every answered op timed"),
			Monotonic:      Yes("CLOCK_MONOTONIC, non-decreasing"),
			TimeoutMarkers: Yes("info ops carry no value"),
			FaultEpoch:     Yes("ops in windows carry fault_epoch"),
			NodeSeen:       Yes("node on every op"),
		},
		Surface: Yes("no errors outside fault windows"),
		Budgets: map[Tier]TierRequirement{
			TierSmoke:     {Nodes: 3, Duration: 2 * time.Minute, Seeds: 1, Ops: 2_000},
			TierHardening: {Nodes: 5, Duration: 10 * time.Minute, Faults: 2, Seeds: 3, Ops: 20_000},
		},
		Run:         Run{Nodes: 5, Topologies: 1, Duration: 12 * time.Minute, Ops: 21_000, OK: 19_500, Seeds: 3, Repetitions: 3},
		Load:        Load{Target: 150, Lowest: 180, Windows: 72},
		Logs:        LogScan{Scanned: true, Files: 5, Lines: 90_000, Alarms: "the default alarms"},
		Recovery:    Recovery{Measured: true, Baseline: 200, After: 195, NodesUp: 5, Nodes: 5, AnsweredBefore: 0.99, AnsweredAfter: 0.98, LatencyBefore: 2 * time.Millisecond, LatencyAfter: 2100 * time.Microsecond},
		Retries:     Retries{Known: true, Evidence: "built-in http client never retries"},
		Sensitivity: Sensitivity{Ran: true, Checked: 6, Caught: 6, Kinds: []string{"stale-read", "phantom-read"}},
	}
}

// smoke is the same scenario run at smoke: no fault, one seed, smoke tier met.
func smoke() Evidence {
	e := hardening()
	e.Faults = nil
	e.Run = Run{Nodes: 3, Topologies: 1, Duration: 3 * time.Minute, Ops: 2_500, OK: 2_300, Seeds: 1, Repetitions: 1}
	e.Oracle.Consumed, e.Oracle.Dropped = 2_400, 100
	e.Recovery = Recovery{}
	return e
}

// nonSerious is a performance-SLO scenario whose Oracle field is a metric check.
func nonSerious() Evidence {
	e := hardening()
	e.Claims = Claims{Categories: []ClaimCategory{Performance}}
	e.Oracle = Oracle{Name: "p99 ≤ 20ms", Outcome: Valid, Consumed: 21_000, Kinds: []OracleKind{KindMetricSLO}}
	e.History = HistoryQuality{Monotonic: Yes("monotonic")}
	return e
}

// golden compares got with testdata/name, rewriting it under -update. A
// missing golden file fails the test.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", name), got)
}

// reasonsContain fails t unless some reason contains want.
func reasonsContain(t *testing.T, d Decision, want string) {
	t.Helper()
	if want == "" {
		return
	}
	for _, r := range d.Reasons {
		if strings.Contains(r, want) {
			return
		}
	}
	t.Errorf("no reason contains %q; reasons:\n  %s", want, strings.Join(d.Reasons, "\n  "))
}

// item returns the audit item with id, failing t if it is absent.
func item(t *testing.T, items []AuditItem, id string) AuditItem {
	t.Helper()
	for _, it := range items {
		if it.ID == id {
			return it
		}
	}
	t.Fatalf("no audit item %s", id)
	return AuditItem{}
}
