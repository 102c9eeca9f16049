package cluster

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// BenchmarkUpDown measures a full cycle, Up of a new cluster then Down,
// and reports each half (the numbers for the closing note).
func BenchmarkUpDown(b *testing.B) {
	needCluster(b)
	for _, n := range []int{3, 5} {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			cfg := testConfig(b, n)
			ctx := context.Background()
			b.Cleanup(func() { Down(context.Background(), cfg) })
			var up, down time.Duration
			for b.Loop() {
				t0 := time.Now()
				if _, err := Up(ctx, cfg); err != nil {
					b.Fatal(err)
				}
				t1 := time.Now()
				if err := Down(ctx, cfg); err != nil {
					b.Fatal(err)
				}
				up, down = up+t1.Sub(t0), down+time.Since(t1)
			}
			b.ReportMetric(float64(up.Milliseconds())/float64(b.N), "up-ms")
			b.ReportMetric(float64(down.Milliseconds())/float64(b.N), "down-ms")
		})
	}
}

// BenchmarkStatus measures `cluster status` and a no-op Up on a running
// 5-node cluster: what a script polling the cluster pays.
func BenchmarkStatus(b *testing.B) {
	needCluster(b)
	cfg := testConfig(b, 5)
	ctx := context.Background()
	b.Cleanup(func() { Down(context.Background(), cfg) })
	if _, err := Up(ctx, cfg); err != nil {
		b.Fatal(err)
	}
	b.Run("status", func(b *testing.B) {
		for b.Loop() {
			rep, err := Status(ctx, cfg)
			if err != nil || !rep.Healthy() {
				b.Fatalf("status: %v %v", err, rep)
			}
		}
	})
	b.Run("up-noop", func(b *testing.B) {
		for b.Loop() {
			st, err := Up(ctx, cfg)
			if err != nil || st.Action != Unchanged {
				b.Fatalf("up: %v %v", err, st)
			}
		}
	})
}
