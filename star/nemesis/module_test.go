package nemesis

import (
	"slices"
	"testing"
	"time"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"

	"github.com/faultline/faultline/nemesis"
)

// eval runs a Starlark expression with the nemesis module.
func eval(t *testing.T, expr string) (starlark.Value, error) {
	t.Helper()
	return starlark.EvalOptions(&syntax.FileOptions{}, &starlark.Thread{Name: "test"}, "test.star", expr,
		starlark.StringDict{"nemesis": Module})
}

// recorder is what a package asked for: ops and their times.
type recorder struct {
	fs []string
	ts []time.Duration
}

// schedule runs a package for d simulated seconds and its final.
func schedule(t *testing.T, p *nemesis.Package, d time.Duration) []string {
	return scheduleOf(t, p, d).fs
}

// scheduleOf is schedule with the recorder, times included.
func scheduleOf(t *testing.T, p *nemesis.Package, d time.Duration) *recorder {
	t.Helper()
	ops, err := p.Preview(d)
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	for _, op := range ops {
		rec.fs, rec.ts = append(rec.fs, op.F), append(rec.ts, op.At)
	}
	return rec
}

// TestModuleSchedules: a cycle's steps fall at fixed run times (first
// fault one interval in); no fault is injected at or after the workload's
// end (the run's start plus its duration).
func TestModuleSchedules(t *testing.T) {
	tests := []struct {
		expr string
		want []string
	}{
		{`nemesis.partition(spec="one", interval="5s", hold="5s")`,
			[]string{"start-partition", "stop-partition", "start-partition", "stop-partition", "heal"}},
		{`nemesis.loss(nodes="all", probability=0.5, interval="10s", hold="10s")`,
			[]string{"start-loss", "stop-loss", "heal"}},
		{`nemesis.kill(pattern="etcd", restart=["etcd"], interval="10s", hold="10s")`,
			[]string{"kill", "start", "heal"}},
		{`nemesis.pause(nodes=["n1"], pattern="etcd", interval="20s", hold="10s")`,
			[]string{"pause", "resume", "heal"}},
		{`nemesis.bandwidth(nodes="all", rate="10kbit", interval="10s", hold="10s")`,
			[]string{"start-bandwidth", "stop-bandwidth", "heal"}},
		{`nemesis.delay(delay="100ms", jitter="10ms", interval="10s", hold="10s")`,
			[]string{"start-delay", "stop-delay", "heal"}},
		{`nemesis.fill_disk(path="/opt/fill", size="10M", interval="10s", hold="10s")`,
			[]string{"fill-disk", "free-disk", "heal"}},
	}
	for _, tt := range tests {
		v, err := eval(t, tt.expr)
		if err != nil {
			t.Fatalf("%s: %v", tt.expr, err)
		}
		p, err := FromStarlark(v)
		if err != nil {
			t.Fatal(err)
		}
		if got := schedule(t, p, 25*time.Second); !slices.Equal(got, tt.want) {
			t.Errorf("%s: ops %v, want %v", tt.expr, got, tt.want)
		}
	}
}

func TestModuleCompose(t *testing.T) {
	v, err := eval(t, `nemesis.compose([nemesis.partition(interval="5s", hold="5s"), nemesis.pause(pattern="x", interval="5s", hold="5s")])`)
	if err != nil {
		t.Fatal(err)
	}
	p, _ := FromStarlark(v)
	got := schedule(t, p, 200*time.Second)
	if !slices.Contains(got, "start-partition") || !slices.Contains(got, "pause") || got[len(got)-1] != "heal" {
		t.Errorf("compose ops %v: want both faults and a final heal", got)
	}
}

func TestModuleErrors(t *testing.T) {
	for _, expr := range []string{
		`nemesis.partition(spec=3)`,
		`nemesis.partition(spec={"n1": "n2"})`,
		`nemesis.partition(hold="0s")`,
		`nemesis.loss(probability=1.5)`,
		`nemesis.loss(probability=0.0)`,
		`nemesis.kill(pattern="", restart=["x"])`,
		`nemesis.kill(pattern="x", restart=[])`,
		`nemesis.pause(pattern="")`,
		`nemesis.compose([])`,
		`nemesis.bandwidth(rate="")`,
		`nemesis.delay(delay="fast")`,
		`nemesis.delay(jitter="5")`,
		`nemesis.fill_disk(path="opt/fill", size="1M")`,
		`nemesis.fill_disk(path="/opt/fill", size="lots")`,
		`nemesis.compose([1])`,
	} {
		if _, err := eval(t, expr); err == nil {
			t.Errorf("%s: want an error", expr)
		}
	}
}

// TestComposeKeepsEachFaultsTimes: composed faults happen at the times the
// plan gave each, not one after another's waits.
func TestComposeKeepsEachFaultsTimes(t *testing.T) {
	v, err := eval(t, `nemesis.compose([
    nemesis.partition(spec = "one", start = "4s", hold = "7s", interval = "60s"),
    nemesis.kill(nodes = "primaries", start = "14s", restart = "4s", interval = "60s", pattern = "x", command = ["x"]),
    nemesis.pause(nodes = "one", start = "21s", hold = "3s", interval = "60s", pattern = "x"),
])`)
	if err != nil {
		t.Fatal(err)
	}
	p, _ := FromStarlark(v)
	rec := scheduleOf(t, p, 28*time.Second)
	wantF := []string{"start-partition", "stop-partition", "kill", "start", "pause", "resume", "heal"}
	wantT := []time.Duration{4, 11, 14, 18, 21, 24}
	if !slices.Equal(rec.fs, wantF) {
		t.Fatalf("ops %v, want %v", rec.fs, wantF)
	}
	for i, w := range wantT {
		if rec.ts[i] != w*time.Second {
			t.Errorf("%s at %s, want %s", rec.fs[i], rec.ts[i], w*time.Second)
		}
	}
}

// repeat = False: a fault happens once, at its start, then only the final
// heal follows.
func TestFaultOnce(t *testing.T) {
	v, err := eval(t, `nemesis.compose([
    nemesis.partition(spec = "one", start = "2s", hold = "3s", repeat = False),
    nemesis.pause(nodes = "one", pattern = "x", start = "4s", hold = "1s", interval = "5s"),
])`)
	if err != nil {
		t.Fatal(err)
	}
	p, _ := FromStarlark(v)
	rec := scheduleOf(t, p, 20*time.Second)
	parts := 0
	for _, f := range rec.fs {
		if f == "start-partition" {
			parts++
		}
	}
	if parts != 1 || slices.Index(rec.fs, "pause") < 0 || rec.fs[len(rec.fs)-1] != "heal" {
		t.Errorf("ops %v: want one partition, repeated pauses and a final heal", rec.fs)
	}
}
