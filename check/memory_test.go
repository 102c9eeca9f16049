package check

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/faultline/faultline/history"
	"github.com/faultline/faultline/internal/testhist"
)

// greedy is a checker that allocates until its context ends (or a cap it
// should never reach), then answers verdict.
type greedy struct{ verdict Validity }

func (greedy) Name() string { return "greedy" }

func (g greedy) Check(ctx context.Context, _ []history.Op, _ Env) Result {
	var hoard [][]byte
	for len(hoard) < 4096 && ctx.Err() == nil { // at most 4 GiB
		hoard = append(hoard, make([]byte, 1<<20))
		for i := 0; i < len(hoard[len(hoard)-1]); i += 4096 {
			hoard[len(hoard)-1][i] = 1 // touch it, so it is really held
		}
	}
	runtime.KeepAlive(hoard)
	return Result{Checker: "greedy", Valid: g.verdict, Summary: fmt.Sprintf("held %d MiB", len(hoard))}
}

// heapNow is the budget baseline: what the test process already holds.
func heapNow() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestRunMemoryBudget: a check that outgrows its budget is stopped and is
// unknown with the reason; one that decided anyway keeps its verdict.
func TestRunMemoryBudget(t *testing.T) {
	budget := heapNow() + 64<<20
	// greedy reads nothing, but Run only hands a checker a history that
	// asks something.
	h := testhist.JepsenLog(t, "0 :invoke :read nil", "0 :ok :read 1")
	res := Run(context.Background(), greedy{verdict: Unknown}, h, Env{MemoryBudget: budget})
	if res.Valid != Unknown || !strings.Contains(res.Summary, "memory budget") || res.Details["stopped_by"] != "memory budget" {
		t.Fatalf("got %s: %s %v", res.Valid, res.Summary, res.Details)
	}
	if !strings.Contains(res.Explanation, "--memory") {
		t.Errorf("the explanation does not say how to decide it:\n%s", res.Explanation)
	}
	res = Run(context.Background(), greedy{verdict: Invalid}, h, Env{MemoryBudget: heapNow() + 64<<20})
	if res.Valid != Invalid {
		t.Errorf("a decided verdict was overridden: %s %s", res.Valid, res.Summary)
	}
}

// TestLinearizableMemoryBudget: a search whose cache would grow without end
// (40 writes of unknown outcome, then reads no order of them explains,
// with no timeout) ends at the memory budget as unknown, not killed.
func TestLinearizableMemoryBudget(t *testing.T) {
	var lines []string
	for p := 0; p < 40; p++ {
		lines = append(lines, fmt.Sprintf("%d :invoke :write %d", p, p+1))
	}
	for p := 0; p < 40; p++ {
		lines = append(lines, fmt.Sprintf("%d :info :write %d", p, p+1))
	}
	for i := 0; i < 40; i++ {
		p := 100 + i
		lines = append(lines, fmt.Sprintf("%d :invoke :read nil", p), fmt.Sprintf("%d :ok :read %d", p, 40-i))
	}
	// A read of a value no one wrote, last: the search must try every
	// subset of the unknown writes before it can say so.
	lines = append(lines, "200 :invoke :read nil", "200 :ok :read 99")
	h := testhist.JepsenLog(t, lines...)
	res := Run(context.Background(), mustLinearizable(t, "register", nil), h, Env{MemoryBudget: heapNow() + 96<<20})
	if res.Valid == Invalid {
		t.Fatalf("the search proved it illegal within the budget (%s): the history no longer exercises the budget", res.Summary)
	}
	if res.Valid != Unknown || res.Details["stopped_by"] != "memory budget" {
		t.Fatalf("got %s: %s", res.Valid, res.Summary)
	}
}

// A history that holds no client op asks the system nothing: every checker
// run through Run is unknown and says the history holds no ops, never valid
// (the linearizability checker used to answer Knossos' "trivially
// linearizable", which faultline check turned into VALID, exit 0).
func TestNoClientOpsIsUnknown(t *testing.T) {
	histories := map[string][]history.Op{
		"empty":        nil,
		"only nemesis": testhist.JepsenLog(t, ":nemesis :info :start-partition nil", ":nemesis :info :start-partition :majority"),
	}
	cs := allOracles(t)
	for _, model := range ModelNames() {
		c, err := New(Options{Model: model})
		if err != nil {
			t.Fatalf("%s: %v", model, err)
		}
		cs = append(cs, c)
	}
	for name, h := range histories {
		for _, c := range cs {
			t.Run(name+"/"+c.Name(), func(t *testing.T) {
				res := Run(context.Background(), c, h, Env{})
				if res.Valid != Unknown || !strings.Contains(res.Summary, "holds no") || res.Checker != c.Name() {
					t.Fatalf("got %s from %q: %s", res.Valid, res.Checker, res.Summary)
				}
			})
		}
		// The linearizability checker says so on its own, without Run.
		res := mustLinearizable(t, "cas-register", nil).Check(context.Background(), h, Env{})
		if res.Valid != Unknown || !strings.HasPrefix(res.Summary, "nothing to check: the history holds no") {
			t.Fatalf("%s: linearizable.Check: %s: %s", name, res.Valid, res.Summary)
		}
	}
}
