package nemesis

import (
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/history"
)

// Missed names every scheduled fault that never took effect, and every
// failed injection.
func TestMissed(t *testing.T) {
	sec := int64(time.Second)
	inv := func(f string, at int64) history.Op {
		return history.Op{Process: history.NemesisProcess, Type: history.Invoke, F: f, Time: at}
	}
	done := func(typ history.Type, f string, at int64, err any) history.Op {
		return history.Op{Process: history.NemesisProcess, Type: typ, F: f, Time: at, Error: err}
	}
	part := func(at time.Duration) Planned {
		return Planned{Fault: "start-partition", At: at, Hold: 5 * time.Second}
	}
	client := history.Op{Process: 0, Type: history.OK, F: "read", Time: 29 * sec}
	tests := []struct {
		name        string
		plan        []Planned
		ops         []history.Op
		interrupted bool
		want        []string // "fault: reason fragment"
	}{
		{"every fault fired", []Planned{part(5 * time.Second)},
			[]history.Op{inv("start-partition", 5*sec), done(history.OK, "start-partition", 5*sec+1, nil)}, false, nil},
		{"injection failed: a node outside the cluster", []Planned{part(5 * time.Second)},
			[]history.Op{inv("start-partition", 5*sec), done(history.Fail, "start-partition", 5*sec+1, "partition: unknown node n9")}, false,
			[]string{"start-partition @T+5s for 5s: injection failed: partition: unknown node n9"}},
		{"scheduled after the workload", []Planned{part(40 * time.Second)}, []history.Op{client}, false,
			[]string{"start-partition @T+40s for 5s: scheduled at T+40s, at or after the end of the workload (30s)"}},
		{"second cycle never issued", []Planned{part(5 * time.Second), part(25 * time.Second)},
			[]history.Op{inv("start-partition", 5*sec), done(history.OK, "start-partition", 5*sec+1, nil), client}, false,
			[]string{"start-partition @T+25s for 5s: never injected: the workload ended"}},
		{"interrupted before it was due", []Planned{part(25 * time.Second)}, []history.Op{client}, true,
			[]string{"start-partition @T+25s for 5s: never injected: the run was interrupted"}},
		{"injection never completed", []Planned{part(5 * time.Second)}, []history.Op{inv("start-partition", 5*sec), client}, true,
			[]string{"start-partition @T+5s for 5s: injection issued at T+5s never completed"}},
		{"unplanned injection failed (custom generator)", nil,
			[]history.Op{inv("kill", 2*sec), done(history.Fail, "kill", 2*sec+1, "kill: no process matches")}, false,
			[]string{"kill @T+2s: injection failed: kill: no process matches"}},
		{"a failed stop is no missed fault", []Planned{part(5 * time.Second)},
			[]history.Op{inv("start-partition", 5*sec), done(history.OK, "start-partition", 5*sec+1, nil),
				inv("stop-partition", 10*sec), done(history.Fail, "stop-partition", 10*sec+1, "boom")}, false, nil},
	}
	for _, tt := range tests {
		got := Missed(tt.plan, tt.ops, 30*time.Second, tt.interrupted)
		if len(got) != len(tt.want) {
			t.Errorf("%s: %+v, want %q", tt.name, got, tt.want)
			continue
		}
		for i, m := range got {
			if s := m.Fault + ": " + m.Reason; !strings.HasPrefix(s, tt.want[i]) {
				t.Errorf("%s: %q, want %q", tt.name, s, tt.want[i])
			}
		}
	}
}
