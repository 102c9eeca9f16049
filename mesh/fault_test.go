package mesh

import (
	"math"
	"reflect"
	"testing"
	"time"
)

func TestBlockedDirs(t *testing.T) {
	table := map[string][]string{"b": {"a"}, "c": {"a", "b"}, "a": {"c"}}
	tests := []struct {
		link     Link
		fwd, rev bool
	}{
		{Link{"a", "b", "s"}, true, false}, // one-way: b drops a only
		{Link{"b", "a", "s"}, false, true},
		{Link{"a", "c", "s"}, true, true}, // both drop each other
		{Link{"b", "c", "s"}, true, false},
		{Link{"c", "b", "s"}, false, true},
		{Link{"d", "a", "s"}, false, false}, // not named anywhere
		{Link{Client, "b", "s"}, false, false},
	}
	for _, tt := range tests {
		if f, r := blockedDirs(table, tt.link); f != tt.fwd || r != tt.rev {
			t.Errorf("%s: fwd %v rev %v, want %v %v", tt.link, f, r, tt.fwd, tt.rev)
		}
	}
	// Clients are never cut, even when named.
	if f, r := blockedDirs(map[string][]string{"b": {Client}, Client: {"b"}}, Link{Client, "b", "s"}); f || r {
		t.Errorf("client link cut")
	}
}

func TestNormalize(t *testing.T) {
	tests := []struct {
		in, want map[string][]string
	}{
		{nil, map[string][]string{}},
		{map[string][]string{"a": {"c", "b", "c"}}, map[string][]string{"a": {"b", "c"}}},
		{map[string][]string{"a": {"a"}, "b": {}}, map[string][]string{}},
		{map[string][]string{"a": {"a", "b"}}, map[string][]string{"a": {"b"}}},
	}
	for _, tt := range tests {
		if got := normalize(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("normalize(%v) = %v, want %v", tt.in, got, tt.want)
		}
	}
	in := map[string][]string{"a": {"c", "b"}}
	normalize(in)
	if !reflect.DeepEqual(in["a"], []string{"c", "b"}) {
		t.Errorf("normalize changed its input: %v", in)
	}
}

func TestShapingNormalized(t *testing.T) {
	tests := []struct{ in, want Shaping }{
		{Shaping{}, Shaping{}},
		{Shaping{Latency: -1, Jitter: -1, Bandwidth: -1, Loss: -0.5}, Shaping{}},
		{Shaping{Loss: 2}, Shaping{Loss: 1}},
		{Shaping{Loss: math.NaN()}, Shaping{}},
		{Shaping{Latency: time.Second, Bandwidth: 10, Loss: 0.25}, Shaping{Latency: time.Second, Bandwidth: 10, Loss: 0.25}},
	}
	for _, tt := range tests {
		if got := tt.in.normalized(); got != tt.want {
			t.Errorf("%+v.normalized() = %+v, want %+v", tt.in, got, tt.want)
		}
	}
}

// TestBucket drives the token bucket on a fake clock.
func TestBucket(t *testing.T) {
	t0 := time.Unix(0, 0)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	type take struct {
		ms, n int
		wait  time.Duration
	}
	tests := []struct {
		name  string
		rate  int64
		burst int
		takes []take
	}{
		// 20000 B/s: burst 1000 bytes, refilled at 20 bytes per millisecond.
		{"within burst", 20000, 1000, []take{{0, 600, 0}, {0, 400, 0}}},
		{"debt waits", 20000, 1000, []take{{0, 1000, 0}, {0, 200, 10 * time.Millisecond}, {0, 200, 20 * time.Millisecond}}},
		{"refill", 20000, 1000, []take{{0, 1000, 0}, {10, 200, 0}, {10, 1, 50 * time.Microsecond}}},
		{"refill capped at burst", 20000, 1000, []take{{0, 1000, 0}, {1000, 1000, 0}, {1000, 20, time.Millisecond}}},
		{"clock going back is ignored", 20000, 1000, []take{{10, 1000, 0}, {0, 20, time.Millisecond}}},
		{"small rate: burst floor", 100, 512, []take{{0, 512, 0}, {0, 100, time.Second}}},
		{"large rate: burst cap", 100 << 20, MaxBurst, []take{{0, MaxBurst, 0}}},
	}
	for _, tt := range tests {
		b := newBucket(tt.rate, t0)
		if b.burst != tt.burst {
			t.Errorf("%s: burst %d, want %d", tt.name, b.burst, tt.burst)
		}
		for i, tk := range tt.takes {
			if got := b.take(at(tk.ms), tk.n); got != tk.wait {
				t.Errorf("%s: take %d (%d bytes at %dms) waits %v, want %v", tt.name, i, tk.n, tk.ms, got, tk.wait)
			}
		}
	}
}

// TestBucketBound checks the guarantee the bandwidth test relies on: bytes
// admitted (due) within any window starting at the bucket's creation are at
// most burst + rate*window, whatever the chunk sizes and arrival times.
func TestBucketBound(t *testing.T) {
	const rate = 50000
	b := newBucket(rate, time.Unix(0, 0))
	now := time.Unix(0, 0)
	admitted := 0
	for i := range 2000 {
		n := 1 + (i*7919)%3000
		now = now.Add(time.Duration(i%5) * 100 * time.Microsecond)
		due := now.Add(b.take(now, n))
		admitted += n
		if bound := float64(b.burst) + rate*due.Sub(time.Unix(0, 0)).Seconds(); float64(admitted) > bound+1 {
			t.Fatalf("take %d: %d bytes admitted by %v, bound %.0f", i, admitted, due.Sub(time.Unix(0, 0)), bound)
		}
		now = due // the caller sleeps until due before reading more
	}
}
