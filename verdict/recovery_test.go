package verdict

import (
	"strings"
	"testing"
	"time"
)

// nominal decides RF8's "back to nominal" by what the system did after the
// last heal, so a controller too busy to drive its clients at the earlier
// rate does not turn a healthy recovery into a red flag, while a node left
// out, errors or a slow system still do.
func TestNominal(t *testing.T) {
	const ms = time.Millisecond
	healthy := Recovery{Measured: true, Nodes: 3, NodesUp: 3, Baseline: 110, After: 108,
		AnsweredBefore: 0.99, AnsweredAfter: 1, LatencyBefore: 1700 * time.Microsecond, LatencyAfter: 2 * ms}
	cases := []struct {
		name   string
		edit   func(r *Recovery)
		want   Status
		reason string
	}{
		{"healthy", nil, Pass, "all 3 nodes answering; after heal 100% of ops answered (pre-fault 99%)"},
		{"busy controller: throughput 60% but success ratio and latency normal", func(r *Recovery) { r.After = 66 }, Pass, "66.0 ops/s (pre-fault 110.0 ops/s)"},
		{"busy machine: latency 4 times the pre-fault median", func(r *Recovery) { r.LatencyAfter = 6800 * time.Microsecond }, Pass, "median latency 6.8ms"},
		{"sub-millisecond baseline: scheduler noise within the grace", func(r *Recovery) { r.LatencyBefore, r.LatencyAfter = 300*time.Microsecond, 9*ms }, Pass, ""},
		{"one node serving nothing", func(r *Recovery) { r.NodesUp = 2; r.After = 72 }, Failed, "2 of 3 nodes answering ok after heal"},
		{"errors after heal", func(r *Recovery) { r.AnsweredAfter = 0.6 }, Failed, "after heal 60% of ops answered < 80% of pre-fault 99%"},
		{"a stray timeout: answered share just above the floor", func(r *Recovery) { r.AnsweredAfter = 0.8 }, Pass, ""},
		{"up but slow", func(r *Recovery) { r.LatencyAfter = 40 * ms }, Failed, "median ok latency 40ms > 5× pre-fault 1.7ms + 10ms"},
		{"serving next to nothing", func(r *Recovery) { r.After = 20 }, Failed, "20.0 ops/s < 25% of pre-fault 110.0 ops/s"},
		{"plan floor", func(r *Recovery) { r.Floor = 0.9; r.After = 90 }, Failed, "< 90% of pre-fault"},
		{"not measured", func(r *Recovery) { *r = Recovery{Nodes: 3} }, CannotJudge, "not measured"},
		{"no pre-fault ok answers", func(r *Recovery) { r.AnsweredBefore, r.LatencyBefore = 0, 0 }, CannotJudge, "pre-fault answers"},
		{"no node count", func(r *Recovery) { r.Nodes = 0 }, CannotJudge, "no node count"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := healthy
			if c.edit != nil {
				c.edit(&r)
			}
			got, why := nominal(&r)
			if got != c.want || !strings.Contains(why, c.reason) {
				t.Errorf("nominal(%+v) = %s %q, want %s containing %q", r, got, why, c.want, c.reason)
			}
		})
	}
}
