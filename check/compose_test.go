package check

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/faultline/faultline/history"
	"github.com/faultline/faultline/internal/testhist"
)

// fixed is a stub checker that returns a canned result.
type fixed struct {
	name string
	res  Result
}

func (f fixed) Name() string { return f.name }
func (f fixed) Check(context.Context, []history.Op, Env) Result {
	r := f.res
	r.Checker = f.name
	return r
}

// panicky is a checker with a bug.
type panicky struct{}

func (panicky) Name() string                                    { return "panicky" }
func (panicky) Check(context.Context, []history.Op, Env) Result { panic("boom") }

func ok(n int) Result { return Result{Valid: Valid, Summary: "fine", Consumed: Consumed{Ops: n}} }

func TestComposeVerdicts(t *testing.T) {
	bad := Result{Valid: Invalid, Summary: "lost write", Consumed: Consumed{Ops: 5, Keys: 2}}
	undecided := Result{Valid: Unknown, Summary: "timed out", Consumed: Consumed{Ops: 9}}
	tests := []struct {
		name     string
		cs       []Checker
		want     Validity
		consumed Consumed
		explain  string
	}{
		{"all valid", []Checker{fixed{"a", ok(3)}, fixed{"b", ok(7)}}, Valid, Consumed{Ops: 7}, ""},
		{"one invalid", []Checker{fixed{"a", ok(3)}, fixed{"b", bad}}, Invalid, Consumed{Ops: 5, Keys: 2}, "b (invalid): lost write"},
		{"invalid beats unknown", []Checker{fixed{"a", undecided}, fixed{"b", bad}}, Invalid, Consumed{Ops: 9, Keys: 2}, "a (unknown): timed out"},
		{"unknown beats valid", []Checker{fixed{"a", ok(3)}, fixed{"b", undecided}}, Unknown, Consumed{Ops: 9}, "b (unknown)"},
		{"valid over nothing is unknown", []Checker{fixed{"a", ok(0)}}, Unknown, Consumed{}, "no child checker consumed any client op"},
		{"no checkers", nil, Unknown, Consumed{}, ""},
		{"nil checker", []Checker{fixed{"a", ok(3)}, nil}, Unknown, Consumed{Ops: 3}, "nil (unknown): compose was given a nil checker"},
		{"panicking checker", []Checker{fixed{"a", ok(3)}, panicky{}}, Unknown, Consumed{Ops: 3}, "panicky (unknown): checker panicked: boom"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := Compose(tt.cs...).Check(context.Background(), nil, Env{})
			if res.Valid != tt.want || res.Consumed != tt.consumed || !strings.Contains(res.Explanation, tt.explain) {
				t.Fatalf("got %s %+v\n%s", res.Valid, res.Consumed, res.Explanation)
			}
			if res.Checker != "compose" || len(res.Children) != len(tt.cs) {
				t.Errorf("checker %q, %d children", res.Checker, len(res.Children))
			}
		})
	}
}

func TestMerge(t *testing.T) {
	vs := []Validity{Valid, Invalid, Unknown, "bogus"}
	want := map[[2]Validity]Validity{}
	for _, a := range vs {
		for _, b := range vs {
			switch {
			case a == Invalid || b == Invalid:
				want[[2]Validity{a, b}] = Invalid
			case a == Valid && b == Valid:
				want[[2]Validity{a, b}] = Valid
			default:
				want[[2]Validity{a, b}] = Unknown
			}
		}
	}
	for pair, w := range want {
		if got := Merge(pair[0], pair[1]); got != w {
			t.Errorf("Merge(%q, %q) = %q, want %q", pair[0], pair[1], got, w)
		}
	}
}

// rendezvous is a checker that passes only if every sibling is running at the
// same time, which proves compose runs children concurrently. The long wait
// is a safety net against a hang, not a timing assertion.
type rendezvous struct{ wg *sync.WaitGroup }

func (r rendezvous) Name() string { return "rendezvous" }
func (r rendezvous) Check(context.Context, []history.Op, Env) Result {
	r.wg.Done()
	done := make(chan struct{})
	go func() { r.wg.Wait(); close(done) }()
	select {
	case <-done:
		return ok(1)
	case <-time.After(time.Minute):
		return Result{Valid: Invalid, Summary: "siblings never ran alongside"}
	}
}

func TestComposeRunsConcurrently(t *testing.T) {
	var wg sync.WaitGroup
	wg.Add(3)
	c := Compose(rendezvous{&wg}, rendezvous{&wg}, rendezvous{&wg})
	if res := c.Check(context.Background(), nil, Env{}); res.Valid != Valid {
		t.Fatalf("got %s: %s", res.Valid, res.Explanation)
	}
}

func TestComposeArtifacts(t *testing.T) {
	dir := t.TempDir()
	h := testhist.JepsenLog(t, staleRead...)
	c := Compose(mustLinearizable(t, "register", nil), Stats(), mustLinearizable(t, "cas-register", nil))
	res := c.Check(context.Background(), h, Env{OutDir: dir})
	want := []string{VisualizationFile, "linearizable-2/" + VisualizationFile}
	if res.Valid != Invalid || strings.Join(res.Artifacts, ",") != strings.Join(want, ",") {
		t.Fatalf("got %s, artifacts %v", res.Valid, res.Artifacts)
	}
	for _, a := range res.Artifacts {
		if _, err := os.Stat(filepath.Join(dir, a)); err != nil {
			t.Error(err)
		}
	}
	if res.Children[1].Valid != Valid || res.Consumed.Ops != 4 {
		t.Errorf("stats child %s, consumed %+v", res.Children[1].Valid, res.Consumed)
	}
}
