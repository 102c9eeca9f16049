package gen

import (
	"testing"
	"time"

	"github.com/faultline/faultline/history"
)

// A time-limited run lasts its whole limit even when the last op completes
// before it: the next op fell due after the limit. A generator that runs out
// on its own lasts only as long as its ops.
func TestDurationCoversTheTimeLimit(t *testing.T) {
	read := Op(history.Op{F: "read"})
	cases := []struct {
		name string
		g    Generator
		want func(time.Duration) bool
	}{
		{"time limit", TimeLimit(time.Second, Stagger(50*time.Millisecond, Repeat(read))),
			func(d time.Duration) bool { return d == time.Second }},
		{"exhausted early", TimeLimit(time.Second, Limit(3, read)),
			func(d time.Duration) bool { return d < 100*time.Millisecond }},
	}
	for _, c := range cases {
		_, sum := virtualRun(t, Clients(c.g), Config{})
		if !c.want(sum.Duration) {
			t.Errorf("%s: duration %v", c.name, sum.Duration)
		}
	}
}
