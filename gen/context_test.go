package gen

import (
	"slices"
	"testing"

	"github.com/faultline/faultline/history"
	"github.com/faultline/faultline/internal/seed"
)

func TestContextThreadsAndProcesses(t *testing.T) {
	ctx := newContext(3, true, seed.New(1, "generator"))
	if got := slices.Collect(ctx.AllThreads()); !slices.Equal(got, []int{0, 1, 2, NemesisThread}) {
		t.Fatalf("AllThreads = %v", got)
	}
	ctx.markBusy(1)
	if got := slices.Collect(ctx.FreeThreads()); !slices.Equal(got, []int{0, 2, NemesisThread}) {
		t.Fatalf("FreeThreads = %v", got)
	}
	if ctx.IsFree(1) || !ctx.IsFree(2) || ctx.AllFree() || ctx.NumThreads() != 4 {
		t.Fatal("busy/free bookkeeping is wrong")
	}
	ctx.process[1] += 3 // thread 1 crashed
	cases := []struct{ process, thread int }{{0, 0}, {4, 1}, {1, 1}, {5, 2}, {history.NemesisProcess, NemesisThread}}
	for _, c := range cases {
		if got, ok := ctx.ThreadOf(c.process); !ok || got != c.thread {
			t.Errorf("ThreadOf(%d) = %d, %v; want %d", c.process, got, ok, c.thread)
		}
	}
	if _, ok := ctx.ThreadOf(-7); ok {
		t.Error("ThreadOf(-7) found a thread")
	}
	if p, ok := ctx.ProcessOf(1); !ok || p != 4 {
		t.Errorf("ProcessOf(1) = %d, %v", p, ok)
	}
	if _, ok := ctx.ProcessOf(3); ok {
		t.Error("ProcessOf(3) found a thread beyond the concurrency")
	}
	noNemesis := newContext(2, false, nil)
	if _, ok := noNemesis.ThreadOf(history.NemesisProcess); ok || noNemesis.Allowed(NemesisThread) {
		t.Error("a run without a nemesis has a nemesis thread")
	}
}

// TestSomeFreeProcessRoundRobin checks that successive ops spread over the
// threads instead of piling onto thread 0, across word boundaries too.
func TestSomeFreeProcessRoundRobin(t *testing.T) {
	ctx := newContext(70, false, nil)
	var got []int
	for i := 0; i < 140; i++ {
		p, ok := ctx.SomeFreeProcess()
		if !ok {
			t.Fatal("no free process")
		}
		got = append(got, p)
		ctx.markBusy(p)
		ctx.markFree(p) // completes at once
	}
	for i, p := range got {
		if p != i%70 {
			t.Fatalf("op %d went to process %d, want %d", i, p, i%70)
		}
	}
	for s := 0; s < 70; s++ {
		if s != 65 {
			ctx.markBusy(s)
		}
	}
	if p, ok := ctx.SomeFreeProcess(); !ok || p != 65 {
		t.Fatalf("SomeFreeProcess = %d, %v; want the one free process 65", p, ok)
	}
	ctx.markBusy(65)
	if _, ok := ctx.SomeFreeProcess(); ok {
		t.Fatal("found a free process while all are busy")
	}
}

func TestRestrictionNestsAndRestores(t *testing.T) {
	ctx := newContext(4, true, nil)
	outer := ctx.narrow(ctx.clientMask)
	if ctx.Allowed(NemesisThread) || ctx.NumThreads() != 4 {
		t.Fatal("clients restriction still allows the nemesis")
	}
	inner := ctx.only(2)
	if got := slices.Collect(ctx.AllThreads()); !slices.Equal(got, []int{2}) {
		t.Fatalf("inner threads %v", got)
	}
	if p, ok := ctx.SomeFreeProcess(); !ok || p != 2 {
		t.Fatalf("SomeFreeProcess = %d, %v", p, ok)
	}
	ctx.leave(inner)
	nem := ctx.narrow(ctx.nemesisMask)
	if ctx.NumThreads() != 0 {
		t.Fatal("nemesis inside clients must allow nothing")
	}
	if _, st := ctx.fill(opF("x")); st != Exhausted {
		t.Fatalf("filling with no allowed thread gave %v, want exhausted", st)
	}
	ctx.leave(nem)
	ctx.leave(outer)
	if ctx.NumThreads() != 5 || ctx.depth != 0 {
		t.Fatalf("restriction not restored: %d threads, depth %d", ctx.NumThreads(), ctx.depth)
	}
}

func TestStatusString(t *testing.T) {
	for st, want := range map[Status]string{Ready: "ready", Pending: "pending", Exhausted: "exhausted", 9: "status(?)"} {
		if st.String() != want {
			t.Errorf("%d.String() = %q", st, st.String())
		}
	}
}
