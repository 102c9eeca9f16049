package reduce

import (
	"context"
	"errors"
	"slices"
	"testing"
)

func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

// failsIf makes a Test from a predicate on the candidate.
func failsIf(pred func([]int) bool) func(context.Context, []int) (bool, error) {
	return func(_ context.Context, c []int) (bool, error) { return pred(c), nil }
}

func hasAll(want ...int) func([]int) bool {
	return func(c []int) bool {
		for _, w := range want {
			if !slices.Contains(c, w) {
				return false
			}
		}
		return true
	}
}

func hasEven(c []int) bool {
	return slices.ContainsFunc(c, func(x int) bool { return x%2 == 0 })
}

// isOneMinimal checks the claim directly: removing any one item passes.
func isOneMinimal(t *testing.T, min []int, fails func([]int) bool, keep func([]int) bool) {
	t.Helper()
	if !fails(min) {
		t.Fatalf("minimal %v does not fail", min)
	}
	for i := range min {
		c := slices.Delete(slices.Clone(min), i, i+1)
		if (keep == nil || keep(c)) && fails(c) {
			t.Fatalf("minimal %v still fails without %d", min, min[i])
		}
	}
}

func TestMinimize(t *testing.T) {
	cases := []struct {
		name    string
		n       int
		fails   func([]int) bool
		keep    func([]int) bool
		want    []int // nil: any 1-minimal answer of wantLen
		wantLen int
	}{
		{"fails iff it holds 3 and 7", 16, hasAll(3, 7), nil, []int{3, 7}, 2},
		{"fails iff it holds 0, 9 and 15", 16, hasAll(0, 9, 15), nil, []int{0, 9, 15}, 3},
		{"fails iff some item is even", 16, hasEven, nil, nil, 1},
		{"a single item", 1, hasAll(0), nil, []int{0}, 1},
		{"fails always: the empty input", 5, func([]int) bool { return true }, nil, []int{}, 0},
		{"keep: never fewer than 3 items", 16, hasAll(3, 7),
			func(c []int) bool { return len(c) >= 3 }, nil, 3},
		{"keep: item 12 must stay", 16, hasEven,
			func(c []int) bool { return slices.Contains(c, 12) }, []int{12}, 1},
		{"keep: an odd item must stay", 20, hasAll(4),
			func(c []int) bool { return slices.ContainsFunc(c, func(x int) bool { return x%2 == 1 }) }, nil, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			test := func(_ context.Context, cand []int) (bool, error) {
				if c.keep != nil && !c.keep(cand) {
					t.Errorf("ran the inadmissible candidate %v", cand)
				}
				return c.fails(cand), nil
			}
			res, err := Minimize(context.Background(), seq(c.n), Options[int]{Test: test, Keep: c.keep})
			if err != nil {
				t.Fatal(err)
			}
			if !res.OneMinimal {
				t.Fatal("not 1-minimal without a budget")
			}
			if len(res.Minimal) != c.wantLen || (c.want != nil && !slices.Equal(res.Minimal, c.want)) {
				t.Fatalf("minimal %v, want %v (%d items)", res.Minimal, c.want, c.wantLen)
			}
			if c.keep != nil && !c.keep(res.Minimal) {
				t.Fatalf("minimal %v is not admissible", res.Minimal)
			}
			isOneMinimal(t, res.Minimal, c.fails, c.keep)
			if res.Runs != len(res.Tried) {
				t.Fatalf("%d runs for %d attempts of one run each", res.Runs, len(res.Tried))
			}
			if !res.Tried[0].Failed || res.Tried[0].Size != c.n {
				t.Fatalf("first attempt %+v, want the full input, failing", res.Tried[0])
			}
		})
	}
}

