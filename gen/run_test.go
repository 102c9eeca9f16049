package gen

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/history"
	"github.com/faultline/faultline/internal/testhist"
)

func TestMixIsSeededAndUsesEveryGenerator(t *testing.T) {
	g := Limit(200, Mix(rep("a"), rep("b"), rep("c")))
	fs := func(seed uint64) string {
		ops, _ := virtualRun(t, g, Config{Seed: seed})
		var b strings.Builder
		for _, op := range invocations(ops) {
			b.WriteString(op.F)
		}
		return b.String()
	}
	one, again, other := fs(1), fs(1), fs(2)
	if one != again {
		t.Fatal("same seed gave different mixes")
	}
	if one == other {
		t.Fatal("different seeds gave the same mix")
	}
	for _, f := range []string{"a", "b", "c"} {
		if n := strings.Count(one, f); n < 40 {
			t.Errorf("%s picked %d times of 200; want about a third", f, n)
		}
	}
}

func TestStaggerSpacing(t *testing.T) {
	const n, dt = 400, 10 * time.Millisecond
	ops, _ := virtualRun(t, Limit(n, Stagger(dt, rep("a"))), Config{Concurrency: 10})
	inv := invocations(ops)
	if len(inv) != n {
		t.Fatalf("%d ops, want %d", len(inv), n)
	}
	for i := 1; i < len(inv); i++ {
		if gap := inv[i].Time - inv[i-1].Time; gap < 0 || gap >= int64(2*dt) {
			t.Fatalf("gap %d is %v, want within [0, %v)", i, time.Duration(gap), 2*dt)
		}
	}
	// The mean gap of uniform [0, 2dt) draws is dt; 400 draws land well
	// within ±20%. Simulated time, seeded: this is exact, not flaky.
	mean := time.Duration((inv[n-1].Time - inv[0].Time) / (n - 1))
	if mean < 8*time.Millisecond || mean > 12*time.Millisecond {
		t.Fatalf("mean gap %v, want about %v", mean, dt)
	}
}

func TestLogAndSleepAreNotRecorded(t *testing.T) {
	var logged []string
	ops, _ := virtualRun(t, Seq(Log("hello"), Sleep(time.Second), Op(opF("a"))), Config{
		Concurrency: 1,
		Log:         func(m string) { logged = append(logged, m) },
	})
	if !slices.Equal(logged, []string{"hello"}) {
		t.Fatalf("logged %q", logged)
	}
	if got := testhist.Brief(ops); got != "1000:0:a" {
		t.Fatalf("got %s, want the op after the 1s sleep", got)
	}
	if len(ops) != 2 {
		t.Fatalf("%d ops recorded, want the invocation and its completion", len(ops))
	}
}

func TestNodesEpochsAndCompletionFields(t *testing.T) {
	g := Any(Clients(Limit(4, Repeat(Op(history.Op{F: "w", Key: "k", Value: int64(1)})))),
		Nemesis(Seq(Op(opF("start")), Op(opF("stop")))))
	ops, sum := virtualRun(t, g, Config{
		Concurrency: 3,
		Nodes:       []string{"n1", "n2"},
		Nemesis:     nopNemesis{},
		Latency:     latencyByF(map[string]time.Duration{"start": 15 * time.Millisecond}),
	})
	wantNode := map[int]string{0: "n1", 1: "n2", 2: "n1", history.NemesisProcess: ""}
	for _, op := range ops {
		if op.Node != wantNode[op.Process] {
			t.Errorf("process %d on node %q, want %q", op.Process, op.Node, wantNode[op.Process])
		}
		if op.Process != history.NemesisProcess && op.Type != history.Invoke && (op.Key != "k" || op.Value != int64(1)) {
			t.Errorf("completion %+v lost key or value", op)
		}
	}
	// start completes (info) at 15ms: ops before it are epoch 0 and ops after
	// it epoch 1, including stop's completion, which counts only the events
	// before it. Types print as their first letter (invoke and info are "i").
	var epochs []string
	for _, op := range ops {
		epochs = append(epochs, fmt.Sprintf("%d%s%d", op.Time/int64(time.Millisecond), op.Type[:1], op.FaultEpoch))
	}
	want := "0i0 0i0 0i0 0i0 10o0 10o0 10o0 10i0 15i0 15i1 20o1 25i1"
	if got := strings.Join(epochs, " "); got != want {
		t.Fatalf("time/type/epoch:\n got %s\nwant %s", got, want)
	}
	if sum.Invoked != 4 || sum.OK != 4 || sum.Nemesis != 2 {
		t.Fatalf("summary %+v", sum)
	}
}

