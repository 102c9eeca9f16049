package nemesis

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/faultline/faultline/control"
	"github.com/faultline/faultline/history"
)

// The ops of script-defined faults are known by their names alone, so a
// recorded history is windowed and judged without the script.
func TestScriptByOp(t *testing.T) {
	for _, tc := range []struct {
		op, name, end string
		ok, opens     bool
	}{
		{op: "start:marker", name: "marker", end: "stop:marker", ok: true, opens: true},
		{op: "stop:marker", name: "marker", end: "stop:marker", ok: true},
		{op: "inject:scar", name: "scar", ok: true},
		{op: "start:Bad Name", ok: false},
		{op: "start:", ok: false},
		{op: "begin:marker", ok: false},
		{op: "start-partition", name: "partition", end: "stop-partition", ok: true, opens: true},
	} {
		f, ok := ByOp(tc.op)
		if ok != tc.ok || f.Name != tc.name || f.End != tc.end || OpensWindow(tc.op) != tc.opens {
			t.Errorf("ByOp(%q) = %q end %q ok %v, opens %v; want %q end %q ok %v, opens %v",
				tc.op, f.Name, f.End, ok, OpensWindow(tc.op), tc.name, tc.end, tc.ok, tc.opens)
		}
		if ok && strings.Contains(tc.op, ":") && !f.FromScript {
			t.Errorf("ByOp(%q): not marked FromScript", tc.op)
		}
	}
}

// What verify returns counts as evidence unless it says nothing.
func TestEmptyEvidence(t *testing.T) {
	for _, tc := range []struct {
		v     any
		empty bool
	}{
		{nil, true}, {false, true}, {"", true}, {int64(0), true}, {[]any{}, true}, {map[string]any{}, true},
		{true, false}, {"on", false}, {int64(2), false}, {[]any{"n1"}, false}, {map[string]any{"n1": "x"}, false},
	} {
		if got := empty(tc.v); got != tc.empty {
			t.Errorf("empty(%#v) = %v, want %v", tc.v, got, tc.empty)
		}
	}
}

// Define refuses a built-in's name, a second definition and names that
// cannot be part of an op.
func TestScriptedDefine(t *testing.T) {
	noop := func(context.Context, *control.Pool, []string) (any, error) { return nil, nil }
	var s Scripted
	if err := s.Define(&ScriptFault{Name: "marker", Pos: "a.star:3:7", Start: noop}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		f    ScriptFault
		want string
	}{
		{ScriptFault{Name: "kill", Start: noop}, "clashes with the built-in fault nemesis.kill"},
		{ScriptFault{Name: "marker", Start: noop}, "already defined at a.star:3:7"},
		{ScriptFault{Name: "Marker", Start: noop}, "want lower-case letters"},
		{ScriptFault{Name: "a:b", Start: noop}, "want lower-case letters"},
		{ScriptFault{Name: "nostart"}, "no start function"},
	} {
		if err := s.Define(&tc.f); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Define(%q): %v, want %q", tc.f.Name, err, tc.want)
		}
	}
	if n := len(s.Faults()); n != 1 {
		t.Errorf("%d faults defined, want 1", n)
	}
}

func TestMinorityThirdNodes(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n, want := range map[int]int{1: 1, 3: 1, 4: 1, 5: 1, 7: 2, 9: 2, 10: 3} {
		nodes := make([]string, n)
		for i := range nodes {
			nodes[i] = string(rune('a' + i))
		}
		got, err := ResolveNodes("minority-third", nodes, rng, nil)
		if err != nil || len(got) != want {
			t.Errorf("minority-third of %d nodes: %v %v, want %d", n, got, err, want)
		}
	}
}

// scriptRecorder is a script fault's steps in Go: a set of nodes it is "in
// effect" on, with every call recorded.
type scriptRecorder struct {
	mu    sync.Mutex
	on    map[string]bool
	calls []string
}

func (r *scriptRecorder) step(name string, fn func(nodes []string) any) Action {
	return func(_ context.Context, _ *control.Pool, nodes []string) (any, error) {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.calls = append(r.calls, name+" "+strings.Join(nodes, ","))
		return fn(nodes), nil
	}
}

