package gen

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/history"
	"github.com/faultline/faultline/internal/testhist"
)

// blockingWorker blocks in Invoke until released, ignoring its context, as a
// hung client library would.
type blockingWorker struct {
	release chan struct{}
	closed  chan struct{}
}

func (w *blockingWorker) Invoke(context.Context, history.Op) history.Op {
	<-w.release
	return history.Op{Type: history.OK}
}

func (w *blockingWorker) Close() error { close(w.closed); return nil }

func TestRealTimeoutAbandonsHungWorker(t *testing.T) {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	hung := &blockingWorker{release: release, closed: make(chan struct{})}
	log := &workerLog{}
	f := func(thread, process int) (Worker, error) {
		if process == 0 {
			return hung, nil
		}
		return factory(log, nil)(thread, process)
	}
	rec := &recorder{}
	sum, err := Run(context.Background(), Limit(3, rep("a")), Config{
		Concurrency: 1, Client: f, OpTimeout: 20 * time.Millisecond, Record: rec.record,
	})
	if err != nil {
		t.Fatal(err)
	}
	testhist.WellFormed(t, rec.ops)
	if rec.ops[1].Type != history.Info || rec.ops[1].Error != "timeout" {
		t.Fatalf("completion %+v, want info timeout", rec.ops[1])
	}
	if got := testhist.Brief(rec.ops); !strings.HasSuffix(got, ":1:a") || strings.Count(got, ":a") != 3 {
		t.Fatalf("ops %s: want 3 ops, the last ones on process 1", got)
	}
	if sum.Info != 1 || sum.OK != 2 {
		t.Fatalf("summary %+v", sum)
	}
	if got := log.list(); !slices.Equal(got, []string{"open 0/1", "close 0/1"}) {
		t.Fatalf("worker lifecycle %q", got)
	}
	select {
	case <-hung.closed:
		t.Fatal("the hung worker was closed while its Invoke was still running")
	default:
	}
}

func TestRealNemesisTimeoutDoesNotReuseHungNemesis(t *testing.T) {
	release := make(chan struct{})
	nem := &blockingWorker{release: release, closed: make(chan struct{})}
	rec := &recorder{}
	g := Nemesis(Seq(Op(opF("start")), Op(opF("stop"))))
	_, err := Run(context.Background(), g, Config{
		Concurrency: 1, Client: factory(&workerLog{}, nil), Nemesis: nem,
		NemesisTimeout: 20 * time.Millisecond, Record: rec.record,
	})
	close(release)
	if err != nil {
		t.Fatal(err)
	}
	testhist.WellFormed(t, rec.ops)
	var got []string
	for _, op := range rec.ops {
		got = append(got, fmt.Sprintf("%s %s %v", op.Type, op.F, op.Error))
	}
	want := []string{"invoke start <nil>", "info start timeout", "invoke stop <nil>",
		"info stop nemesis unavailable: an earlier operation timed out and has not returned"}
	if !slices.Equal(got, want) {
		t.Fatalf("got %q\nwant %q", got, want)
	}
}

func TestRealCancellation(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rec := &recorder{}
	record := func(op history.Op) error {
		if op.Type == history.OK && len(rec.ops) > 100 {
			cancel()
		}
		return rec.record(op)
	}
	sum, err := Run(ctx, rep("a"), Config{Concurrency: 4, Client: factory(&workerLog{}, nil), Record: record})
	if err != nil {
		t.Fatal(err)
	}
	if !sum.Cancelled {
		t.Fatal("Summary.Cancelled not set")
	}
	testhist.WellFormed(t, rec.ops) // every invocation completed before Run returned
}

