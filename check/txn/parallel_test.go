package txn

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/faultline/faultline/history"
)

// TestCountParallel wants the counts summed over pieces on several cores
// to be count's, for histories big enough to be split.
func TestCountParallel(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(3))
	for _, s := range []sim{
		{Txns: 70_000, Procs: 10, Keys: 10, MaxWrites: 16, MaxLen: 4, FailRate: 0.05, InfoRate: 0.05, Seed: 1},
		{Txns: 100_000, Procs: 7, Keys: 3, MaxWrites: 100, MaxLen: 6, Seed: 2},
	} {
		t.Run(fmt.Sprint(s.Txns), func(t *testing.T) {
			ops := s.run()
			pairs, err := history.Pair(ops)
			if err != nil {
				t.Fatal(err)
			}
			if len(pairs) < 1<<16 {
				t.Fatalf("%d pairs: too few to be split", len(pairs))
			}
			if got, want := countParallel(ops, pairs), count(ops, pairs); got != want {
				t.Fatalf("parallel counts %+v, count %+v", got, want)
			}
		})
	}
}

// TestGoWithPanic wants a panic on the other goroutine raised again by wait,
// on the caller's, where Check's callers recover it.
func TestGoWithPanic(t *testing.T) {
	ran := false
	goWithPanic(func() { ran = true })()
	if !ran {
		t.Fatal("fn did not run before wait returned")
	}
	defer func() {
		if p := recover(); p != "boom" {
			t.Fatalf("recovered %v, want boom", p)
		}
	}()
	goWithPanic(func() { panic("boom") })()
	t.Fatal("wait did not panic")
}