// The Worker performs a script fault's ops with its steps: inject on the
// resolved victims with verify's evidence, stop on the same victims
// (held before, healed after), and the final heal runs heal everywhere;
// the windows it leaves are judged from the history alone.
func TestWorkerScriptFault(t *testing.T) {
	pool, sup, err := control.NewLocalPool(t.TempDir(), []string{"n1", "n2", "n3"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sup.Close(); pool.Close() })
	r := &scriptRecorder{on: map[string]bool{}}
	set := func(v bool) func([]string) any {
		return func(nodes []string) any {
			for _, n := range nodes {
				r.on[n] = v
			}
			return nil
		}
	}
	f := &ScriptFault{Name: "marker", Pos: "t.star:1:1",
		Start: r.step("start", set(true)), Stop: r.step("stop", set(false)), Heal: r.step("heal", set(false)),
		Verify: r.step("verify", func(nodes []string) any {
			ev := map[string]any{}
			for _, n := range nodes {
				if r.on[n] {
					ev[n] = "on"
				}
			}
			return ev
		})}
	w, err := New(Options{Pool: pool, Seed: 1, Scripts: []*ScriptFault{f}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var ops []history.Op
	do := func(f string, v any) history.Op {
		inv := history.Op{Process: history.NemesisProcess, Type: history.Invoke, F: f, Value: v, Time: int64(len(ops)) * int64(time.Second)}
		c := w.Invoke(ctx, inv)
		c.Process, c.F, c.Time = inv.Process, inv.F, inv.Time+1
		ops = append(ops, inv, c)
		return c
	}
	in := do("start:marker", map[string]any{"nodes": "majority"})
	victims, _ := in.Value.(map[string]any)["nodes"].([]any)
	ev, _ := in.Extra["evidence"].(map[string]any)
	if in.Type != history.OK || in.Extra["landed"] != true || len(victims) != 2 || len(ev) != 2 {
		t.Fatalf("inject: %+v", in)
	}
	stop := do("stop:marker", nil)
	if stop.Type != history.OK || stop.Extra["held"] != true || stop.Extra["healed"] != true {
		t.Fatalf("stop: %+v", stop)
	}
	if !slices.Contains(r.calls, "stop "+victims[0].(string)+","+victims[1].(string)) {
		t.Errorf("stop did not act on the inject's victims %v: %v", victims, r.calls)
	}
	// Inject again and leave it for the final heal.
	do("start:marker", map[string]any{"nodes": []any{"n3"}})
	heal := do("heal", nil)
	if heal.Type != history.OK || heal.Extra["held"].(map[string]any)["start:marker"] != true {
		t.Fatalf("final heal: %+v", heal)
	}
	if !slices.Contains(r.calls, "heal n1,n2,n3") || r.on["n3"] {
		t.Errorf("the final heal did not run heal on every node: %v", r.calls)
	}
	ws := FaultWindows(ops)
	if len(ws) != 2 || !ws[0].Proven || !ws[1].Proven || !strings.Contains(ws[0].Reason, "script's verify") {
		t.Errorf("windows %+v, want 2 proven by the script's verify", ws)
	}

	// A verify that finds nothing: landed false, and the window says why.
	f.Verify = r.step("verify", func([]string) any { return nil })
	w, _ = New(Options{Pool: pool, Seed: 1, Scripts: []*ScriptFault{f}})
	ops = nil
	if c := do("start:marker", map[string]any{"nodes": "one"}); c.Extra["landed"] != false {
		t.Errorf("inject with an empty verify: landed %v, want false", c.Extra["landed"])
	}
	do("stop:marker", nil)
	if ws := FaultWindows(ops); len(ws) != 1 || ws[0].Proven || !strings.Contains(ws[0].Reason, "returned no evidence") {
		t.Errorf("windows %+v, want one not proven: verify returned no evidence", ws)
	}

	// A run that did not load the script cannot perform its ops.
	w, _ = New(Options{Pool: pool, Seed: 1})
	if c := w.Invoke(ctx, history.Op{Process: history.NemesisProcess, Type: history.Invoke, F: "start:marker"}); c.Type != history.Fail ||
		!strings.Contains(c.Error.(string), "defined by a script this run did not load") {
		t.Errorf("unknown script fault: %+v", c)
	}

	// HealScripts reports a failing heal by fault and where it was defined.
	f.Heal = func(context.Context, *control.Pool, []string) (any, error) { return nil, errors.New("boom") }
	if _, err := HealScripts(ctx, pool, []*ScriptFault{f}); err == nil || !strings.Contains(err.Error(), "heal fault marker (defined at t.star:1:1): boom") {
		t.Errorf("HealScripts: %v", err)
	}
}
