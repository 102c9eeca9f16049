package nemesis

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// TestPrimariesWaitsForALeader: a database between leaders names none, or
// fails to answer; the worker asks again until it names one.
func TestPrimariesWaitsForALeader(t *testing.T) {
	defer func(w, p time.Duration) { primariesWait, primariesPoll = w, p }(primariesWait, primariesPoll)
	primariesWait, primariesPoll = time.Minute, time.Millisecond
	answers := []func() ([]string, error){
		func() ([]string, error) { return nil, nil },
		func() ([]string, error) { return nil, errors.New("no leader") },
		func() ([]string, error) { return []string{"n2"}, nil },
	}
	calls := 0
	w := &Worker{opts: Options{Primaries: func(context.Context) ([]string, error) {
		a := answers[min(calls, len(answers)-1)]
		calls++
		return a()
	}}}
	p, err := w.primaries(context.Background())
	if err != nil || len(p) != 1 || p[0] != "n2" || calls != 3 {
		t.Fatalf("got %v, %v after %d calls; want [n2] after 3", p, err, calls)
	}
}

func TestPrimariesGivesUp(t *testing.T) {
	defer func(w, p time.Duration) { primariesWait, primariesPoll = w, p }(primariesWait, primariesPoll)
	primariesWait, primariesPoll = 0, time.Millisecond
	for _, c := range []struct {
		name string
		err  error
		want string
	}{
		{"none named", nil, "named none"},
		{"error", errors.New("no leader"), "no leader"},
	} {
		w := &Worker{opts: Options{Primaries: func(context.Context) ([]string, error) { return nil, c.err }}}
		if _, err := w.primaries(context.Background()); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error naming %q", c.name, err, c.want)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	w := &Worker{opts: Options{Primaries: func(context.Context) ([]string, error) { return nil, nil }}}
	if _, err := w.primaries(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: got %v, want context.Canceled", err)
	}
}
