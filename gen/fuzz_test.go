package gen

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/history"
	"github.com/faultline/faultline/internal/testhist"
)

// treeBuilder turns fuzz bytes into a generator tree, so the fuzzer explores
// arbitrary compositions of the algebra.
type treeBuilder struct {
	data  []byte
	nodes int
}

func (b *treeBuilder) next() byte {
	if len(b.data) == 0 {
		return 0
	}
	c := b.data[0]
	b.data = b.data[1:]
	return c
}

func (b *treeBuilder) build(depth int) Generator {
	c := b.next()
	b.nodes++
	if depth > 6 || b.nodes > 40 {
		c %= 4 // leaves only
	}
	k := int64(b.next()%5) + 1
	ms := time.Duration(b.next()%50+1) * time.Millisecond
	f := string(rune('a' + c%4))
	switch c % 32 {
	case 0:
		return Op(opF(f))
	case 1:
		return rep(f)
	case 2:
		return Sleep(ms)
	case 3:
		return FromFunc(func(ctx *Context) history.Op { return history.Op{F: f, Value: ctx.Rand.Int64N(10)} })
	case 4:
		return Once(b.build(depth + 1))
	case 5:
		return Limit(k, b.build(depth+1))
	case 6:
		return RepeatN(k, b.build(depth+1))
	case 7:
		return Cycle(b.build(depth + 1))
	case 8:
		return CycleN(k, b.build(depth+1))
	case 9:
		return EachThread(b.build(depth + 1))
	case 10:
		return Clients(b.build(depth + 1))
	case 11:
		return Nemesis(b.build(depth + 1))
	case 12:
		mask := b.next()
		return OnThreads(func(t int) bool { return mask&(1<<uint(t+1)) != 0 }, b.build(depth+1))
	case 13:
		return Map(func(op history.Op) history.Op { op.F += "'"; return op }, b.build(depth+1))
	case 14:
		return FMap(map[string]string{"a": "b"}, b.build(depth+1))
	case 15:
		return Filter(func(op history.Op) bool { return op.F != "b" }, b.build(depth+1))
	case 16:
		return TimeLimit(ms, b.build(depth+1))
	case 17:
		return Stagger(ms, b.build(depth+1))
	case 18:
		return Delay(ms, b.build(depth+1))
	case 19:
		return Synchronize(b.build(depth + 1))
	case 20:
		return UntilOK(b.build(depth + 1))
	case 21:
		return ConcurrencyLimit(int(k), b.build(depth+1))
	case 22:
		return ProcessLimit(int(k), b.build(depth+1))
	case 23:
		return Any(b.build(depth+1), b.build(depth+1))
	case 24:
		return Mix(b.build(depth+1), b.build(depth+1))
	case 25:
		return Seq(b.build(depth+1), b.build(depth+1))
	case 26:
		return Then(b.build(depth+1), b.build(depth+1))
	case 27:
		return FlipFlop(b.build(depth+1), b.build(depth+1))
	case 28:
		return Phases(b.build(depth+1), b.build(depth+1))
	case 29:
		return Reserve([]ReserveGroup{{Threads: int(k % 3), Gen: b.build(depth + 1)}}, b.build(depth+1))
	case 30:
		return Log(f)
	}
	return nil
}

// FuzzAlgebra runs arbitrary generator trees in virtual mode: whatever the
// tree, Run must not panic, must terminate, and must produce a well-formed
// history (every invocation completed, no process reused while busy or after
// a crash, time monotonic).
func FuzzAlgebra(f *testing.F) {
	f.Add([]byte{5, 3, 0, 1}, uint8(3), true)
	f.Add([]byte{23, 10, 1, 0, 0, 11, 7, 25, 2, 9, 9, 0, 0, 1}, uint8(2), true)
	f.Add([]byte{28, 9, 5, 1, 1, 3, 17, 4, 4, 1, 20, 22, 1, 4, 2}, uint8(4), false)
	f.Add([]byte{24, 21, 1, 3, 1, 29, 2, 2, 1, 1, 1, 0, 1}, uint8(5), true)
	f.Fuzz(func(t *testing.T, data []byte, conc uint8, nemesis bool) {
		b := &treeBuilder{data: data}
		// The time limit ends trees that sleep for ever without recording.
		g := TimeLimit(10*time.Second, b.build(0))
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		events := 0
		tick := func() {
			// Bound the run: some trees (Cycle(Log(..)), say) legitimately
			// never end, and cancellation is the way out.
			if events++; events == 2000 {
				cancel()
			}
		}
		rec := &recorder{}
		cfg := Config{
			Concurrency: int(conc%6) + 1,
			Virtual:     true,
			Seed:        uint64(len(data)),
			Client: factory(&workerLog{}, func(op history.Op) history.Op {
				return history.Op{Type: []history.Type{history.OK, history.Fail, history.Info}[len(op.F)%3]}
			}),
			Record: func(op history.Op) error { tick(); return rec.record(op) },
			Log:    func(string) { tick() },
		}
		if nemesis {
			cfg.Nemesis = nopNemesis{}
		}
		_, err := Run(ctx, g, cfg)
		if err != nil && (strings.Contains(err.Error(), "panic") || !strings.Contains(err.Error(), "never proceed") &&
			!strings.Contains(err.Error(), "filter rejected")) {
			t.Fatalf("Run: %v", err)
		}
		testhist.WellFormed(t, rec.ops)
	})
}