// ddmin on n items with two culprits needs O(log n) runs, far fewer than n.
func TestMinimizeRunsFewCandidates(t *testing.T) {
	res, err := Minimize(context.Background(), seq(1024), Options[int]{Test: failsIf(hasAll(100, 900))})
	if err != nil || !slices.Equal(res.Minimal, []int{100, 900}) {
		t.Fatalf("got %v, %v", res.Minimal, err)
	}
	t.Logf("%d runs", res.Runs)
	if res.Runs > 150 {
		t.Fatalf("%d runs to find 2 culprits among 1024", res.Runs)
	}
}

func TestMinimizeBudget(t *testing.T) {
	res, err := Minimize(context.Background(), seq(64), Options[int]{Test: failsIf(hasAll(3, 7)), MaxRuns: 5})
	if err != nil {
		t.Fatal(err)
	}
	if res.OneMinimal || res.Runs != 5 {
		t.Fatalf("OneMinimal %v after %d runs, want false after 5", res.OneMinimal, res.Runs)
	}
	if !hasAll(3, 7)(res.Minimal) || len(res.Minimal) >= 64 {
		t.Fatalf("minimal %v: want a smaller input that still fails", res.Minimal)
	}
}

// A flaky failure: a candidate counts as failing if any of its runs fails,
// and each attempt reports r of m.
func TestMinimizeRepeats(t *testing.T) {
	calls := map[int]int{} // candidate size -> runs
	test := func(_ context.Context, c []int) (bool, error) {
		calls[len(c)]++
		// The failure needs 3 and 7 and shows only every third run.
		return hasAll(3, 7)(c) && calls[len(c)]%3 == 0, nil
	}
	res, err := Minimize(context.Background(), seq(8), Options[int]{Test: test, Runs: 3})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Minimal, []int{3, 7}) || !res.OneMinimal {
		t.Fatalf("minimal %v (1-minimal %v), want [3 7]", res.Minimal, res.OneMinimal)
	}
	total := 0
	for _, a := range res.Tried {
		total += a.Of
		if a.Of < 1 || a.Of > 3 || a.Failed != (a.Reproduced > 0) || (!a.Failed && a.Of != 3) {
			t.Fatalf("attempt %+v", a)
		}
	}
	if total != res.Runs {
		t.Fatalf("attempts add up to %d runs, result says %d", total, res.Runs)
	}
}

func TestMinimizeErrors(t *testing.T) {
	boom := errors.New("cluster unreachable")
	t.Run("test error propagates wrapped", func(t *testing.T) {
		n := 0
		test := func(_ context.Context, c []int) (bool, error) {
			if n++; n == 3 {
				return false, boom
			}
			return hasAll(3, 7)(c), nil
		}
		res, err := Minimize(context.Background(), seq(16), Options[int]{Test: test})
		if !errors.Is(err, boom) {
			t.Fatalf("error %v, want it to wrap %v", err, boom)
		}
		if res.OneMinimal || !hasAll(3, 7)(res.Minimal) {
			t.Fatalf("result %+v: want the failing input found so far", res)
		}
	})
	t.Run("input that does not fail", func(t *testing.T) {
		_, err := Minimize(context.Background(), seq(4), Options[int]{Test: failsIf(hasAll(9))})
		if !errors.Is(err, ErrNoFailure) {
			t.Fatalf("error %v, want ErrNoFailure", err)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		test := func(_ context.Context, c []int) (bool, error) {
			cancel()
			return hasAll(3, 7)(c), nil
		}
		_, err := Minimize(ctx, seq(16), Options[int]{Test: test})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("error %v, want context.Canceled", err)
		}
	})
}

// Test may keep the candidate it was given: Minimize never reuses it.
func TestMinimizeCandidatesAreFresh(t *testing.T) {
	var kept [][]int
	test := func(_ context.Context, c []int) (bool, error) {
		kept = append(kept, c)
		return hasAll(3, 7)(c), nil
	}
	if _, err := Minimize(context.Background(), seq(16), Options[int]{Test: test}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(kept[0], seq(16)) {
		t.Fatalf("first candidate changed after the run: %v", kept[0])
	}
}
