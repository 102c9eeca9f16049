package gen

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/faultline/faultline/history"
	"github.com/faultline/faultline/internal/testhist"
)

func TestUnfold(t *testing.T) {
	calls := 0
	g := Unfold("pairs", func(*Context) (Generator, bool, error) {
		if calls++; calls > 2 {
			return nil, true, nil
		}
		return Seq(Op(opF("a")), Op(opF("b"))), false, nil
	})
	cfg := Config{Concurrency: 1}
	ops, _ := virtualRun(t, g, cfg)
	if got, want := testhist.Brief(ops), "0:0:a 10:0:b 20:0:a 30:0:b"; got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	// The calls happen while the run asks for ops, not when g is built.
	if calls != 3 {
		t.Fatalf("next was called %d times, want 3 (two results and the end)", calls)
	}
}

func TestUnfoldLimited(t *testing.T) {
	g := Limit(3, Unfold("ones", func(*Context) (Generator, bool, error) { return Op(opF("w")), false, nil }))
	ops, _ := virtualRun(t, g, Config{Concurrency: 1})
	if got, want := testhist.Brief(ops), "0:0:w 10:0:w 20:0:w"; got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

func TestCallbackErrorsFailTheRun(t *testing.T) {
	boom := errors.New("boom")
	cases := []struct {
		name string
		g    Generator
		want string
	}{
		{"unfold error", Unfold("f", func(*Context) (Generator, bool, error) { return nil, false, boom }), "boom"},
		{"unfold empty", Unfold("generator function empty", func(*Context) (Generator, bool, error) { return Seq(), false, nil }),
			"generator function empty returned 1000 exhausted generators in a row"},
		{"map", MapContext(func(*Context, history.Op) (history.Op, error) { return history.Op{}, boom }, Op(opF("a"))), "boom"},
		{"filter", FilterContext(func(*Context, history.Op) (bool, error) { return false, boom }, Op(opF("a"))), "boom"},
		{"on threads", OnThreadsContext(func(*Context, int) (bool, error) { return false, boom }, Nemesis(Op(opF("a")))), "boom"},
	}
	for _, c := range cases {
		_, err := Run(context.Background(), c.g, Config{Concurrency: 1, Virtual: true, Nemesis: nopNemesis{}, Client: factory(&workerLog{}, nil)})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want one containing %q", c.name, err, c.want)
		}
	}
}

func TestContextCallbacks(t *testing.T) {
	g := Limit(3, OnThreadsContext(func(_ *Context, th int) (bool, error) { return th == 1, nil },
		MapContext(func(_ *Context, op history.Op) (history.Op, error) { op.F += "!"; return op, nil },
			FilterContext(func(_ *Context, op history.Op) (bool, error) { return op.F != "skip", nil },
				Cycle(Seq(Op(opF("a")), Op(opF("skip"))))))))
	ops, _ := virtualRun(t, g, Config{Concurrency: 2})
	if got, want := testhist.Brief(ops), "0:1:a! 10:1:a! 20:1:a!"; got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}
