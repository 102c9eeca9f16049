package check

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/internal/testhist"
)

// fault makes a nemesis op pair of function f, invoked at start and
// completed with typ at end (milliseconds).
func fault(f string, start, end int64, typ string) []string {
	ms := int64(time.Millisecond)
	return []string{
		fmt.Sprintf(`{:process :nemesis :type :invoke :f :%s :time %d}`, f, start*ms),
		fmt.Sprintf(`{:process :nemesis :type :%s :f :%s :time %d}`, typ, f, end*ms),
	}
}

// seq concatenates line groups in order.
func seq(groups ...[]string) []string {
	var out []string
	for _, g := range groups {
		out = append(out, g...)
	}
	return out
}

func TestRecovery(t *testing.T) {
	c, err := Recovery(RecoveryOptions{Within: time.Second, After: []string{"kill", "start-partition"}, F: []string{"write", "cas"}})
	if err != nil {
		t.Fatal(err)
	}
	before := series(0, 5, "write", 0, 5, "ok", "")       // 0..45ms
	quick := series(0, 5, "write", 600, 5, "ok", "")      // first ok at 605ms
	slow := series(0, 5, "write", 2100, 5, "ok", "")      // first ok at 2105ms
	failing := series(1, 30, "write", 100, 5, "fail", "") // 100..395ms, all fail
	reads := series(2, 30, "read", 100, 5, "ok", "")      // reads do not count
	w := timed(0, "write", 40, 300, "ok", "")
	inFlight := seq(w[:1], fault("kill", 50, 100, "ok"), w[1:])
	runVerdicts(t, c, []verdictCase{
		{"recovered in time", seq(before, fault("kill", 50, 100, "ok"), quick), Valid, 10, "worst 505ms"},
		{"slow recovery", seq(before, fault("kill", 50, 100, "ok"), slow), Invalid, 10, "kill (op 11, completed at 100ms): first ok op 2.005s later, bound 1s"},
		{"second fault slow", seq(before, fault("kill", 50, 100, "ok"), quick, fault("start-partition", 700, 700, "info"), slow),
			Invalid, 15, "1 of 2 faults"},
		{"only reads after the fault", seq(before, fault("kill", 50, 100, "ok"), reads, series(1, 2, "write", 1500, 5, "fail", "")),
			Invalid, 7, "no ok op at all, though clients kept trying for 1.415s"},
		{"history ends before the bound", seq(before, fault("kill", 50, 100, "ok"), failing), Unknown, 35,
			"before the 1s bound could show recovery"},
		{"no fault of the named kinds", seq(before, fault("pause", 50, 100, "ok"), slow), Unknown, 10, "no fault of kill/start-partition"},
		{"a failed fault is not measured", seq(before, fault("kill", 50, 100, "fail"), slow), Unknown, 10, "nothing to recover from"},
		{"an op in flight across the fault counts", inFlight,
			Valid, 1, "worst 240ms"},
		{"no client ops", fault("kill", 50, 100, "ok"), Unknown, 0, "nothing to check"},
		{"no times", []string{":nemesis :info :kill nil", ":nemesis :info :kill nil", "0 :invoke :write 1", "0 :ok :write 1"},
			Unknown, 0, "carry no times"},
	})

	any, _ := Recovery(RecoveryOptions{Within: time.Second})
	runVerdicts(t, any, []verdictCase{
		{"default faults and functions", seq(before, fault("pause", 50, 100, "ok"), reads), Valid, 35, "within 1s"},
		{"a restart is not a fault", seq(before, fault("start", 50, 100, "ok"), reads), Unknown, 35, "any fault-opening kind"},
	})

	for _, o := range []RecoveryOptions{{}, {Within: -time.Second}} {
		if _, err := Recovery(o); err == nil {
			t.Errorf("Recovery(%+v): no error", o)
		}
	}
	if got := c.(recovery).String(); got != `check.recovery(within="1s", after=["kill", "start-partition"], f=["write", "cas"])` {
		t.Errorf("String() = %s", got)
	}
}

// TestRecoveryJepsenInfoPairs reads nemesis invocations written as info, as
// Jepsen does: the gap starts at the second record, the completion.
func TestRecoveryJepsenInfoPairs(t *testing.T) {
	ms := int64(time.Millisecond)
	h := testhist.EDN(t,
		fmt.Sprintf(`{:process :nemesis :type :info :f :kill :time %d}`, 0),
		fmt.Sprintf(`{:process :nemesis :type :info :f :kill :time %d}`, 900*ms),
		fmt.Sprintf(`{:process 0 :type :invoke :f :write :time %d}`, 950*ms),
		fmt.Sprintf(`{:process 0 :type :ok :f :write :time %d}`, 1500*ms),
	)
	c, _ := Recovery(RecoveryOptions{Within: time.Second})
	r := run(t, c, h)
	if r.Valid != Valid || !strings.Contains(r.Summary, "worst 600ms") {
		t.Errorf("%s: %s", r.Valid, r.Summary)
	}
}

func BenchmarkRecovery(b *testing.B) {
	var lines []string
	for i := range 100 {
		lines = append(lines, fault("kill", int64(i)*1000, int64(i)*1000+5, "ok")...)
		for p := range 10 {
			lines = append(lines, series(p, 10, "write", int64(i)*1000+10, 3, "ok", "")...)
		}
	}
	h := testhist.EDN(b, lines...)
	c, _ := Recovery(RecoveryOptions{Within: time.Second, After: []string{"kill"}, F: []string{"write"}})
	b.ReportAllocs()
	for b.Loop() {
		run(b, c, h)
	}
}