// TestRealMatchesVirtualShape runs the same bounded generator in both modes;
// the real pool must produce the same multiset of ops (timing differs).
func TestRealMatchesVirtualShape(t *testing.T) {
	g := Any(Clients(EachThread(Limit(50, Repeat(Op(opF("a")))))), Nemesis(Seq(Op(opF("start")), Op(opF("stop")))))
	count := func(ops []history.Op) map[string]int {
		m := map[string]int{}
		for _, op := range ops {
			m[fmt.Sprintf("%d %s %s", op.Process, op.Type, op.F)]++
		}
		return m
	}
	vops, _ := virtualRun(t, g, Config{Concurrency: 4, Nemesis: nopNemesis{}})
	rec := &recorder{}
	if _, err := Run(context.Background(), g, Config{Concurrency: 4, Nemesis: nopNemesis{},
		Client: factory(&workerLog{}, nil), Record: rec.record}); err != nil {
		t.Fatal(err)
	}
	testhist.WellFormed(t, rec.ops)
	if v, r := count(vops), count(rec.ops); !reflect.DeepEqual(v, r) {
		t.Fatalf("virtual %v\nreal    %v", v, r)
	}
}

func TestRealWorkersAreClosed(t *testing.T) {
	log := &workerLog{}
	_, err := Run(context.Background(), Limit(20, rep("a")), Config{Concurrency: 3, Client: factory(log, nil)})
	if err != nil {
		t.Fatal(err)
	}
	opens, closes := 0, 0
	for _, e := range log.list() {
		if strings.HasPrefix(e, "open") {
			opens++
		} else {
			closes++
		}
	}
	if opens == 0 || opens != closes {
		t.Fatalf("%d opens, %d closes: %q", opens, closes, log.list())
	}
}

func TestRealSleepAndFutureOps(t *testing.T) {
	rec := &recorder{}
	var logged []string
	g := Seq(Op(opF("a")), Log("slept"), Sleep(20*time.Millisecond), Op(history.Op{F: "b", Time: int64(30 * time.Millisecond)}))
	_, err := Run(context.Background(), g, Config{Concurrency: 1, Client: factory(&workerLog{}, nil),
		Record: rec.record, Log: func(m string) { logged = append(logged, m) }})
	if err != nil {
		t.Fatal(err)
	}
	testhist.WellFormed(t, rec.ops)
	if len(rec.ops) != 4 || !slices.Equal(logged, []string{"slept"}) {
		t.Fatalf("ops %+v, logged %q", rec.ops, logged)
	}
	// Lower bounds only: a sleep and a due time are never cut short.
	if b := rec.ops[2]; b.F != "b" || b.Time < rec.ops[1].Time+int64(20*time.Millisecond) || b.Time < int64(30*time.Millisecond) {
		t.Fatalf("b invoked at %v, before the sleep ended or before its due time", time.Duration(b.Time))
	}
}

// ctxWorker blocks until its context is cancelled, as a well-behaved client
// does when its op times out.
type ctxWorker struct{ cancelled, closed chan struct{} }

func (w *ctxWorker) Invoke(ctx context.Context, _ history.Op) history.Op {
	<-ctx.Done()
	close(w.cancelled)
	return history.Op{Type: history.Info, Error: ctx.Err().Error()}
}

func (w *ctxWorker) Close() error { close(w.closed); return nil }

func TestRealTimeoutCancelsWorkerContext(t *testing.T) {
	w := &ctxWorker{cancelled: make(chan struct{}), closed: make(chan struct{})}
	sum, err := Run(context.Background(), Op(opF("a")), Config{Concurrency: 1, OpTimeout: 10 * time.Millisecond,
		Client: func(int, int) (Worker, error) { return w, nil }})
	if err != nil || sum.Info != 1 {
		t.Fatalf("sum %+v, err %v", sum, err)
	}
	// The abandoned worker is told through its context and then closed. The
	// generous bound only turns a broken implementation into a failure
	// instead of a hang.
	for _, ch := range []chan struct{}{w.cancelled, w.closed} {
		select {
		case <-ch:
		case <-time.After(10 * time.Second):
			t.Fatal("the timed-out worker's context was not cancelled or it was never closed")
		}
	}
}
