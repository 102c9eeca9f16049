package gen

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/history"
	"github.com/faultline/faultline/internal/testhist"
)

// ev is a Scheduled event at ms milliseconds on thread (NemesisThread for the
// nemesis) invoking f.
func ev(ms float64, thread int, f string) Scheduled {
	return Scheduled{At: time.Duration(ms * float64(time.Millisecond)), Thread: thread, Op: history.Op{F: f}}
}

func TestScheduleReplaysThreadsAndTimes(t *testing.T) {
	const n = NemesisThread
	cases := []struct {
		name   string
		events []Scheduled
		fast   bool
		want   string // testhist.Brief(): ms:process:f, in recorded order
	}{
		{"recorded threads and times",
			[]Scheduled{ev(0, 0, "a"), ev(5, 1, "b"), ev(7, n, "start"), ev(20, 0, "c"), ev(30, 1, "d"), ev(31, n, "stop")},
			false, "0:0:a 5:1:b 7:n:start 20:0:c 30:1:d 31:n:stop"},
		{"a busy thread delays its next op, others go on",
			[]Scheduled{ev(0, 0, "a"), ev(2, 0, "b"), ev(3, 1, "c"), ev(4, 0, "d")},
			false, "0:0:a 3:1:c 10:0:b 20:0:d"},
		{"equal times keep recorded order across threads",
			[]Scheduled{ev(1, 1, "x"), ev(1, 0, "y"), ev(1, n, "z")},
			false, "1:1:x 1:0:y 1:n:z"},
		{"a late op of one thread does not hold back another",
			[]Scheduled{ev(50, 0, "late"), ev(1, 1, "early")},
			false, "1:1:early 50:0:late"},
		{"as fast as possible ignores times, keeps per-thread order",
			[]Scheduled{ev(0, 0, "a"), ev(5, 1, "b"), ev(7, n, "start"), ev(20, 0, "c"), ev(30, 1, "d"), ev(31, n, "stop")},
			true, "0:0:a 0:1:b 0:n:start 10:0:c 10:1:d 10:n:stop"},
		{"as fast as possible lets a free thread overtake a busy one",
			[]Scheduled{ev(0, 0, "a"), ev(0, 0, "b"), ev(0, 1, "c"), ev(0, 1, "d"), ev(0, 1, "e")},
			true, "0:0:a 0:1:c 10:0:b 10:1:d 20:1:e"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ops, sum := virtualRun(t, Schedule(c.events, ScheduleOptions{AsFastAsPossible: c.fast}),
				Config{Concurrency: 2, Nemesis: nopNemesis{}})
			if got := testhist.Brief(ops); got != c.want {
				t.Fatalf("got  %s\nwant %s", got, c.want)
			}
			// Exhausted after the last event: every event ran exactly once
			// and the run ended with its completion.
			if got := int(sum.Invoked + sum.Nemesis); got != len(c.events) {
				t.Fatalf("%d ops invoked, want %d", got, len(c.events))
			}
			if last := ops[len(ops)-1]; sum.Duration != time.Duration(last.Time) {
				t.Fatalf("run lasted %v after its last completion at %v", sum.Duration, time.Duration(last.Time))
			}
		})
	}
}

// An op keeps its recorded key and value, and a thread whose process crashed
// runs its next op as the new process.
func TestScheduleCarriesValuesAcrossCrashes(t *testing.T) {
	grudge := map[string]any{"n1": []any{"n2"}}
	events := []Scheduled{
		{At: 0, Thread: 0, Op: history.Op{F: "write", Key: "k", Value: int64(3)}},
		{At: 0, Thread: NemesisThread, Op: history.Op{F: "start-partition", Value: grudge}},
		{At: time.Millisecond, Thread: 0, Op: history.Op{F: "read", Key: "k"}},
	}
	first := true
	crashFirst := func(op history.Op) history.Op {
		if first {
			first = false
			return history.Op{Type: history.Info, Error: "connection reset"}
		}
		return history.Op{Type: history.OK, Value: op.Value}
	}
	ops, _ := virtualRun(t, Schedule(events, ScheduleOptions{}),
		Config{Concurrency: 2, Nemesis: nopNemesis{}, Client: factory(&workerLog{}, crashFirst)})
	inv := invocations(ops)
	if got := testhist.Brief(ops); got != "0:0:write 0:n:start-partition 10:2:read" {
		t.Fatalf("got %s; the read should wait for the write and run as process 2", got)
	}
	if inv[0].Key != "k" || inv[0].Value != int64(3) || !reflect.DeepEqual(inv[1].Value, grudge) {
		t.Fatalf("values not carried: %+v", inv[:2])
	}
}

func TestScheduleEmptyIsExhausted(t *testing.T) {
	ops, sum := virtualRun(t, Schedule(nil, ScheduleOptions{}), Config{})
	if len(ops) != 0 || sum.Duration != 0 {
		t.Fatalf("empty schedule ran %d ops for %v", len(ops), sum.Duration)
	}
}

func TestScheduleFailsOnAMissingThread(t *testing.T) {
	cases := []struct {
		name  string
		event Scheduled
		want  string
	}{
		{"no nemesis in this run", ev(0, NemesisThread, "kill"), "thread -1"},
		{"fewer clients than recorded", ev(0, 5, "read"), "thread 5"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Run(context.Background(), Schedule([]Scheduled{c.event}, ScheduleOptions{}),
				Config{Concurrency: 2, Virtual: true, Client: factory(&workerLog{}, nil)})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one naming %s", err, c.want)
			}
		})
	}
}

// The generator is immutable: asking the same state twice gives the same op.
func TestScheduleIsImmutable(t *testing.T) {
	g := Schedule([]Scheduled{ev(0, 0, "a"), ev(1, 0, "b")}, ScheduleOptions{})
	ctx := newContext(1, false, nil)
	op1, next1, st1 := g.Op(ctx)
	op2, _, st2 := g.Op(ctx)
	if st1 != Ready || st2 != Ready || op1.F != "a" || op2.F != "a" {
		t.Fatalf("asking twice gave %v %s and %v %s", st1, op1.F, st2, op2.F)
	}
	if op, _, _ := next1.Op(ctx); op.F != "b" {
		t.Fatalf("successor gave %s, want b", op.F)
	}
}

func BenchmarkScheduleReplay(b *testing.B) {
	events := make([]Scheduled, 10000)
	for i := range events {
		events[i] = ev(float64(i), i%8, "w")
	}
	b.ReportAllocs()
	for b.Loop() {
		virtualRun(b, Schedule(events, ScheduleOptions{AsFastAsPossible: true}), Config{Concurrency: 8})
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(events)), "ns/op-replayed")
}
