package nemesis

import (
	"slices"
	"testing"
	"time"

	"go.starlark.net/starlark"
)

func TestPlanned(t *testing.T) {
	tests := []struct {
		expr string
		d    time.Duration
		want []string
	}{
		{`nemesis.partition(spec="one", start="4s", hold="7s", interval="60s")`, 28 * time.Second,
			[]string{"start-partition @T+4s for 7s"}},
		{`nemesis.partition(start="5s", hold="5s", interval="5s")`, 30 * time.Second,
			[]string{"start-partition @T+5s for 5s", "start-partition @T+15s for 5s", "start-partition @T+25s for 5s"}},
		// Due at or after the end: the plan asked for it, so it is listed.
		{`nemesis.partition(start="40s", hold="5s")`, 30 * time.Second, []string{"start-partition @T+40s for 5s"}},
		{`nemesis.kill(pattern="x", command=["x"], start="2s", restart="3s", repeat=False)`, 30 * time.Second,
			[]string{"kill @T+2s for 3s"}},
		{`nemesis.truncate_file(path="/f", start="1s", interval="10s")`, 25 * time.Second,
			[]string{"truncate-file @T+1s", "truncate-file @T+11s", "truncate-file @T+21s"}},
		{`nemesis.compose([nemesis.pause(pattern="x", start="9s", hold="1s", repeat=False), nemesis.loss(probability=0.5, start="3s", hold="2s", repeat=False)])`,
			30 * time.Second, []string{"start-loss @T+3s for 2s", "pause @T+9s for 1s"}},
	}
	for _, tt := range tests {
		v, err := eval(t, tt.expr)
		if err != nil {
			t.Fatalf("%s: %v", tt.expr, err)
		}
		p, _ := FromStarlark(v)
		var got []string
		for _, pl := range p.Planned(tt.d) {
			got = append(got, pl.Name())
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s over %s: %q, want %q", tt.expr, tt.d, got, tt.want)
		}
	}
	if p, _ := FromStarlark(mustEval(t, `nemesis.heal()`)); p.Planned(time.Minute) != nil {
		t.Errorf("a custom generator has no schedule to list")
	}
}

func mustEval(t *testing.T, expr string) starlark.Value {
	t.Helper()
	v, err := eval(t, expr)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// A corruption fault happens at its start and, without repeat, never again;
// it has no heal of its own.
func TestCorruptSchedule(t *testing.T) {
	v, err := eval(t, `nemesis.bitflip_file(path = "/opt/db/wal", start = "3s", repeat = False)`)
	if err != nil {
		t.Fatal(err)
	}
	p, _ := FromStarlark(v)
	rec := scheduleOf(t, p, 20*time.Second)
	if len(rec.fs) != 2 || rec.fs[0] != "bitflip-file" || rec.fs[1] != "heal" {
		t.Errorf("ops %v, want one bitflip-file and the final heal", rec.fs)
	}
}
