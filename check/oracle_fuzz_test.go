package check

import (
	"context"
	"testing"

	"github.com/faultline/faultline/history"
)

// oracleValues are the shapes the oracles meet, well-formed or not.
var oracleValues = []any{
	nil, int64(1), int64(2), -1.5, "a", history.Keyword("b"),
	[]any{int64(1), int64(2)}, history.Set{int64(2)},
	map[string]any{"0": int64(10), "1": int64(-3)}, map[string]any{"x": int64(1), "order": "o1"},
	[]any{map[string]any{"order": "o1"}},
}

// oracleHistory turns bytes into a well-formed history over three processes,
// with every oracle's functions, keys, nodes, groups and arbitrary values.
func oracleHistory(data []byte) []history.Op {
	fs := []string{"add", "read", "enqueue", "dequeue", "drain", "generate", "transfer", "write", "dump", "pay"}
	var h []history.Op
	var open [3]*history.Op
	for i, b := range data {
		p := int(b % 3)
		v := oracleValues[int(b>>2)%len(oracleValues)]
		op := history.Op{Index: int64(len(h)), Time: int64(i) * 1_000_000, Process: p, Value: v,
			Node: [...]string{"n1", "n2"}[b>>7], Extra: map[string]any{"tenant": int64(b >> 6), "order": int64(b >> 5)}}
		if b&0x40 != 0 {
			op.Key = [...]string{"x", "y"}[b>>5&1]
		}
		if open[p] == nil {
			op.Type, op.F = history.Invoke, fs[int(b>>3)%len(fs)]
			h = append(h, op)
			open[p] = &h[len(h)-1]
			continue
		}
		op.Type = [...]history.Type{history.OK, history.OK, history.Fail, history.Info}[b>>4%4]
		op.F, op.Key = open[p].F, open[p].Key
		h = append(h, op)
		open[p] = nil
	}
	return h
}

// allOracles builds one of every oracle checker.
func allOracles(t testing.TB) []Checker {
	rate := 0.5
	eo, err1 := ExactlyOnce(ExactlyOnceOptions{Key: "order"})
	slo, err2 := SLO(SLOOptions{P99: 1, ErrorRate: &rate, Window: 3_000_000})
	fair, err3 := Fairness(FairnessOptions{Group: "tenant", MaxP99Ratio: 2, MaxErrorRate: &rate, Repeat: "order", MaxSpread: 1})
	fs, err4 := FinalState(FinalStateOptions{Predicate: func(any) (bool, string, error) { return false, "never", nil }})
	for _, err := range []error{err1, err2, err3, err4} {
		if err != nil {
			t.Fatal(err)
		}
	}
	return []Checker{Set(), SetFull(SetFullOptions{Linearizable: true}), Counter(), Bank(BankOptions{Total: 7}), UniqueIDs(),
		Queue(), TotalQueue(), NoLostAck(NoLostAckOptions{}), MonotonicReads(SessionOptions{}), ReadYourWrites(SessionOptions{}),
		eo, slo, fair, fs, Replicas(ReplicasOptions{})}
}

// FuzzOracles: on any well-formed history every oracle returns a verdict it
// can back: valid only over consumed ops, invalid only with an explanation,
// the same result twice, and never a panic.
func FuzzOracles(f *testing.F) {
	f.Add([]byte{0x00, 0x03, 0x08, 0x0b, 0x41, 0x44, 0x90, 0x93})
	f.Add([]byte{0x10, 0x13, 0x18, 0x1b, 0x28, 0x2b, 0xc0, 0xc3, 0x40, 0x43})
	cs := allOracles(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 200 {
			return
		}
		h := oracleHistory(data)
		for _, c := range cs {
			res := c.Check(context.Background(), h, Env{})
			switch {
			case res.Valid == Valid && res.Consumed.Ops == 0:
				t.Fatalf("%s: valid over no ops: %s", c.Name(), res.Summary)
			case res.Valid == Invalid && res.Explanation == "" && res.Checker != "final-state":
				t.Fatalf("%s: unexplained failure: %s", c.Name(), res.Summary)
			case res.Checker != c.Name() || res.Summary == "":
				t.Fatalf("%s: result names %q, summary %q", c.Name(), res.Checker, res.Summary)
			}
			if again := c.Check(context.Background(), h, Env{}); again.Valid != res.Valid || again.Summary != res.Summary {
				t.Fatalf("%s: not deterministic: %s vs %s", c.Name(), res.Summary, again.Summary)
			}
		}
	})
}

// BenchmarkOracles runs every oracle over one 20,000-op history.
func BenchmarkOracles(b *testing.B) {
	data := make([]byte, 20_000)
	x := uint32(1)
	for i := range data {
		x = x*1664525 + 1013904223
		data[i] = byte(x >> 24)
	}
	h := oracleHistory(data)
	for _, c := range allOracles(b) {
		b.Run(c.Name(), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				c.Check(context.Background(), h, Env{})
			}
		})
	}
}
