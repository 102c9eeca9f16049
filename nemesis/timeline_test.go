package nemesis

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/faultline/faultline/gen"
	"github.com/faultline/faultline/history"
)

// TestTimelineSlowSteps: on nodes that take 25 s to apply each step (as
// emulated VMs can), the schedule's clock stands still during each step:
// a fault is held for its whole hold after it landed, the faults after it
// keep the plan's spacing, and every inject the plan puts inside the
// workload is still issued.
func TestTimelineSlowSteps(t *testing.T) {
	kill := map[string]any{"nodes": "primaries", "pattern": "x", "restart": []any{"x"}}
	p, err := Compose(mustCycle(t, "partition", "primaries", timing(8, 8, 60, false)), mustCycle(t, "kill", kill, timing(22, 6, 60, false)))
	if err != nil {
		t.Fatal(err)
	}
	wantF := []string{"start-partition", "stop-partition", "kill", "start"}
	for _, tt := range []struct {
		step  time.Duration
		wantT []time.Duration // seconds
	}{
		{0, []time.Duration{8, 16, 22, 28}},
		{25 * time.Second, []time.Duration{8, 16 + 25, 22 + 50, 28 + 75}},
	} {
		rec := &previewer{}
		_, err := gen.Run(context.Background(), gen.Nemesis(p.Within(40*time.Second)), gen.Config{Concurrency: 1, Virtual: true, Nemesis: rec,
			Client:  func(int, int) (gen.Worker, error) { return &previewer{}, nil },
			Latency: func(*rand.Rand, history.Op) time.Duration { return tt.step }})
		if err != nil {
			t.Fatal(err)
		}
		var fs []string
		var ts []time.Duration
		for _, op := range rec.ops {
			fs, ts = append(fs, op.F), append(ts, op.At/time.Second)
		}
		if !slices.Equal(fs, wantF) || !slices.Equal(ts, tt.wantT) {
			t.Errorf("steps of %s: %v at %v s, want %v at %v s", tt.step, fs, ts, wantF, tt.wantT)
		}
	}
}

// TestTimelineHolds: composed cycles whose faults hold the same thing (a
// node's process, the partition, the qdisc; a fault itself) never overlap:
// an inject due while another holds it waits for that one's heal, taking
// its own heal and later repeats with it. Faults holding different things
// overlap as scheduled. Planned lists the same times the timeline issues.
func TestTimelineHolds(t *testing.T) {
	proc := map[string]any{"nodes": "one", "pattern": "x", "restart": []any{"x"}}
	bw := map[string]any{"nodes": "one", "rate": "1mbit"}
	dl := map[string]any{"nodes": "one", "delay": "50ms", "jitter": "0s"}
	type step struct {
		f  string
		at time.Duration // seconds
	}
	tests := []struct {
		name string
		pkgs []*Package
		d    time.Duration
		want []step
	}{
		{"a pause due while a kill holds the process waits for its restart",
			[]*Package{mustCycle(t, "kill", proc, timing(10, 10, 60, false)), mustCycle(t, "pause", proc, timing(15, 5, 60, false))}, 60,
			[]step{{"kill", 10}, {"start", 20}, {"pause", 20}, {"resume", 25}}},
		{"a kill due while a pause holds the process waits for its resume",
			[]*Package{mustCycle(t, "pause", proc, timing(10, 10, 60, false)), mustCycle(t, "kill", proc, timing(12, 5, 60, false))}, 60,
			[]step{{"pause", 10}, {"resume", 20}, {"kill", 20}, {"start", 25}}},
		{"two kills of different targets do not overlap either",
			[]*Package{mustCycle(t, "kill", proc, timing(10, 10, 60, false)), mustCycle(t, "kill", map[string]any{"nodes": "majority", "pattern": "x", "restart": []any{"x"}}, timing(11, 2, 60, false))}, 60,
			[]step{{"kill", 10}, {"start", 20}, {"kill", 20}, {"start", 22}}},
		{"a second partition waits for the first one's heal",
			[]*Package{mustCycle(t, "partition", "one", timing(5, 10, 60, false)), mustCycle(t, "partition", "majority", timing(8, 4, 60, false))}, 60,
			[]step{{"start-partition", 5}, {"stop-partition", 15}, {"start-partition", 15}, {"stop-partition", 19}}},
		{"bandwidth and delay share the qdisc",
			[]*Package{mustCycle(t, "bandwidth", bw, timing(5, 10, 60, false)), mustCycle(t, "delay", dl, timing(6, 3, 60, false))}, 60,
			[]step{{"start-bandwidth", 5}, {"stop-bandwidth", 15}, {"start-delay", 15}, {"stop-delay", 18}}},
		{"a partition and a kill hold different things: they overlap",
			[]*Package{mustCycle(t, "partition", "one", timing(5, 10, 60, false)), mustCycle(t, "kill", proc, timing(8, 4, 60, false))}, 60,
			[]step{{"start-partition", 5}, {"kill", 8}, {"start", 12}, {"stop-partition", 15}}},
		{"a deferred repeating cycle keeps its interval from its own heal",
			[]*Package{mustCycle(t, "kill", proc, timing(10, 10, 100, false)), mustCycle(t, "pause", proc, timing(12, 2, 10, true))}, 40,
			[]step{{"kill", 10}, {"start", 20}, {"pause", 20}, {"resume", 22}, {"pause", 32}, {"resume", 34}}},
		{"a cycle's own repeat due while it holds cannot happen: it waits as before",
			[]*Package{mustCycle(t, "partition", "one", timing(5, 5, 5, true))}, 20,
			[]step{{"start-partition", 5}, {"stop-partition", 10}, {"start-partition", 15}, {"stop-partition", 20}}},
		{"an inject deferred past the workload's end is not issued",
			[]*Package{mustCycle(t, "partition", "one", timing(5, 10, 60, false)), mustCycle(t, "partition", "majority", timing(8, 4, 60, false))}, 12,
			[]step{{"start-partition", 5}, {"stop-partition", 15}}},
	}
	for _, tt := range tests {
		p, err := Compose(tt.pkgs...)
		if err != nil {
			t.Fatal(err)
		}
		d := tt.d * time.Second
		ops, err := p.Preview(d)
		if err != nil {
			t.Fatal(err)
		}
		var got []step
		for _, op := range ops {
			if op.F != "heal" {
				got = append(got, step{op.F, op.At / time.Second})
			}
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: steps %v, want %v", tt.name, got, tt.want)
		}
		var planned, issued []step
		for _, pl := range p.Planned(d) {
			if pl.At < d {
				planned = append(planned, step{pl.Fault, pl.At / time.Second})
			}
		}
		for _, s := range got {
			if _, ok := EndOf(s.f); ok {
				issued = append(issued, s)
			}
		}
		if !slices.Equal(planned, issued) {
			t.Errorf("%s: Planned %v, but the timeline injects %v", tt.name, planned, issued)
		}
	}
	// The deferred partition the workload had no room for is still listed,
	// at the time it was deferred to, so the run says it never fired.
	p, _ := Compose(mustCycle(t, "partition", "one", timing(5, 10, 60, false)), mustCycle(t, "partition", "majority", timing(8, 4, 60, false)))
	if pl := p.Planned(12 * time.Second); len(pl) != 2 || pl[1].At != 15*time.Second {
		t.Errorf("Planned(12s) %v, want the second partition listed at its deferred T+15s", pl)
	}
}