func TestCrashMovesThreadToNewProcessWithFreshWorker(t *testing.T) {
	log := &workerLog{}
	calls := 0
	respond := func(history.Op) history.Op {
		calls++
		if calls == 1 {
			return history.Op{Type: history.Info, Error: "connection reset"}
		}
		return history.Op{Type: history.OK}
	}
	ops, sum := virtualRun(t, Limit(3, rep("a")), Config{Concurrency: 2, Client: factory(log, respond)})
	if got, want := testhist.Brief(ops), "0:0:a 0:1:a 10:2:a"; got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
	if sum.Info != 1 || sum.OK != 2 {
		t.Fatalf("summary %+v", sum)
	}
	if got, want := log.list(), []string{"open 0/0", "close 0/0", "open 1/1", "open 0/2", "close 0/2", "close 1/1"}; !slices.Equal(got, want) {
		t.Fatalf("worker lifecycle %q, want %q", got, want)
	}
}

func TestFactoryErrorFailsWithNoClient(t *testing.T) {
	opens := 0
	f := func(thread, process int) (Worker, error) {
		opens++
		if opens == 1 {
			return nil, errors.New("connection refused")
		}
		return &memWorker{log: &workerLog{}}, nil
	}
	ops, sum := virtualRun(t, Limit(2, rep("a")), Config{Concurrency: 1, Client: f})
	if ops[1].Type != history.Fail || !reflect.DeepEqual(ops[1].Error, []any{"no-client", "connection refused"}) {
		t.Fatalf("first completion %+v, want fail [no-client ...]", ops[1])
	}
	if ops[2].Process != 0 || ops[3].Type != history.OK {
		t.Fatalf("a fail must keep the process and the next op must open a client: %+v", ops)
	}
	if sum.Fail != 1 || sum.OK != 1 || opens != 2 {
		t.Fatalf("summary %+v, opens %d", sum, opens)
	}
}

func TestPanickingWorkerAndFactory(t *testing.T) {
	f := func(thread, process int) (Worker, error) {
		if process == 0 {
			panic("factory boom")
		}
		return &memWorker{log: &workerLog{}, respond: func(history.Op) history.Op { panic("invoke boom") }}, nil
	}
	ops, _ := virtualRun(t, Limit(2, rep("a")), Config{Concurrency: 2, Client: f})
	var errs []string
	for _, op := range ops {
		if op.Type != history.Invoke {
			errs = append(errs, fmt.Sprintf("%s %v", op.Type, op.Error))
		}
	}
	want := []string{"fail [no-client worker factory panicked: factory boom]", "info indeterminate: worker panicked: invoke boom"}
	if !slices.Equal(errs, want) {
		t.Fatalf("completions %q, want %q", errs, want)
	}
}

func TestVirtualTimeout(t *testing.T) {
	log := &workerLog{}
	ops, sum := virtualRun(t, Limit(2, rep("slow")), Config{
		Concurrency: 1,
		OpTimeout:   time.Second,
		Client:      factory(log, nil),
		Latency:     latencyByF(map[string]time.Duration{"slow": time.Hour}),
	})
	if ops[1].Type != history.Info || ops[1].Error != "timeout" || ops[1].Time != int64(time.Second) {
		t.Fatalf("completion %+v, want info timeout at 1s", ops[1])
	}
	if ops[2].Process != 1 || sum.Info != 2 {
		t.Fatalf("after a timeout the thread must move to process 1: %+v", ops)
	}
	if got := log.list(); !slices.Equal(got, []string{"open 0/0", "close 0/0", "open 0/1", "close 0/1"}) {
		t.Fatalf("worker lifecycle %q", got)
	}
}

