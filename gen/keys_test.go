package gen

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/history"
)

// keyBrief is the invocations of a history as "time:process:f@key", times in
// milliseconds.
func keyBrief(ops []history.Op) string {
	var b []string
	for _, op := range invocations(ops) {
		b = append(b, fmt.Sprintf("%d:%d:%s@%v", op.Time/int64(time.Millisecond), op.Process, op.F, op.Key))
	}
	return strings.Join(b, " ")
}

// perKey is a key's generator of n ops named f.
func perKey(n int64, f string) func(*Context, any) (Generator, error) {
	return func(*Context, any) (Generator, error) { return Limit(n, rep(f)), nil }
}

func TestConcurrentKeysScheduling(t *testing.T) {
	ms := time.Millisecond
	cases := []struct {
		name    string
		g       Generator
		conc    int
		nemesis bool
		latency map[string]time.Duration
		want    string
	}{
		// Two groups of two threads: every thread busy at once, each group on
		// its own key, and a group takes the next key when its key's two ops
		// are given out.
		{name: "threads per key and rotation", g: Limit(8, ConcurrentKeys(2, nil, perKey(2, "w"))), conc: 4,
			want: "0:0:w@0 0:1:w@0 0:2:w@1 0:3:w@1 10:0:w@2 10:1:w@2 10:2:w@3 10:3:w@3"},
		// A key's generator that gives three ops to two threads: the third
		// op waits for a thread of the same group, never borrows another
		// group's, and the group's other thread starts the next key.
		{name: "a key stays in its group", g: Limit(8, ConcurrentKeys(2, nil, perKey(3, "w"))), conc: 4,
			want: "0:0:w@0 0:1:w@0 0:2:w@1 0:3:w@1 10:0:w@0 10:1:w@2 10:2:w@1 10:3:w@3"},
		// One thread per key: every thread its own key.
		{name: "one thread per key", g: Limit(3, ConcurrentKeys(1, nil, perKey(1, "r"))), conc: 3,
			want: "0:0:r@0 0:1:r@1 0:2:r@2"},
		// A finite key list: when the keys run out the groups stop, and the
		// generator is exhausted once every key's ops are done.
		{name: "keys run out", g: ConcurrentKeys(2, []any{"a", "b", "c"}, perKey(2, "w")), conc: 4,
			want: "0:0:w@a 0:1:w@a 0:2:w@b 0:3:w@b 10:0:w@c 10:1:w@c"},
		// A slow op holds its thread; the group's other thread carries on with
		// the key, and rotation happens as soon as the key's ops are given.
		{name: "busy thread", g: Limit(5, ConcurrentKeys(2, nil, func(*Context, any) (Generator, error) {
			return Seq(Op(opF("slow")), Op(opF("w")), Op(opF("w"))), nil
		})), conc: 2, latency: map[string]time.Duration{"slow": 50 * ms},
			want: "0:0:slow@0 0:1:w@0 10:1:w@0 20:1:slow@1 50:0:w@1"},
		// Groups are fixed by thread number: with only threads 0 and 1
		// allowed, group 0 does all the work and group 1 never takes a key.
		{name: "groups by thread number", g: OnThreads(func(t int) bool { return t < 2 }, Limit(4, ConcurrentKeys(2, nil, perKey(2, "w")))), conc: 4,
			want: "0:0:w@0 0:1:w@0 10:0:w@1 10:1:w@1"},
		// The nemesis is never given a keyed op.
		{name: "nemesis left alone", g: Limit(4, ConcurrentKeys(2, nil, perKey(2, "w"))), conc: 2, nemesis: true,
			want: "0:0:w@0 0:1:w@0 10:0:w@1 10:1:w@1"},
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
			ops, _ := virtualRun(t, c.g, cfg)
			if got := keyBrief(ops); got != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
		})
	}
}

// A key's generator sees the completions of its own key only: UntilOK on a
// key whose first op fails retries on that key, and the completion of the old
// key arriving after the group moved on does not end the new key early.
func TestConcurrentKeysRoutesEventsByKey(t *testing.T) {
	count := 0
	respond := func(op history.Op) history.Op {
		count++
		if count == 1 {
			return history.Op{Type: history.Fail}
		}
		return history.Op{Type: history.OK}
	}
	g := Limit(4, ConcurrentKeys(1, nil, func(*Context, any) (Generator, error) { return UntilOK(rep("w")), nil }))
	ops, _ := virtualRun(t, g, Config{Concurrency: 1, Client: factory(&workerLog{}, respond)})
	if got, want := keyBrief(ops), "0:0:w@0 10:0:w@0 20:0:w@1 30:0:w@2"; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// Threads that do not split into whole groups fail the run with an error
// that says what to change, as Jepsen refuses the same.
func TestConcurrentKeysUnevenThreads(t *testing.T) {
	_, err := Run(context.Background(), ConcurrentKeys(2, nil, perKey(1, "w")),
		Config{Concurrency: 3, Virtual: true, Seed: 1, Client: factory(&workerLog{}, nil), Record: func(history.Op) error { return nil }})
	if err == nil || !strings.Contains(err.Error(), "multiple of 2") {
		t.Fatalf("err = %v, want one naming a multiple of 2", err)
	}
}

// An error from the key's generator function fails the run.
func TestConcurrentKeysGenError(t *testing.T) {
	_, err := Run(context.Background(), ConcurrentKeys(1, nil, func(*Context, any) (Generator, error) {
		return nil, fmt.Errorf("no generator for you")
	}), Config{Concurrency: 1, Virtual: true, Seed: 1, Client: factory(&workerLog{}, nil), Record: func(history.Op) error { return nil }})
	if err == nil || !strings.Contains(err.Error(), "no generator for you") {
		t.Fatalf("err = %v", err)
	}
}
