package history_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"testing"
	"time"

	"github.com/faultline/faultline/check/txn"
	"github.com/faultline/faultline/history"
	"github.com/faultline/faultline/internal/measure"
)

// appendGen describes a simulated list-append run: each transaction takes
// effect atomically at its completion, so the history is strict-serializable
// unless Stale makes some reads miss the last element.
type appendGen struct {
	Txns, Procs int
	Keys        int // keys in use at once; a key is retired after MaxWrites appends
	MaxWrites   int
	MaxLen      int     // micro-ops per transaction, 1..MaxLen
	FailRate    float64 // fraction that fail
	InfoRate    float64 // fraction that end info (half take effect)
	Stale       float64 // fraction of reads that miss the key's last element
	// Odd spells some keys and values other ways (strings, keywords, negative
	// and big integers, sets and maps inside values) so that the fast path
	// meets what it must hand to the generic reader.
	Odd  bool
	Seed uint64
}

// run generates the history.
func (g appendGen) run() []history.Op {
	rng := rand.New(rand.NewPCG(g.Seed, 7))
	lists := map[any][]any{}
	next := map[any]int64{}
	active := make([]any, g.Keys)
	writes := make([]int, g.Keys)
	nextKey := 0
	newKey := func() any {
		nextKey++
		if g.Odd {
			switch rng.IntN(6) {
			case 0:
				return fmt.Sprintf("k%d", nextKey)
			case 1:
				return history.Keyword(fmt.Sprintf("k%d", nextKey))
			case 2:
				return int64(-nextKey)
			case 3:
				return int64(1<<40 + nextKey)
			}
		}
		return int64(nextKey) // numbered as Jepsen does; most are past 255, so boxed
	}
	for i := range active {
		active[i] = newKey()
	}
	value := func(k any) any {
		next[k]++
		n := next[k]
		if g.Odd && rng.IntN(8) == 0 {
			switch rng.IntN(4) {
			case 0:
				return fmt.Sprintf("v%d", n)
			case 1:
				return history.Set{n}
			case 2:
				return map[string]any{"v": n}
			}
			return int64(1<<33) + n
		}
		return n
	}
	type flight struct {
		process int
		inv     []any
	}
	flights := make([]*flight, g.Procs)
	procs := make([]int, g.Procs)
	for i := range procs {
		procs[i] = i
	}
	var ops []history.Op
	emit := func(p int, typ history.Type, v any) {
		ops = append(ops, history.Op{Index: int64(len(ops)), Time: int64(len(ops)) * 1000, Process: p, Type: typ, F: "txn", Value: v})
	}
	invoked := 0
	for invoked < g.Txns || slicesAny(flights) {
		slot := rng.IntN(g.Procs)
		fl := flights[slot]
		if fl == nil {
			if invoked == g.Txns {
				continue
			}
			t := make([]any, 1+rng.IntN(g.MaxLen))
			for i := range t {
				ki := rng.IntN(g.Keys)
				if rng.IntN(2) == 0 {
					t[i] = []any{history.Keyword("r"), active[ki], nil}
					continue
				}
				if writes[ki] == g.MaxWrites {
					active[ki], writes[ki] = newKey(), 0
				}
				writes[ki]++
				t[i] = []any{history.Keyword("append"), active[ki], value(active[ki])}
			}
			flights[slot] = &flight{procs[slot], t}
			emit(procs[slot], history.Invoke, t)
			invoked++
			continue
		}
		flights[slot] = nil
		apply := func() []any {
			out := make([]any, len(fl.inv))
			for i, m := range fl.inv {
				mm := m.([]any)
				if mm[0] == history.Keyword("append") {
					lists[mm[1]] = append(lists[mm[1]], mm[2])
					out[i] = mm
					continue
				}
				l := lists[mm[1]]
				if len(l) > 0 && rng.Float64() < g.Stale {
					l = l[:len(l)-1]
				}
				out[i] = []any{mm[0], mm[1], append([]any{}, l...)}
			}
			return out
		}
		switch x := rng.Float64(); {
		case x < g.FailRate:
			emit(fl.process, history.Fail, fl.inv)
		case x < g.FailRate+g.InfoRate:
			if rng.IntN(2) == 0 {
				apply()
			}
			emit(fl.process, history.Info, fl.inv)
			procs[slot] += g.Procs
		default:
			emit(fl.process, history.OK, apply())
		}
	}
	return ops
}

