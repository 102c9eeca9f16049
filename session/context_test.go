package session

import (
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/history"
)

// TestAnomalyContext: a finding's ops are placed in time with the faults
// open meanwhile, and its hypotheses are credited only when a fault window
// overlapped them.
func TestAnomalyContext(t *testing.T) {
	s := int64(time.Second)
	n := history.NemesisProcess
	h := []history.Op{
		{Index: 0, Time: 0, Process: 0, Type: history.Invoke, F: "read"},
		{Index: 1, Time: 1 * s, Process: 0, Type: history.OK, F: "read", Value: int64(3), Node: "n1"}, // before any fault
		{Index: 2, Time: 2 * s, Process: n, Type: history.Invoke, F: "start-partition"},
		{Index: 3, Time: 3 * s, Process: n, Type: history.Info, F: "start-partition", Extra: map[string]any{"landed": true}},
		{Index: 4, Time: 4 * s, Process: 1, Type: history.Invoke, F: "write", Value: int64(4)},
		{Index: 5, Time: 5 * s, Process: 1, Type: history.Info, F: "write", Value: int64(4), Node: "n2"}, // under the partition
		{Index: 6, Time: 6 * s, Process: n, Type: history.Invoke, F: "stop-partition"},
		{Index: 7, Time: 7 * s, Process: n, Type: history.Info, F: "stop-partition"},
		{Index: 8, Time: 8 * s, Process: n, Type: history.Invoke, F: "kill", Value: map[string]any{"nodes": "primaries"}},
		{Index: 9, Time: 9 * s, Process: n, Type: history.Info, F: "kill", Value: map[string]any{"nodes": []any{"n2"}}, Extra: map[string]any{"landed": true}},
		{Index: 10, Time: 10 * s, Process: 3, Type: history.Invoke, F: "read"},
		{Index: 11, Time: 11 * s, Process: 3, Type: history.OK, F: "read", Value: int64(3), Node: "n1"}, // under the kill
		{Index: 12, Time: 12 * s, Process: n, Type: history.Invoke, F: "start"},
		{Index: 13, Time: 13 * s, Process: n, Type: history.Info, F: "start"},
		{Index: 14, Time: 14 * s, Process: 2, Type: history.Invoke, F: "read"}, // never completes
	}
	for _, tc := range []struct {
		name            string
		ops             []int64
		faulted, placed bool
		want            []string
	}{
		{"before any fault", []int64{1}, false, true, []string{"op 0 (read by process 0 on node n1)", "invoked at 0s", "completed ok at 1s", "no fault was active"}},
		{"under a partition, by invocation index", []int64{4}, true, true, []string{"op 4 (write by process 1 on node n2)", "start-partition", "from 3s to 6s"}},
		{"under a kill, naming its victim", []int64{11}, true, true, []string{"op 10 (read by process 3 on node n1)", "kill on n2 from 9s to 12s"}},
		{"never completed", []int64{14}, false, true, []string{"op 14", "never completed", "no fault was active"}},
		{"no ops named", nil, false, false, nil},
		{"an index not in the history", []int64{99}, false, false, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text, faulted, placed := anomalyContext(h, tc.ops, "")
			if faulted != tc.faulted || placed != tc.placed {
				t.Fatalf("faulted %t placed %t, want %t %t: %s", faulted, placed, tc.faulted, tc.placed, text)
			}
			for _, w := range tc.want {
				if !strings.Contains(text, w) {
					t.Errorf("%q lacks %q", text, w)
				}
			}
		})
	}
	// With a timeline, each op links to its bar there.
	if text, _, _ := anomalyContext(h, []int64{11}, "../artifacts/S1/timeline.html"); !strings.Contains(text, "[op 10](../artifacts/S1/timeline.html#op-10) (read by process 3") {
		t.Errorf("no timeline link: %q", text)
	}
	for _, tc := range []struct {
		faulted, placed bool
		want            string
	}{
		{true, true, "H1"},
		{false, true, "none credited: no fault was active while the anomalous ops ran, so this finding does not speak to H1"},
		{false, false, "H1 (the checker names no op, so the anomaly is not placed in time)"},
	} {
		if got := creditedHypotheses("H1", tc.faulted, tc.placed); got != tc.want {
			t.Errorf("creditedHypotheses(faulted=%t, placed=%t) = %q, want %q", tc.faulted, tc.placed, got, tc.want)
		}
	}
	if got := creditedHypotheses("", true, true); got != "" {
		t.Errorf("no hypotheses: %q", got)
	}
}
