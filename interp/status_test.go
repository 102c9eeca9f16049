package interp

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/gen"
	"github.com/faultline/faultline/history"
)

// The load's phase comes from its nemesis ops: the fault in effect and its
// victims as the fault's completion returned them, a fault being injected,
// recovering once healed.
func TestLoadPhase(t *testing.T) {
	nem := func(typ history.Type, f string, v any) history.Op {
		return history.Op{Process: history.NemesisProcess, Type: typ, F: f, Value: v}
	}
	grudge := map[string][]string{"n1": {"n3"}, "n2": {"n3"}, "n3": {"n1", "n2"}}
	kill := map[string]any{"nodes": []string{"n1"}, "pattern": "demo-node"}
	cases := []struct {
		name string
		ops  []history.Op
		want string
	}{
		{"no fault yet", nil, "load"},
		{"partition invoked", []history.Op{nem(history.Invoke, "start-partition", "one")}, "injecting start-partition"},
		{"partition in effect", []history.Op{nem(history.Invoke, "start-partition", "one"), nem(history.OK, "start-partition", grudge)},
			"fault start-partition on n3 | n1,n2"},
		{"partition healed", []history.Op{nem(history.Invoke, "start-partition", "one"), nem(history.OK, "start-partition", grudge),
			nem(history.Invoke, "stop-partition", nil), nem(history.OK, "stop-partition", grudge)}, "recovering"},
		{"heal invoked is not an injection", []history.Op{nem(history.Invoke, "kill", nil), nem(history.OK, "kill", kill),
			nem(history.Invoke, "start", nil)}, "recovering"},
		{"kill in effect after a healed partition", []history.Op{nem(history.Invoke, "start-partition", "one"), nem(history.OK, "start-partition", grudge),
			nem(history.Invoke, "stop-partition", nil), nem(history.OK, "stop-partition", grudge),
			nem(history.Invoke, "kill", map[string]any{"nodes": "primaries"}), nem(history.OK, "kill", kill)}, "fault kill on n1"},
		{"a fault that failed to inject", []history.Op{nem(history.Invoke, "pause", nil), nem(history.Fail, "pause", nil)}, "load"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l := &loadStatus{stats: &gen.Stats{}, victims: map[string]any{}}
			for _, op := range c.ops {
				l.note(op)
			}
			if got := l.phase(); got != c.want {
				t.Errorf("phase = %q, want %q", got, c.want)
			}
		})
	}
}

func TestVictimsOf(t *testing.T) {
	cases := []struct {
		name string
		v    any
		want string
	}{
		{"nodes list", map[string]any{"nodes": []any{"n1", "n2"}}, "n1,n2"},
		{"plain list", []string{"n2"}, "n2"},
		{"majority and minority", map[string][]string{"n1": {"n4", "n5"}, "n2": {"n4", "n5"}, "n3": {"n4", "n5"}, "n4": {"n1", "n2", "n3"}, "n5": {"n1", "n2", "n3"}}, "n4,n5 | n1,n2,n3"},
		{"nothing cut", map[string][]string{"n1": {}, "n2": {}}, ""},
		{"a spec, not victims", "one", ""},
		{"nil", nil, ""},
	}
	for _, c := range cases {
		if got := victimsOf(c.v); got != c.want {
			t.Errorf("%s: victimsOf(%v) = %q, want %q", c.name, c.v, got, c.want)
		}
	}
}

// The line names the unit, the phase, the load's clock against its budget
// and the counts; after the load it keeps the counts and the caller's phase.
func TestStatusLine(t *testing.T) {
	clock := time.Date(2026, 12, 1, 20, 0, 0, 0, time.UTC)
	s := &Status{w: &bytes.Buffer{}, now: func() time.Time { return clock }, begun: clock}
	s.Unit("S1")
	if got := s.Line(); got != "S1  setup  0s" {
		t.Errorf("before the load: %q", got)
	}
	stats := &gen.Stats{}
	live := startStatus(s, stats, 12*time.Second, false)
	clock = clock.Add(4 * time.Second)
	stats.Invoked.Store(600)
	stats.OK.Store(400)
	stats.Fail.Store(150)
	stats.Info.Store(3)
	live.note(history.Op{Process: history.NemesisProcess, Type: history.Invoke, F: "kill"})
	live.note(history.Op{Process: history.NemesisProcess, Type: history.OK, F: "kill", Value: map[string]any{"nodes": []string{"n2"}}})
	live.note(history.Op{Process: 3, Type: history.OK, F: "read"}) // client ops do not change the phase
	want := "S1  fault kill on n2  4s/12s, 8s left  150 ops/s  ok 400  fail 150  info 3"
	if got := s.Line(); got != want {
		t.Errorf("during the load:\n got %q\nwant %q", got, want)
	}
	clock = clock.Add(8 * time.Second)
	live.stop()
	clock = clock.Add(2 * time.Second)
	if got := s.Line(); !strings.HasPrefix(got, "S1  checking  14s (load 12s)  50 ops/s") {
		t.Errorf("after the load: %q", got)
	}
	s.Phase("sensitivity audit")
	if got := s.Line(); !strings.HasPrefix(got, "S1  sensitivity audit  ") {
		t.Errorf("audit: %q", got)
	}
}
