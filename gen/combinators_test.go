package gen

import (
	"testing"
	"time"

	"github.com/faultline/faultline/history"
	"github.com/faultline/faultline/internal/testhist"
)

func TestCombinators(t *testing.T) {
	ms := time.Millisecond
	cases := []struct {
		name    string
		g       Generator
		conc    int
		nemesis bool
		latency map[string]time.Duration
		respond func(*int) func(history.Op) history.Op // per-run worker behaviour
		want    string
	}{
		{name: "op", g: Op(opF("a")), want: "0:0:a"},
		{name: "seq", g: Seq(Op(opF("a")), Op(opF("b")), Op(opF("c"))), conc: 1, want: "0:0:a 10:0:b 20:0:c"},
		{name: "once", g: Once(rep("a")), want: "0:0:a"},
		{name: "limit", g: Limit(3, rep("a")), conc: 2, want: "0:0:a 0:1:a 10:0:a"},
		{name: "repeat n", g: RepeatN(3, Op(opF("a"))), conc: 1, want: "0:0:a 10:0:a 20:0:a"},
		{name: "cycle n", g: CycleN(2, Seq(Op(opF("a")), Op(opF("b")))), conc: 1, want: "0:0:a 10:0:b 20:0:a 30:0:b"},
		{name: "cycle endless", g: Limit(5, Cycle(Seq(Op(opF("a")), Op(opF("b"))))), conc: 1, want: "0:0:a 10:0:b 20:0:a 30:0:b 40:0:a"},
		{name: "cycle empty", g: Cycle(Seq()), want: ""},
		{name: "any", g: Any(Limit(2, Delay(100*ms, rep("a"))), Limit(2, rep("b"))), conc: 2, want: "0:0:a 0:1:b 10:0:b 100:1:a"},
		{name: "each thread", g: EachThread(Limit(2, rep("a"))), conc: 3, want: "0:0:a 0:1:a 0:2:a 10:0:a 10:1:a 10:2:a"},
		{name: "clients", g: Clients(Limit(4, rep("a"))), conc: 2, nemesis: true, want: "0:0:a 0:1:a 10:0:a 10:1:a"},
		{name: "nemesis", g: Nemesis(Seq(Op(opF("start")), Op(opF("stop")))), conc: 2, nemesis: true, want: "0:n:start 10:n:stop"},
		{name: "nemesis without nemesis", g: Seq(Nemesis(Op(opF("start"))), Op(opF("a"))), conc: 2, want: "0:0:a"},
		{name: "on threads", g: OnThreads(func(t int) bool { return t%2 == 0 }, Limit(4, rep("a"))), conc: 4, want: "0:0:a 0:2:a 10:0:a 10:2:a"},
		{name: "time limit", g: TimeLimit(50*ms, rep("a")), conc: 1, want: "0:0:a 10:0:a 20:0:a 30:0:a 40:0:a"},
		{name: "delay", g: Limit(4, Delay(30*ms, rep("a"))), conc: 2, want: "0:0:a 30:1:a 60:0:a 90:1:a"},
		{name: "sleep", g: Seq(Op(opF("a")), Sleep(50*ms), Op(opF("b"))), conc: 1, want: "0:0:a 60:0:b"},
		{name: "log", g: Seq(Log("hi"), Op(opF("a"))), conc: 1, want: "0:0:a"},
		{name: "synchronize", g: Seq(Op(opF("a")), Synchronize(Op(opF("b")))), conc: 2, latency: map[string]time.Duration{"a": 50 * ms}, want: "0:0:a 50:1:b"},
		{name: "no synchronize", g: Seq(Op(opF("a")), Op(opF("b"))), conc: 2, latency: map[string]time.Duration{"a": 50 * ms}, want: "0:0:a 0:1:b"},
		{name: "phases", g: Phases(Limit(2, rep("a")), Limit(2, rep("b"))), conc: 2, latency: map[string]time.Duration{"a": 50 * ms}, want: "0:0:a 0:1:a 50:0:b 50:1:b"},
		{name: "then", g: Then(Op(opF("a")), Op(opF("b"))), conc: 2, latency: map[string]time.Duration{"a": 50 * ms}, want: "0:0:a 50:1:b"},
		{name: "flip flop", g: FlipFlop(Seq(Op(opF("a")), Op(opF("a")), Op(opF("a"))), rep("b")), conc: 1, want: "0:0:a 10:0:b 20:0:a 30:0:b 40:0:a 50:0:b"},
		{name: "concurrency limit", g: ConcurrencyLimit(1, Limit(4, rep("a"))), conc: 4, want: "0:0:a 10:1:a 20:2:a 30:3:a"},
		{name: "process limit", g: ProcessLimit(2, Limit(6, rep("a"))), conc: 3, want: "0:0:a 0:1:a 10:0:a 10:1:a 20:0:a 20:1:a"},
		{name: "map", g: Map(func(op history.Op) history.Op { op.F += "!"; return op }, Limit(2, rep("a"))), conc: 1, want: "0:0:a! 10:0:a!"},
		{name: "f map", g: FMap(map[string]string{"start": "start-partition"}, Seq(Op(opF("start")), Op(opF("stop")))), conc: 1, want: "0:0:start-partition 10:0:stop"},
		{name: "reserve", g: Limit(6, Reserve([]ReserveGroup{{1, rep("w")}}, rep("r"))), conc: 3,
			want: "0:0:w 0:1:r 0:2:r 10:0:w 10:1:r 10:2:r"},
		{name: "reserve two groups and nemesis", g: Limit(4, Reserve([]ReserveGroup{{1, rep("w")}, {1, rep("x")}}, rep("r"))),
			conc: 2, nemesis: true, want: "0:0:w 0:1:x 0:n:r 10:0:w"},
		{name: "filter", g: Filter(func(op history.Op) bool { return op.F[1]%2 == 0 },
			Seq(Op(opF("a1")), Op(opF("a2")), Op(opF("a3")), Op(opF("a4")), Op(opF("a5")), Op(opF("a6")))),
			conc: 1, want: "0:0:a2 10:0:a4 20:0:a6"},
		{name: "until ok", g: UntilOK(rep("a")), conc: 1, respond: failTimes(2), want: "0:0:a 10:0:a 20:0:a"},
		{name: "until ok concurrent", g: UntilOK(rep("a")), conc: 2, respond: failTimes(2),
			want: "0:0:a 0:1:a 10:0:a 10:1:a"},
		{name: "from func", g: Limit(3, FromFunc(func(ctx *Context) history.Op { return opF("f") })), conc: 2,
			want: "0:0:f 0:1:f 10:0:f"},
		{name: "list of generators runs in order", g: Seq(Limit(2, rep("a")), Limit(1, rep("b"))), conc: 3,
			want: "0:0:a 0:1:a 0:2:b"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := Config{Concurrency: c.conc}
			if c.nemesis {
				cfg.Nemesis = nopNemesis{}
			}
			if c.latency != nil {
				cfg.Latency = latencyByF(c.latency)
			}
			if c.respond != nil {
				cfg.Client = factory(&workerLog{}, c.respond(new(int)))
			}
			ops, _ := virtualRun(t, c.g, cfg)
			if got := testhist.Brief(ops); got != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
		})
	}
}

