package nfdelay

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestStatsRoundTrip(t *testing.T) {
	var c counters
	for range 5 {
		c.seen.Add(1)
	}
	c.released(int64(90*time.Millisecond), false)
	c.released(int64(110*time.Millisecond), false)
	c.released(int64(time.Millisecond), true)
	c.held.Store(2)
	c.fail(os.ErrClosed)
	cfg := Config{Queue: 9, Delay: 100 * time.Millisecond, Jitter: 10 * time.Millisecond}
	path := filepath.Join(t.TempDir(), "stats")
	if err := writeStats(path, c.snapshot(cfg, true)); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := ParseStats(b)
	if err != nil {
		t.Fatal(err)
	}
	want := Stats{PID: os.Getpid(), Queue: 9, DelayNS: int64(100 * time.Millisecond), JitterNS: int64(10 * time.Millisecond),
		Running: true, Seen: 5, Delayed: 2, Flushed: 1, Held: 2, MeanDelayNS: int64(100 * time.Millisecond),
		MaxDelayNS: int64(110 * time.Millisecond), Errors: 1, LastError: os.ErrClosed.Error()}
	if s != want {
		t.Errorf("read back %+v\nwant      %+v", s, want)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("temporary files left beside the stats: %v", entries)
	}
}

func TestWriteStatsBadDir(t *testing.T) {
	err := writeStats(filepath.Join(t.TempDir(), "no", "such", "dir", "stats"), Stats{PID: 1})
	if err == nil || !strings.Contains(err.Error(), "write stats") {
		t.Errorf("err = %v, want a write stats error", err)
	}
}

func TestParseStats(t *testing.T) {
	tests := []struct {
		name string
		in   string
		ok   bool
	}{
		{"minimal", `{"pid":3}`, true},
		{"counts", `{"pid":3,"seen":4,"delayed":3,"flushed":1,"mean_delay_ns":5,"max_delay_ns":9}`, true},
		{"no pid", `{"seen":1}`, false},
		{"more released than seen", `{"pid":3,"seen":1,"delayed":2}`, false},
		{"mean above max", `{"pid":3,"seen":1,"delayed":1,"mean_delay_ns":5,"max_delay_ns":4}`, false},
		{"negative held", `{"pid":3,"held":-1}`, false},
		{"truncated", `{"pid":3,"se`, false},
		{"empty", ``, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := ParseStats([]byte(tt.in)); (err == nil) != tt.ok {
				t.Errorf("err = %v, want ok %v", err, tt.ok)
			}
		})
	}
}

func FuzzParseStats(f *testing.F) {
	f.Add([]byte(`{"pid":3,"seen":4,"delayed":3}`))
	f.Add([]byte(`{"pid":-1}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := ParseStats(b)
		if err == nil && (s.PID <= 0 || s.Delayed+s.Flushed > s.Seen) {
			t.Fatalf("accepted inconsistent stats %+v", s)
		}
	})
}