func slicesAny[T any](xs []*T) bool {
	for _, x := range xs {
		if x != nil {
			return true
		}
	}
	return false
}

// ednOf writes ops as EDN.
func ednOf(t testing.TB, ops []history.Op) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := history.WriteEDN(&buf, ops); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// readBoth reads data with the fast path and with the generic reader.
func readBoth(data []byte) (lean, generic *history.File, leanErr, genericErr error) {
	lean, leanErr = history.Read(bytes.NewReader(data), "h.edn", history.EDN)
	defer history.SetLeanValues(false)()
	generic, genericErr = history.Read(bytes.NewReader(data), "h.edn", history.EDN)
	return
}

// TestLeanMatchesGeneric reads random list-append histories with the fast
// path and with the generic reader and wants the same ops, lines and checker
// results, for plain histories, histories with odd keys and values (which
// the fast path hands back to the generic reader), and histories with stale
// reads (invalid ones).
func TestLeanMatchesGeneric(t *testing.T) {
	tests := []struct {
		name string
		gen  appendGen
	}{
		{"plain", appendGen{Txns: 2000, Procs: 5, Keys: 4, MaxWrites: 8, MaxLen: 4, FailRate: 0.05, InfoRate: 0.05}},
		{"odd", appendGen{Txns: 2000, Procs: 5, Keys: 4, MaxWrites: 8, MaxLen: 4, FailRate: 0.05, InfoRate: 0.05, Odd: true}},
		{"stale", appendGen{Txns: 2000, Procs: 5, Keys: 4, MaxWrites: 8, MaxLen: 4, Stale: 0.02}},
		{"long-lists", appendGen{Txns: 800, Procs: 3, Keys: 1, MaxWrites: 1000, MaxLen: 3}},
	}
	for _, tt := range tests {
		for seed := uint64(1); seed <= 5; seed++ {
			t.Run(fmt.Sprintf("%s/%d", tt.name, seed), func(t *testing.T) {
				g := tt.gen
				g.Seed = seed
				data := ednOf(t, g.run())
				lean, generic, err1, err2 := readBoth(data)
				if err1 != nil || err2 != nil {
					t.Fatalf("read: lean %v, generic %v", err1, err2)
				}
				if !reflect.DeepEqual(lean, generic) {
					t.Fatal("the fast path read different ops from the generic reader")
				}
				for _, models := range [][]string{{"strict-serializable"}, {"read-committed"}} {
					o := txn.Options{Workload: txn.ListAppend, ConsistencyModels: models}
					r1, err1 := txn.Check(context.Background(), lean.Ops, o)
					r2, err2 := txn.Check(context.Background(), generic.Ops, o)
					if fmt.Sprint(err1) != fmt.Sprint(err2) {
						t.Fatalf("check errors differ: lean %v, generic %v", err1, err2)
					}
					if err1 != nil {
						continue
					}
					if r1.Valid != r2.Valid || r1.Summary != r2.Summary || !reflect.DeepEqual(r1.Counts, r2.Counts) {
						t.Fatalf("%v: lean %s %q %v, generic %s %q %v", models, r1.Valid, r1.Summary, r1.Counts, r2.Valid, r2.Summary, r2.Counts)
					}
				}
			})
		}
	}
}

