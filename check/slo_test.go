package check

import (
	"fmt"
	"testing"
	"time"

	"github.com/faultline/faultline/internal/testhist"
)

// timed makes an op pair of function f for process p, invoked at start and
// completed with typ after lat (both in milliseconds); extra is EDN map text.
func timed(p int, f string, start, lat int64, typ, extra string) []string {
	ms := int64(time.Millisecond)
	return []string{
		fmt.Sprintf(`{:process %d :type :invoke :f :%s :time %d %s}`, p, f, start*ms, extra),
		fmt.Sprintf(`{:process %d :type :%s :f :%s :time %d %s}`, p, typ, f, (start+lat)*ms, extra),
	}
}

// series makes n sequential ops of process p, one every 10ms from start.
func series(p, n int, f string, start, lat int64, typ, extra string) []string {
	var out []string
	for i := range n {
		out = append(out, timed(p, f, start+int64(i)*10, lat, typ, extra)...)
	}
	return out
}

func TestSLO(t *testing.T) {
	rate := 0.1
	c, err := SLO(SLOOptions{P99: 20 * time.Millisecond, ErrorRate: &rate, Window: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	fast := series(0, 10, "read", 0, 5, "ok", "")
	slowSecond := append(series(0, 10, "read", 0, 5, "ok", ""), series(0, 10, "read", 1000, 50, "ok", "")...)
	failing := append(series(0, 8, "read", 0, 5, "ok", ""), series(1, 2, "write", 0, 5, "info", "")...)
	runVerdicts(t, c, []verdictCase{
		{"within", fast, Valid, 10, "10 ops in 1 judged windows"},
		{"slow second window", slowSecond, Invalid, 20, "window 1 (+1s): p99 50ms > 20ms over 10 ok ops"},
		{"error rate", failing, Invalid, 10, "error rate 0.2000 > 0.1 (2 of 10 ops)"},
		{"nothing", nil, Unknown, 0, "nothing to check"},
		{"no times", []string{"0 :invoke :read nil", "0 :ok :read 1"}, Unknown, 1, "carry no times"},
	})
	minOps, _ := SLO(SLOOptions{P50: time.Millisecond, MinOps: 100})
	runVerdicts(t, minOps, []verdictCase{{"too few ops", fast, Unknown, 10, "no window had 100 ops"}})
	onlyWrites, _ := SLO(SLOOptions{P50: time.Millisecond, F: []string{"write"}})
	runVerdicts(t, onlyWrites, []verdictCase{{"no write completed ok", failing, Invalid, 2, "latency is unbounded"}})

	bad := []SLOOptions{{}, {P99: time.Millisecond, Window: -1}, {ErrorRate: new(float64(2))}}
	for _, o := range bad {
		if _, err := SLO(o); err == nil {
			t.Errorf("SLO(%+v): no error", o)
		}
	}
	if got := c.(slo).String(); got != `check.slo(p99="20ms", error_rate=0.1, window="1s")` {
		t.Errorf("String() = %s", got)
	}
}

func BenchmarkSLO(b *testing.B) {
	var lines []string
	for p := range 10 {
		lines = append(lines, series(p, 1000, "read", int64(p), int64(p%7), "ok", "")...)
	}
	h := testhist.EDN(b, lines...)
	c, _ := SLO(SLOOptions{P99: time.Second, Window: time.Second})
	b.ReportAllocs()
	for b.Loop() {
		run(b, c, h)
	}
}
