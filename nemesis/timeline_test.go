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