// TestLeanShares pins the memory savings that make the fast path worth
// having, and that sharing never changes a value handed out: a read that is
// a prefix of the key's longest list shares its elements, a read that
// extends it grows the same array in place, a completion's append
// micro-op is its invocation's, and reads of a key's whole list while
// nothing was appended to it are one micro-op.
func TestLeanShares(t *testing.T) {
	data := []byte(`{:type :invoke, :process 0, :f :txn, :value [[:append 300 3] [:r 300 nil]]}
{:type :ok, :process 0, :f :txn, :value [[:append 300 3] [:r 300 [1 2 3]]]}
{:type :ok, :process 1, :f :txn, :value [[:r 300 [1 2]] [:r 301 [1 2]]]}
{:type :ok, :process 2, :f :txn, :value [[:r 300 [1 3]]]}
{:type :ok, :process 2, :f :txn, :value [[:r 301 [1 2 3 4]]]}
{:type :ok, :process 3, :f :txn, :value [[:r 301 [1 2 3 4]] [:r 300 [1 2]]]}
`)
	f, err := history.Read(bytes.NewReader(data), "h.edn", history.EDN)
	if err != nil {
		t.Fatal(err)
	}
	mop := func(op, i int) []any { return f.Ops[op].Value.([]any)[i].([]any) }
	list := func(op, i int) []any { return mop(op, i)[2].([]any) }
	if &mop(0, 0)[0] != &mop(1, 0)[0] {
		t.Error("the completion's [:append 300 3] is not the invocation's")
	}
	if &list(1, 1)[0] != &list(2, 0)[0] {
		t.Error("[1 2] of key 300 does not share the elements of [1 2 3]")
	}
	if &list(2, 1)[0] == &list(1, 1)[0] {
		t.Error("key 301's list shares key 300's")
	}
	if &list(3, 0)[0] == &list(1, 1)[0] {
		t.Error("[1 3] shares [1 2 3]")
	}
	if &list(4, 0)[0] != &list(2, 1)[0] {
		t.Error("[1 2 3 4] of key 301 did not grow [1 2] in place")
	}
	if &mop(5, 0)[0] != &mop(4, 0)[0] {
		t.Error("two reads of key 301's whole list [1 2 3 4] are two micro-ops")
	}
	if &mop(5, 1)[0] == &mop(2, 0)[0] {
		t.Error("[:r 300 [1 2]], a prefix, shares a micro-op")
	}
	want := [][]any{{int64(1), int64(2)}, {int64(1), int64(2), int64(3), int64(4)}}
	if got := [][]any{list(2, 1), list(4, 0)}; !reflect.DeepEqual(got, want) {
		t.Errorf("key 301's lists are %v, want %v", got, want)
	}
	if got := append(list(2, 0), int64(9)); list(1, 1)[2] != int64(3) || len(got) != 3 {
		t.Error("appending to a shared prefix overwrote the longer list")
	}
}

// TestLeanErrors wants the generic reader's error, at the same place, for
// malformed values the fast path starts on.
func TestLeanErrors(t *testing.T) {
	base := `{:type :ok, :process 0, :f :txn, :value %s}` + "\n"
	for _, v := range []string{
		`[[:r 1 [1 2]]`, `[[:r 1 [1 2)]]`, `[[:r 1 [1 2]]]]`, `[[:r 1 [01]]]`, `[[:r 1 [1.5x]]]`,
		`[[:r 1 [99999999999999999999]]]`, `[[: 1 nil]]`, `[[:r 1 "abc]]`, `[[:r 1 [1 2 #{1 1}]]]`,
		`[[:r 1 {:a 1 :a 2}]]`, `[[:r 1 #_]]`, `[[:r 1 [1 ; x`, `[[:append 1 'x]]`, `[[:r 1 \`, `[[[[[[1]]]]]]`,
		`[[:r 1 [1 2]] ; comment` + "\n" + `]`, `(([:r 1 nil]))`, `[]`, `[[] [[]]]`, `[[:r "k\"" ["a" "b\n"]]]`,
	} {
		data := []byte(fmt.Sprintf(base, v))
		lean, generic, err1, err2 := readBoth(data)
		if fmt.Sprint(err1) != fmt.Sprint(err2) {
			t.Errorf("%s: lean error %v, generic %v", v, err1, err2)
			continue
		}
		if err1 == nil && !reflect.DeepEqual(lean, generic) {
			t.Errorf("%s: lean %#v, generic %#v", v, lean.Ops[0].Value, generic.Ops[0].Value)
		}
	}
}

// FuzzLeanValues wants the fast path and the generic reader to agree on any
// input: the same ops or the same error.
func FuzzLeanValues(f *testing.F) {
	for _, s := range []string{
		`{:type :ok, :process 0, :f :txn, :value [[:r 300 [1 2 3]] [:append 300 4]]}`,
		`{:type :ok, :process 0, :f :txn, :value [[:r 300 [1 2]] [:r "k" (1 2)]]}` + "\n" + `{:type :ok, :process 0, :f :txn, :value [[:r 300 [1]]]}`,
		`{:type :invoke, :process 0, :f :txn, :value [[:r :x nil] [:append -5 99999]]}`,
		`[{:type :ok, :process 0, :f :txn, :value [[:r 1 [true false nil]]]}]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		lean, generic, err1, err2 := readBoth(data)
		if fmt.Sprint(err1) != fmt.Sprint(err2) {
			t.Fatalf("lean error %v, generic %v", err1, err2)
		}
		if err1 == nil && !reflect.DeepEqual(lean, generic) {
			t.Fatalf("lean %v, generic %v", lean.Ops, generic.Ops)
		}
	})
}

