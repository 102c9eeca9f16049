package nemesis

import (
	"slices"
	"testing"
	"time"
)

// recorder is what a package asked for: ops and their times.
type recorder struct {
	fs []string
	ts []time.Duration
}

// scheduleOf runs a package for d simulated seconds and its final, and
// returns the ops the nemesis was asked for.
func scheduleOf(t *testing.T, p *Package, d time.Duration) *recorder {
	t.Helper()
	ops, err := p.Preview(d)
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	for _, op := range ops {
		rec.fs, rec.ts = append(rec.fs, op.F), append(rec.ts, op.At)
	}
	return rec
}

// timing is a Timing for the tests: start, hold and interval in seconds
// (start < 0: one interval in).
func timing(start, hold, interval float64, repeat bool) Timing {
	sec := func(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
	tm := Timing{Start: sec(start), Hold: sec(hold), Interval: sec(interval), Repeat: repeat}
	if start < 0 {
		tm.Start = FirstAfterInterval
	}
	return tm
}

func mustCycle(t *testing.T, name string, v any, tm Timing) *Package {
	t.Helper()
	p, err := Cycle(name, v, tm)
	if err != nil {
		t.Fatalf("Cycle(%s): %v", name, err)
	}
	return p
}

// TestCycleSchedules: a cycle built in Go steps at fixed run times (first
// fault one interval in), each fault with its own end op, then the final
// heal. What runs is what Planned lists: no inject due at or after the
// workload's end.
func TestCycleSchedules(t *testing.T) {
	proc := map[string]any{"nodes": "one", "pattern": "etcd", "restart": []any{"etcd"}}
	tests := []struct {
		name string
		v    any
		tm   Timing
		want []string
	}{
		{"partition", "one", timing(-1, 5, 5, true),
			[]string{"start-partition", "stop-partition", "start-partition", "stop-partition", "heal"}},
		{"loss", map[string]any{"nodes": "all", "probability": 0.5}, timing(-1, 10, 10, true),
			[]string{"start-loss", "stop-loss", "heal"}},
		{"kill", proc, timing(-1, 10, 10, true), []string{"kill", "start", "heal"}},
		{"pause", proc, timing(-1, 10, 20, true), []string{"pause", "resume", "heal"}},
		{"bandwidth", map[string]any{"nodes": "all", "rate": "10kbit"}, timing(-1, 10, 10, true),
			[]string{"start-bandwidth", "stop-bandwidth", "heal"}},
		{"delay", map[string]any{"nodes": "one", "delay": "100ms", "jitter": "10ms"}, timing(-1, 10, 10, true),
			[]string{"start-delay", "stop-delay", "heal"}},
		{"fill_disk", map[string]any{"nodes": "one", "path": "/opt/fill", "size": "10M"}, timing(-1, 10, 10, true),
			[]string{"fill-disk", "free-disk", "heal"}},
	}
	for _, tt := range tests {
		if got := scheduleOf(t, mustCycle(t, tt.name, tt.v, tt.tm), 25*time.Second).fs; !slices.Equal(got, tt.want) {
			t.Errorf("%s: ops %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestCycleRefusesBadValues: a fault's Validate and the timing checks
// refuse what the fault could not be injected with.
func TestCycleRefusesBadValues(t *testing.T) {
	ok := DefaultTiming()
	tests := []struct {
		name string
		v    any
		tm   Timing
	}{
		{"partition", map[string]any{"n1": "n2"}, ok},
		{"partition", 3, ok},
		{"partition", "one", timing(-1, 0, 10, true)},
		{"partition", "one", Timing{Start: -2 * time.Second, Hold: 10 * time.Second, Interval: 10 * time.Second}},
		{"partition", "one", Timing{Start: 0, Hold: 10 * time.Second, Interval: -time.Second}},
		{"loss", map[string]any{"probability": 1.5}, ok},
		{"loss", map[string]any{"probability": 0.0}, ok},
		{"kill", map[string]any{"pattern": "", "restart": []any{"x"}}, ok},
		{"kill", map[string]any{"pattern": "x", "restart": []any{}}, ok},
		{"pause", map[string]any{"pattern": ""}, ok},
		{"bandwidth", map[string]any{"rate": ""}, ok},
		{"delay", map[string]any{"delay": "fast"}, ok},
		{"delay", map[string]any{"delay": "50ms", "jitter": "5"}, ok},
		{"fill_disk", map[string]any{"path": "opt/fill", "size": "1M"}, ok},
		{"fill_disk", map[string]any{"path": "/opt/fill", "size": "lots"}, ok},
		{"truncate_file", map[string]any{"path": ""}, ok},
		{"bitflip_file", map[string]any{"path": "/f", "bit": int64(8)}, ok},
		{"no_such_fault", nil, ok},
	}
	for _, tt := range tests {
		if _, err := Cycle(tt.name, tt.v, tt.tm); err == nil {
			t.Errorf("Cycle(%s, %v, %+v): want an error", tt.name, tt.v, tt.tm)
		}
	}
	if _, err := Compose(); err == nil {
		t.Errorf("Compose(): want an error")
	}
}

// TestPlannedFromGo: the schedule a package built in Go lists, as
// TestPlanned in star/nemesis checks it for packages built by scripts.
func TestPlannedFromGo(t *testing.T) {
	kill := map[string]any{"nodes": "one", "pattern": "x", "restart": []any{"x"}}
	tests := []struct {
		p    *Package
		d    time.Duration
		want []string
	}{
		{mustCycle(t, "partition", "one", timing(4, 7, 60, true)), 28 * time.Second,
			[]string{"start-partition @T+4s for 7s"}},
		{mustCycle(t, "partition", "majority", timing(5, 5, 5, true)), 30 * time.Second,
			[]string{"start-partition @T+5s for 5s", "start-partition @T+15s for 5s", "start-partition @T+25s for 5s"}},
		{mustCycle(t, "partition", "majority", timing(40, 5, 10, true)), 30 * time.Second, []string{"start-partition @T+40s for 5s"}},
		{mustCycle(t, "kill", kill, timing(2, 3, 10, false)), 30 * time.Second, []string{"kill @T+2s for 3s"}},
		{mustCycle(t, "truncate_file", map[string]any{"nodes": "one", "path": "/f", "size": int64(0)}, timing(1, 10, 10, true)), 25 * time.Second,
			[]string{"truncate-file @T+1s", "truncate-file @T+11s", "truncate-file @T+21s"}},
	}
	for i, tt := range tests {
		var got []string
		for _, pl := range tt.p.Planned(tt.d) {
			got = append(got, pl.Name())
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("case %d (%s) over %s: %q, want %q", i, tt.p.Name(), tt.d, got, tt.want)
		}
	}
	both, err := Compose(mustCycle(t, "pause", map[string]any{"nodes": "one", "pattern": "x"}, timing(9, 1, 10, false)),
		mustCycle(t, "loss", map[string]any{"nodes": "one", "probability": 0.5}, timing(3, 2, 10, false)))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, pl := range both.Planned(30 * time.Second) {
		got = append(got, pl.Name())
	}
	if want := []string{"start-loss @T+3s for 2s", "pause @T+9s for 1s"}; !slices.Equal(got, want) {
		t.Errorf("compose: %q, want %q", got, want)
	}
	if Custom(Heal()).Planned(time.Minute) != nil {
		t.Errorf("a custom generator has no schedule to list")
	}
}

// A corruption fault built in Go happens at its start and, without repeat,
// never again; it has no heal of its own.
func TestCorruptScheduleFromGo(t *testing.T) {
	p := mustCycle(t, "bitflip_file", map[string]any{"nodes": "one", "path": "/opt/db/wal", "offset": int64(0), "bit": int64(0)}, timing(3, 10, 10, false))
	rec := scheduleOf(t, p, 20*time.Second)
	if len(rec.fs) != 2 || rec.fs[0] != "bitflip-file" || rec.fs[1] != "heal" {
		t.Errorf("ops %v, want one bitflip-file and the final heal", rec.fs)
	}
}

// TestComposeFromGo: composed faults keep each its own times.
func TestComposeFromGo(t *testing.T) {
	p, err := Compose(
		mustCycle(t, "partition", "one", timing(4, 7, 60, true)),
		mustCycle(t, "kill", map[string]any{"nodes": "primaries", "pattern": "x", "restart": []any{"x"}}, timing(14, 4, 60, true)),
		mustCycle(t, "pause", map[string]any{"nodes": "one", "pattern": "x"}, timing(21, 3, 60, true)),
	)
	if err != nil {
		t.Fatal(err)
	}
	rec := scheduleOf(t, p, 28*time.Second)
	wantF := []string{"start-partition", "stop-partition", "kill", "start", "pause", "resume", "heal"}
	wantT := []time.Duration{4, 11, 14, 18, 21, 24}
	if !slices.Equal(rec.fs, wantF) {
		t.Fatalf("ops %v, want %v", rec.fs, wantF)
	}
	for i, w := range wantT {
		if rec.ts[i] != w*time.Second {
			t.Errorf("%s at %s, want %s", rec.fs[i], rec.ts[i], w*time.Second)
		}
	}
}

// RecoveryTail: a tenth of the workload, within its bounds.
func TestRecoveryTail(t *testing.T) {
	for d, want := range map[time.Duration]time.Duration{
		0:                MinRecoveryTail,
		10 * time.Second: MinRecoveryTail,
		2 * time.Minute:  12 * time.Second,
		time.Hour:        MaxRecoveryTail,
	} {
		if got := RecoveryTail(d); got != want {
			t.Errorf("RecoveryTail(%s) = %s, want %s", d, got, want)
		}
	}
}
