package mesh_test

import (
	"context"
	"net"
	"sync/atomic"
	"testing"

	"github.com/faultline/faultline/mesh"
)

// countingNodes is a mesh over n1 and n2 whose real services only count the
// connections that reach them, so a test can see that a probe never does.
func countingNodes(t *testing.T) (*mesh.Mesh, map[string]*atomic.Int64) {
	t.Helper()
	m := mesh.New(mesh.Options{Seed: 5})
	t.Cleanup(func() { m.Close() })
	reached := map[string]*atomic.Int64{}
	for _, n := range []string{"n1", "n2"} {
		c := &atomic.Int64{}
		reached[n] = c
		if err := m.Add(n, "db", serveTCP(t, func(net.Conn) { c.Add(1) })); err != nil {
			t.Fatal(err)
		}
	}
	return m, reached
}

// A probe of a cut is counted as held by the partition on every cut link
// it crosses, and dials nothing on a link that is not cut: no probe ever
// reaches a node's own service.
func TestProbeCut(t *testing.T) {
	ctx := context.Background()
	m, reached := countingNodes(t)
	m.Partition(map[string][]string{"n1": {"n2"}}) // n1 drops what n2 sends
	for _, dir := range [][2]string{{"n2", "n1"}, {"n1", "n2"}} {
		sent, held, err := m.ProbeCut(ctx, dir[0], dir[1])
		if err != nil || sent != 1 || held != 1 {
			t.Fatalf("probe %s->%s across the cut: held %d, %v; want 1", dir[0], dir[1], held, err)
		}
	}
	m.Partition(nil)
	sent, held, err := m.ProbeCut(ctx, "n2", "n1")
	if err != nil || sent != 0 || held != 0 {
		t.Fatalf("probe of a healed link: held %d, %v; want 0 and no connection", held, err)
	}
	for n, c := range reached {
		if c.Load() != 0 {
			t.Errorf("%s's own service was reached %d times by probes", n, c.Load())
		}
	}
}

// A probe of a shaped node goes through the same shaping as the node's own
// links, to the mesh's sink, never to the node's service: a bandwidth
// limit throttles it, latency delays it, connection loss resets one of
// its connections; with no shaping it meets nothing.
func TestProbeShaped(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name  string
		s     mesh.Shaping
		acted func(mesh.Counters) int64
	}{
		{"bandwidth", mesh.Shaping{Bandwidth: 100 << 10}, func(c mesh.Counters) int64 { return c.ThrottledNanos }},
		{"latency", mesh.Shaping{Latency: 2e6}, func(c mesh.Counters) int64 { return c.Delayed }},
		{"loss", mesh.Shaping{Loss: 0.2}, func(c mesh.Counters) int64 { return c.ConnsLost }},
		{"none", mesh.Shaping{}, func(c mesh.Counters) int64 { return c.ThrottledNanos + c.Delayed + c.ConnsLost }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, reached := countingNodes(t)
			m.Shape([]string{"n1"}, tt.s)
			got, err := m.ProbeShaped(ctx, "n1")
			if tt.s.Loss == 0 && err != nil {
				t.Fatal(err)
			}
			if a := tt.acted(got); (a > 0) != (tt.s != mesh.Shaping{}) {
				t.Errorf("the probe met %+v under %v", got, tt.s)
			}
			if reached["n1"].Load() != 0 {
				t.Errorf("the probe reached n1's own service")
			}
		})
	}
}