// failTimes answers fail to the first n ops of a run and ok afterwards.
func failTimes(n int) func(*int) func(history.Op) history.Op {
	return func(count *int) func(history.Op) history.Op {
		return func(history.Op) history.Op {
			*count++
			if *count <= n {
				return history.Op{Type: history.Fail}
			}
			return history.Op{Type: history.OK}
		}
	}
}

// futureOp is one op due at a fixed time of the run, as a nemesis schedule
// gives (see nemesis's timeline).
type futureOp struct{ at int64 }

func (f futureOp) Op(ctx *Context) (history.Op, Generator, Status) {
	op, _, st := Op(history.Op{Type: history.Invoke, F: "later"}).Op(ctx)
	if st != Ready {
		return op, f, st
	}
	op.Time = max(op.Time, f.at)
	return op, nil, Ready
}

func (f futureOp) Update(*Context, history.Op) Generator { return f }

// A fault scheduled past the time limit must not end the load early: while
// every client thread is busy, Any holds the future op back instead of
// offering it as the next op, at which the limit would stop the run.
func TestAnyHoldsFutureOpWhileThreadsBusy(t *testing.T) {
	g := TimeLimit(2*time.Second, Any(Clients(Repeat(Op(history.Op{Type: history.Invoke, F: "read"}))),
		Nemesis(futureOp{at: int64(5 * time.Second)})))
	ops, _ := virtualRun(t, g, Config{Concurrency: 2, Nemesis: nopNemesis{}})
	last := ops[len(ops)-1].Time
	if last < int64(1900*time.Millisecond) {
		t.Fatalf("the load stopped at %s of a 2s limit", time.Duration(last))
	}
	for _, op := range ops {
		if op.F == "later" {
			t.Fatalf("the op due past the limit ran: %+v", op)
		}
	}
}
