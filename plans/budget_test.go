package plans

import (
	"testing"
	"time"

	"github.com/faultline/faultline/verdict"
)

func TestParseBudget(t *testing.T) {
	ptr := func(n int) *int { return &n }
	cases := []struct {
		value string
		want  Budget
	}{
		{"3 nodes, 2 min, 0 faults, 1 seed, ≥2k ops", Budget{Nodes: 3, Duration: 2 * time.Minute, Faults: ptr(0), Seeds: 1, Ops: 2000}},
		{"5 nodes × 10 min × 4 faults × 3 seeds, ≥20k ops", Budget{Nodes: 5, Duration: 10 * time.Minute, Faults: ptr(4), Seeds: 3, Ops: 20000}},
		{"5-node cluster, 30s, no faults, single seed", Budget{Nodes: 5, Duration: 30 * time.Second, Faults: ptr(0), Seeds: 1}},
		{"1 node, 10m, 20,000 ops", Budget{Nodes: 1, Duration: 10 * time.Minute, Ops: 20000}},
		{"3 nodes, 1.5 hours, 2 partitions + 2 kills, three seeds", Budget{Nodes: 3, Duration: 90 * time.Minute, Faults: ptr(4), Seeds: 3}},
		{"2 topologies (3 and 5 nodes), 1h warm-up + 2h soak", Budget{Nodes: 5, Topologies: 2, Duration: 3 * time.Hour}},
		{"3 days soak, 5 repetitions, 1M ops", Budget{Duration: 72 * time.Hour, Repetitions: 5, Ops: 1000000}},
		{"fault-free, 1 min", Budget{Faults: ptr(0), Duration: time.Minute}},
		{"at 2k ops/s for 1 min", Budget{Duration: time.Minute}},
		{"multi-day soak", Budget{}},
		{"99999999999999999999 minutes", Budget{}},
	}
	for _, c := range cases {
		b := parseBudget(verdict.TierHardening, &Field{Value: c.value})
		c.want.Tier, c.want.Raw = verdict.TierHardening, c.value
		if !sameBudget(*b, c.want) {
			t.Errorf("%q:\n got %+v (faults %v)\nwant %+v (faults %v)", c.value, *b, deref(b.Faults), c.want, deref(c.want.Faults))
		}
	}
}

func sameBudget(a, b Budget) bool {
	if (a.Faults == nil) != (b.Faults == nil) || a.Faults != nil && *a.Faults != *b.Faults {
		return false
	}
	a.Faults, b.Faults = nil, nil
	if (a.NotProvided == nil) != (b.NotProvided == nil) || a.NotProvided != nil && *a.NotProvided != *b.NotProvided {
		return false
	}
	a.NotProvided, b.NotProvided = nil, nil
	return a == b
}

func deref(p *int) any {
	if p == nil {
		return nil
	}
	return *p
}

func TestParseDisclosure(t *testing.T) {
	cases := []struct {
		value, reason, revisit string
		ok                     bool
	}{
		{"not provided — no soak rig yet. Revisit when: nightly soak runner exists.", "no soak rig yet", "nightly soak runner exists", true},
		{"Not provided -- no soak rig. Revisit when -- the rig exists", "no soak rig", "the rig exists", true},
		{"not provided: budget cut; revisit when Q3 planning", "budget cut", "Q3 planning", true},
		{"*not provided* – no lab.", "no lab", "", true},
		{"not provided", "", "", true},
		{"3 nodes, 2 h", "", "", false},
		{"TBD", "", "", false},
	}
	for _, c := range cases {
		d, ok := parseDisclosure(c.value)
		if ok != c.ok || ok && (d.Reason != c.reason || d.RevisitWhen != c.revisit) {
			t.Errorf("%q: got %+v, %v", c.value, d, ok)
		}
	}
}
