package txn

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/faultline/faultline/history"
)

// fuzzHistory decodes bytes into a small history of txns over four keys:
// interleaved invocations and completions of every type, appends, writes and
// reads of arbitrary (often impossible) values. Values are usually unique per
// key, but not always, so input errors are exercised too.
func fuzzHistory(data []byte, register bool) []history.Op {
	next := func() byte {
		if len(data) == 0 {
			return 0
		}
		b := data[0]
		data = data[1:]
		return b
	}
	var ops []history.Op
	open := map[int][]any{}
	counter := int64(0)
	for len(data) > 0 {
		b := next()
		p := int(b % 4)
		if inv, ok := open[p]; ok {
			delete(open, p)
			typ := []history.Type{history.OK, history.OK, history.Fail, history.Info}[b>>2%4]
			val := any(inv)
			if typ == history.OK {
				out := make([]any, len(inv))
				for i, m := range inv {
					mm := m.([]any)
					if mm[0] == history.Keyword("r") {
						mm = []any{mm[0], mm[1], fuzzRead(next, register)}
					}
					out[i] = mm
				}
				val = out
			}
			ops = append(ops, history.Op{Process: p, Type: typ, F: "txn", Value: val})
			continue
		}
		n := 1 + int(next()%4)
		txn := make([]any, n)
		for i := range txn {
			c := next()
			k := any(int64(c % 4))
			switch {
			case c&0x10 != 0:
				txn[i] = []any{history.Keyword("r"), k, nil}
			case c&0x20 != 0: // a possibly repeated value
				txn[i] = []any{fuzzWriteF(register), k, int64(c >> 6)}
			default:
				counter++
				txn[i] = []any{fuzzWriteF(register), k, 100 + counter}
			}
		}
		open[p] = txn
		ops = append(ops, history.Op{Process: p, Type: history.Invoke, F: "txn", Value: txn})
	}
	for i := range ops {
		ops[i].Index, ops[i].Time = int64(i), int64(i)
	}
	return ops
}

func fuzzWriteF(register bool) any {
	if register {
		return history.Keyword("w")
	}
	return history.Keyword("append")
}

// fuzzRead makes up a read result: mostly small values, some written ones.
func fuzzRead(next func() byte, register bool) any {
	b := next()
	if register {
		if b%3 == 0 {
			return nil
		}
		return int64(b % 8)
	}
	list := make([]any, int(b%5))
	for i := range list {
		c := next()
		if c&1 == 0 {
			list[i] = int64(100 + int(c>>1)%16)
		} else {
			list[i] = int64(c >> 6)
		}
	}
	return list
}

var fuzzModels = []string{"strict-serializable", "serializable", "snapshot-isolation", "read-committed",
	"strong-session-snapshot-isolation", "repeatable-read", "read-uncommitted"}

// checkInvariants runs Check and verifies what must hold of any result.
func checkInvariants(t *testing.T, ops []history.Op, o Options) {
	t.Helper()
	r, err := Check(context.Background(), ops, o)
	if err != nil {
		return // bad input is reported, not a crash
	}
	forbidden := slices.DeleteFunc(slices.Clone(r.AnomalyTypes), func(a string) bool { return slices.Contains(unknownTypes, a) })
	switch r.Valid {
	case Valid:
		if len(r.AnomalyTypes) != 0 {
			t.Fatalf("valid with anomalies %v", r.AnomalyTypes)
		}
	case Unknown:
		if len(forbidden) != 0 {
			t.Fatalf("unknown with forbidden anomalies %v", r.AnomalyTypes)
		}
	case Invalid:
		if len(forbidden) == 0 {
			t.Fatalf("invalid without forbidden anomalies: %v", r.AnomalyTypes)
		}
	default:
		t.Fatalf("verdict %q", r.Valid)
	}
	for typ, as := range r.Anomalies {
		if len(as) == 0 || r.Counts[typ] < len(as) {
			t.Fatalf("%s: %d cases, count %d", typ, len(as), r.Counts[typ])
		}
		for _, a := range as {
			if len(a.Ops) == 0 && typ != EmptyTransactionGraph || a.Explanation == "" {
				t.Fatalf("empty anomaly %+v", a)
			}
			for _, i := range a.Ops {
				if i < 0 || i >= len(ops) {
					t.Fatalf("op index %d out of range", i)
				}
			}
			isCycle := false
			for _, c := range cycleTypes {
				isCycle = isCycle || c == typ
			}
			if isCycle != (a.DOT != "") || (isCycle && len(a.Ops) < 2) {
				t.Fatalf("%s: DOT %q, ops %v", typ, a.DOT, a.Ops)
			}
		}
	}
}

func FuzzCheck(f *testing.F) {
	f.Add([]byte{0, 1, 2, 0, 1, 0x11, 1, 0, 0x10, 0, 0x30, 5})
	f.Add([]byte{1, 3, 0x01, 0x12, 0x23, 2, 2, 0x10, 0x11, 1, 0x04, 9, 9, 2, 0x08, 0x21})
	f.Add([]byte("a long enough string of bytes to make several interleaved transactions"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		reg := data[0]&1 != 0
		o := Options{Workload: ListAppend, ConsistencyModels: []string{fuzzModels[int(data[0]>>1)%len(fuzzModels)]},
			Process: data[0]&0x40 != 0, Realtime: data[0]&0x80 != 0}
		if reg {
			o.Workload, o.WritesFollowReads = RWRegister, data[0]&0x20 != 0
		}
		if data[0]&0x10 != 0 {
			o.CycleSearchBudget = time.Nanosecond
		}
		checkInvariants(t, fuzzHistory(data[1:], reg), o)
	})
}

// TestRandomHistories runs the fuzz body over many seeded random inputs, so
// plain go test covers far more than the seed corpus.
func TestRandomHistories(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 3000 {
		data := make([]byte, 4+rng.IntN(120))
		for i := range data {
			data[i] = byte(rng.Uint32())
		}
		reg := data[0]&1 != 0
		o := Options{Workload: ListAppend, ConsistencyModels: []string{fuzzModels[int(data[0]>>1)%len(fuzzModels)]},
			Process: data[0]&0x40 != 0, Realtime: data[0]&0x80 != 0}
		if reg {
			o.Workload, o.WritesFollowReads = RWRegister, data[0]&0x20 != 0
		}
		checkInvariants(t, fuzzHistory(data[1:], reg), o)
	}
}