func TestDeterministicHistory(t *testing.T) {
	g := Phases(
		TimeLimit(2*time.Second, Any(
			Clients(Stagger(5*time.Millisecond, Mix(
				FromFunc(func(ctx *Context) history.Op {
					return history.Op{F: "write", Key: ctx.Rand.IntN(4), Value: ctx.Rand.Int64N(100)}
				}),
				FromFunc(func(ctx *Context) history.Op { return history.Op{F: "read", Key: ctx.Rand.IntN(4)} }),
			))),
			Nemesis(Cycle(Seq(Sleep(300*time.Millisecond), Op(opF("start")), Sleep(200*time.Millisecond), Op(opF("stop"))))),
		)),
		Nemesis(Op(opF("heal"))),
	)
	respond := func(op history.Op) history.Op {
		if op.F == "write" && op.Value.(int64)%7 == 0 {
			return history.Op{Type: history.Info, Error: "lost"}
		}
		return history.Op{Type: history.OK, Value: op.Value}
	}
	encode := func(seed uint64) []byte {
		ops, _ := virtualRun(t, g, Config{Seed: seed, Concurrency: 5, Nodes: []string{"a", "b", "c"},
			Nemesis: nopNemesis{}, Latency: uniformLatency, Client: factory(&workerLog{}, respond)})
		b, err := json.Marshal(ops)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	one, again, other := encode(42), encode(42), encode(43)
	if string(one) != string(again) {
		t.Fatal("the same seed gave different histories")
	}
	if string(one) == string(other) {
		t.Fatal("different seeds gave the same history")
	}
	if len(one) < 10000 {
		t.Fatalf("history is only %d bytes; the test is not exercising much", len(one))
	}
}

func TestOpLimitAndStats(t *testing.T) {
	stats := &Stats{}
	_, sum := virtualRun(t, Any(Clients(rep("a")), Nemesis(Repeat(Op(opF("n"))))), Config{
		Concurrency: 4, OpLimit: 50, Stats: stats, Nemesis: nopNemesis{},
	})
	if sum.Invoked != 50 || sum.OK != 50 || stats.Invoked.Load() != 50 || stats.OK.Load() != 50 {
		t.Fatalf("summary %+v, stats invoked %d ok %d", sum, stats.Invoked.Load(), stats.OK.Load())
	}
	if last := stats.LastNemesis(); last == nil || last.F != "n" || last.Type != history.Info {
		t.Fatalf("last nemesis %+v", last)
	}
	if sum.Cancelled {
		t.Fatal("an op limit is not a cancellation")
	}
}

func TestGeneratorThatCanNeverProceed(t *testing.T) {
	// Mix drops updates, so the limit never sees its op complete.
	g := Mix(ConcurrencyLimit(1, rep("a")))
	_, err := Run(context.Background(), g, Config{Concurrency: 2, Virtual: true, Client: factory(&workerLog{}, nil)})
	if err == nil || !strings.Contains(err.Error(), "never proceed") {
		t.Fatalf("err = %v, want a can-never-proceed error", err)
	}
}

func TestBadOpsFromGenerators(t *testing.T) {
	cases := []struct {
		name string
		g    Generator
		want string
	}{
		{"busy process", FromFunc(func(*Context) history.Op { return opF("a") }), ""},
		{"process changed", Map(func(op history.Op) history.Op { op.Process = 7; return op }, Op(opF("a"))), "process 7"},
		{"type", Map(func(op history.Op) history.Op { op.Type = history.OK; return op }, Op(opF("a"))), `type "ok"`},
		{"panic", Map(func(history.Op) history.Op { panic("map boom") }, Op(opF("a"))), "panic in the interpreter loop: map boom"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := c.g
			if c.want == "" {
				g = Limit(5, g)
			}
			_, err := Run(context.Background(), g, Config{Concurrency: 2, Virtual: true, Client: factory(&workerLog{}, nil)})
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("err = %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("err = %v, want one mentioning %q", err, c.want)
			}
		})
	}
}

func TestRecordErrorStopsTheRun(t *testing.T) {
	n := 0
	boom := errors.New("disk full")
	for _, virtual := range []bool{true, false} {
		_, err := Run(context.Background(), rep("a"), Config{
			Concurrency: 2, Virtual: virtual, Client: factory(&workerLog{}, nil),
			Record: func(history.Op) error {
				if n++; n > 5 {
					return boom
				}
				return nil
			},
		})
		if !errors.Is(err, boom) {
			t.Fatalf("virtual=%v: err = %v, want the record error", virtual, err)
		}
		n = 0
	}
}

func TestConfigErrors(t *testing.T) {
	for _, cfg := range []Config{{Concurrency: 0, Client: factory(&workerLog{}, nil)}, {Concurrency: 1}} {
		if _, err := Run(context.Background(), nil, cfg); err == nil {
			t.Errorf("Run accepted %+v", cfg)
		}
	}
}

// randEnv is an Env that keeps the stream Run starts it with.
type randEnv struct{ r *rand.Rand }

func (e *randEnv) Start(r *rand.Rand) { e.r = r }

func TestEnvStartedWithTheGeneratorStream(t *testing.T) {
	env := &randEnv{}
	var seen []bool
	g := Limit(2, MapContext(func(ctx *Context, op history.Op) (history.Op, error) {
		seen = append(seen, ctx.Env == Env(env) && ctx.Rand == env.r)
		return op, nil
	}, rep("a")))
	_, err := Run(context.Background(), g, Config{Concurrency: 1, Virtual: true, Client: factory(&workerLog{}, nil), Env: env})
	if err != nil {
		t.Fatal(err)
	}
	if env.r == nil {
		t.Fatal("Run did not start the Env with the generators' seeded rand")
	}
	if len(seen) != 2 || !seen[0] || !seen[1] {
		t.Fatalf("callbacks saw Context.Env/Rand = %v, want the run's Env and its stream", seen)
	}
}

func TestVirtualCancellation(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	n := 0
	sum, err := Run(ctx, Any(Clients(rep("a")), Nemesis(Cycle(Seq(Sleep(time.Second), Op(opF("n")))))), Config{
		Concurrency: 2, Virtual: true, Nemesis: nopNemesis{}, Client: factory(&workerLog{}, nil),
		Record: func(op history.Op) error {
			if n++; n == 50 {
				cancel()
			}
			return nil
		},
	})
	if err != nil || !sum.Cancelled {
		t.Fatalf("sum %+v, err %v", sum, err)
	}
	if sum.Invoked != sum.OK {
		t.Fatalf("outstanding ops were not drained: %+v", sum)
	}
}
