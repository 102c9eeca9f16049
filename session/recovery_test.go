package session

import (
	"cmp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/history"
	"github.com/faultline/faultline/nemesis"
	"github.com/faultline/faultline/verdict"
)

// synthHistory builds a client history of three nodes, one client each,
// each invoking an op every 10 ms (or as soon as its last one completed)
// for 10 s; serve says how each op ends (its type and latency) from the node
// and the invocation time. A fail is an error, not a refusal by the data. A
// final heal ends the load.
func synthHistory(serve func(node string, at time.Duration) (history.Type, time.Duration)) []history.Op {
	var ops []history.Op
	nodes := []string{"n1", "n2", "n3"}
	type pending struct {
		op  history.Op
		end int64
	}
	var all []pending
	for p, n := range nodes {
		for at := time.Duration(p); at < 10*time.Second; {
			typ, lat := serve(n, at)
			inv := history.Op{Process: p, Type: history.Invoke, F: "read", Node: n, Time: int64(at)}
			done := inv
			done.Type, done.Time = typ, inv.Time+int64(lat)
			if typ == history.Fail {
				done.Error = "HTTP 503: not leader"
			}
			all = append(all, pending{inv, inv.Time}, pending{done, done.Time})
			at += max(10*time.Millisecond, lat)
		}
	}
	// History order is time order.
	slices.SortStableFunc(all, func(a, b pending) int { return cmp.Compare(a.end, b.end) })
	for _, p := range all {
		ops = append(ops, p.op)
	}
	return append(ops, history.Op{Process: history.NemesisProcess, Type: history.Invoke, F: "heal", Time: int64(10 * time.Second)})
}

func TestRecoveryOf(t *testing.T) {
	const ms = time.Millisecond
	// One fault from 2 s to 6 s: the baseline is 0–2 s, the settling 6–8 s,
	// the quiescent after-window 8–10 s.
	windows := []nemesis.Window{{Fault: "kill", Start: int64(2 * time.Second), End: int64(6 * time.Second)}}
	healthy := func(string, time.Duration) (history.Type, time.Duration) { return history.OK, 2 * ms }
	cases := []struct {
		name    string
		serve   func(node string, at time.Duration) (history.Type, time.Duration)
		windows []nemesis.Window
		want    verdict.Status
		reason  string
	}{
		{"healthy", healthy, windows, verdict.Pass, "all 3 nodes answering; after heal 100% of ops answered"},
		{"errors while settling only", func(n string, at time.Duration) (history.Type, time.Duration) {
			if at > 6*time.Second && at < 7500*ms {
				return history.Info, 5 * ms
			}
			return history.OK, 2 * ms
		}, windows, verdict.Pass, "all 3 nodes answering"},
		{"a node serving nothing after heal", func(n string, at time.Duration) (history.Type, time.Duration) {
			if n == "n2" && at > 2*time.Second {
				return history.Fail, ms
			}
			return history.OK, 2 * ms
		}, windows, verdict.Failed, "2 of 3 nodes answering ok after heal"},
		{"errors after heal", func(n string, at time.Duration) (history.Type, time.Duration) {
			if at > 6*time.Second && int(at/(10*ms))%2 == 0 {
				return history.Fail, ms
			}
			return history.OK, 2 * ms
		}, windows, verdict.Failed, "of ops answered < 80% of pre-fault 100%"},
		{"slow after heal", func(n string, at time.Duration) (history.Type, time.Duration) {
			if at > 6*time.Second {
				return history.OK, 60 * ms
			}
			return history.OK, 2 * ms
		}, windows, verdict.Failed, "median ok latency 60ms > 5× pre-fault 2ms"},
		{"fault healed only by the final heal", healthy, []nemesis.Window{{Fault: "kill", Start: int64(2 * time.Second), End: -1}}, verdict.CannotJudge, "not measured"},
		{"fault too early for a baseline", healthy, []nemesis.Window{{Fault: "kill", Start: int64(100 * ms), End: int64(6 * time.Second)}}, verdict.CannotJudge, "not measured"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec := recoveryOf(synthHistory(c.serve), c.windows, 3)
			e := verdict.Evidence{Scenario: "S1", Attempted: true, Recovery: rec,
				Faults: []verdict.Fault{{Name: "kill", Healed: verdict.Yes("healed")}}}
			var got verdict.Status
			var why string
			for _, a := range verdict.Audit(e) {
				if a.ID == "RF8" {
					got, why = a.Status, a.Evidence
				}
			}
			if got != c.want || !strings.Contains(why, c.reason) {
				t.Errorf("RF8 %s (%s), want %s containing %q; measured %+v", got, why, c.want, c.reason, rec)
			}
		})
	}
}

// TestRecoveryWindows: the stretches RF8 compared are recorded, so a plot
// can draw them: the load before the first fault, and the quiescent second
// half of what follows the last heal.
func TestRecoveryWindows(t *testing.T) {
	windows := []nemesis.Window{{Fault: "kill", Start: int64(2 * time.Second), End: int64(6 * time.Second)}}
	ops := synthHistory(func(string, time.Duration) (history.Type, time.Duration) { return history.OK, 2 * time.Millisecond })
	rec := recoveryOf(ops, windows, 3)
	if !rec.Measured {
		t.Fatalf("not measured: %+v", rec)
	}
	b, a := rec.BeforeWindow, rec.AfterWindow
	if b[0] < 0 || b[0] > int64(100*time.Millisecond) || b[1] != int64(2*time.Second) {
		t.Errorf("before window %v, want [~0, 2s]", b)
	}
	if a[0] < int64(7900*time.Millisecond) || a[0] > int64(8100*time.Millisecond) || a[1] <= a[0] || a[1] > int64(10*time.Second) {
		t.Errorf("after window %v, want [~8s, ~10s]", a)
	}
}

// The quiet tail a run keeps after its nemesis's last step
// (nemesis.RecoveryTail, at least MinRecoveryTail) is always a stretch
// recoveryOf can measure; a heal half a second before the load ends, as a
// schedule left to itself can put it, is not.
func TestRecoveryTailIsMeasurable(t *testing.T) {
	if nemesis.MinRecoveryTail < 2*minRecoveryWindow {
		t.Fatalf("MinRecoveryTail %s < twice minRecoveryWindow %s: the tail's quiescent half is too short to measure", nemesis.MinRecoveryTail, minRecoveryWindow)
	}
	ops := synthHistory(func(string, time.Duration) (history.Type, time.Duration) { return history.OK, 2 * time.Millisecond })
	for _, tc := range []struct {
		healed time.Duration
		want   bool
	}{
		{10*time.Second - nemesis.MinRecoveryTail, true},
		{10*time.Second - 500*time.Millisecond, false},
	} {
		w := []nemesis.Window{{Fault: "kill", Start: int64(2 * time.Second), End: int64(tc.healed)}}
		if got := recoveryOf(ops, w, 3).Measured; got != tc.want {
			t.Errorf("last heal at T+%s of a 10s load: measured %v, want %v", tc.healed, got, tc.want)
		}
	}
}