// BenchmarkAppendEndToEnd reads a 1,000,000-transaction list-append history
// from an EDN file and checks it against strict-serializable, as `faultline
// check` does: 10 processes, 1-4 micro-ops, keys retired after 16 appends,
// 1% failed and 1% indeterminate transactions. "baseline" is the reader as
// it was before the op-value fast path (generic values, one piece, the file
// copied into the heap); "lean-one-piece" adds the fast path; "lean-copied"
// also reads a large one-op-per-line file in pieces on every core; "lean" is
// the reader as it is, which also maps the file instead of copying it.
// It reports transactions per second wall, the CPU seconds the process
// used per history (user and system, so other load on the machine counts
// less), the peak heap sampled, the heap the history holds once read, and
// the read's wall time.
func BenchmarkAppendEndToEnd(b *testing.B) {
	g := appendGen{Txns: 1_000_000, Procs: 10, Keys: 10, MaxWrites: 16, MaxLen: 4, FailRate: 0.01, InfoRate: 0.01, Seed: 1}
	path := filepath.Join(b.TempDir(), "history.edn")
	if err := os.WriteFile(path, ednOf(b, g.run()), 0o644); err != nil {
		b.Fatal(err)
	}
	for _, v := range []struct {
		name              string
		lean, split, mmap bool
	}{{"baseline", false, false, false}, {"lean-one-piece", true, false, false}, {"lean-copied", true, true, false}, {"lean", true, true, true}} {
		b.Run(v.name, func(b *testing.B) {
			defer history.SetLeanValues(v.lean)()
			defer history.MapFiles(v.mmap)()
			if !v.split {
				defer history.SplitNever()()
			}
			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			base := ms.HeapAlloc
			peak := measure.StartPeak()
			var read time.Duration
			var held uint64
			cpu0 := measure.CPU(b)
			for b.Loop() {
				t0 := time.Now()
				f, err := history.ReadFile(path, history.Auto)
				if err != nil {
					b.Fatal(err)
				}
				read += time.Since(t0)
				r, err := txn.Check(context.Background(), f.Ops, txn.Options{Workload: txn.ListAppend, ConsistencyModels: []string{"strict-serializable"}})
				if err != nil {
					b.Fatal(err)
				}
				if r.Valid != txn.Valid {
					b.Fatalf("got %s: %s", r.Valid, r.Summary)
				}
				if held == 0 {
					b.StopTimer()
					c := measure.CPU(b)
					runtime.GC()
					runtime.ReadMemStats(&ms)
					held = ms.HeapAlloc - base
					runtime.KeepAlive(f)
					cpu0 += measure.CPU(b) - c
					b.StartTimer()
				}
			}
			cpu := measure.CPU(b) - cpu0
			b.ReportMetric(float64(g.Txns)*float64(b.N)/b.Elapsed().Seconds(), "txn/s")
			b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
			_, top := peak.Stop()
			b.ReportMetric(float64(top)/(1<<20), "peak-heap-MB")
			b.ReportMetric(float64(held)/(1<<20), "history-heap-MB")
			b.ReportMetric(read.Seconds()/float64(b.N), "read-s/op")
		})
	}
}
