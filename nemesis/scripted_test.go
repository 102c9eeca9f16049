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

// A script fault's read-back is judged per victim, as a built-in's is:
// every victim must be shown, evidence for a node that is not a victim
// does not count, and a value not keyed by node name shows no victim.
func TestScriptReadBack(t *testing.T) {
	for _, tc := range []struct {
		name     string
		victims  []string
		v        any
		all, any bool
		gap      string
	}{
		{"every victim shown", []string{"n1", "n2"}, map[string]any{"n1": "on", "n2": "on"}, true, true, ""},
		{"only a non-victim shown", []string{"n1"}, map[string]any{"n2": "on"}, false, false, "evidence for n2 does not count: not a victim"},
		{"one victim of two", []string{"n1", "n2"}, map[string]any{"n1": "on", "n2": ""}, false, true, "returned no evidence for victim n2"},
		{"victims and a stranger", []string{"n1"}, map[string]any{"n1": "on", "n3": "on"}, true, true, ""},
		{"a bare True", []string{"n1"}, true, false, true, "verify returned a bool, not a dict keyed by victim node name"},
		{"a list", []string{"n1"}, []any{"n1"}, false, true, "not a dict keyed by victim node name"},
		{"None", []string{"n1"}, nil, false, false, "returned no evidence for victim n1"},
		{"no victims", nil, map[string]any{}, false, false, ""},
	} {
		rb := readBack{victims: tc.victims, evidence: map[string]any{}}
		judgeReadBack(&rb, tc.v)
		if rb.all() != tc.all || rb.any() != tc.any || (tc.gap != "" && !strings.Contains(rb.gap(), tc.gap)) || (tc.all && rb.gap() != "") {
			t.Errorf("%s: all %v any %v gap %q; want all %v any %v gap containing %q", tc.name, rb.all(), rb.any(), rb.gap(), tc.all, tc.any, tc.gap)
		}
		for k := range rb.evidence {
			if !slices.Contains(tc.victims, k) {
				t.Errorf("%s: evidence recorded for %s, not a victim", tc.name, k)
			}
		}
	}
}

// The contract built-in faults meet holds for script faults run by the
// Worker: a verify that shows only a non-victim does not land the fault; a
// stop that leaves it in effect, or fails, leaves the window not healed
// with the reason; a fault with neither stop nor heal is a fault, its
// window judged by its landing.
func TestWorkerScriptFaultContract(t *testing.T) {
	pool, sup, err := control.NewLocalPool(t.TempDir(), []string{"n1", "n2", "n3"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sup.Close(); pool.Close() })
	ctx := context.Background()
	run := func(f *ScriptFault, steps ...history.Op) []history.Op {
		t.Helper()
		w, err := New(Options{Pool: pool, Seed: 1, Scripts: []*ScriptFault{f}})
		if err != nil {
			t.Fatal(err)
		}
		var ops []history.Op
		for i, inv := range steps {
			inv.Process, inv.Type, inv.Time = history.NemesisProcess, history.Invoke, int64(i)*int64(time.Second)
			c := w.Invoke(ctx, inv)
			c.Process, c.F, c.Time = inv.Process, inv.F, inv.Time+1
			ops = append(ops, inv, c)
		}
		return ops
	}
	on := map[string]bool{}
	var mu sync.Mutex
	set := func(v bool) Action {
		return func(_ context.Context, _ *control.Pool, nodes []string) (any, error) {
			mu.Lock()
			defer mu.Unlock()
			for _, n := range nodes {
				on[n] = v
			}
			return nil, nil
		}
	}
	look := func(_ context.Context, _ *control.Pool, nodes []string) (any, error) {
		mu.Lock()
		defer mu.Unlock()
		ev := map[string]any{}
		for _, n := range nodes {
			if on[n] {
				ev[n] = "on"
			}
		}
		return ev, nil
	}
	n1 := map[string]any{"nodes": []any{"n1"}}

	t.Run("evidence for a non-victim", func(t *testing.T) {
		f := &ScriptFault{Name: "liar", Start: set(true), Stop: set(false), Heal: set(false),
			Verify: func(context.Context, *control.Pool, []string) (any, error) { return map[string]any{"n2": "on"}, nil }}
		ws := FaultWindows(run(f, history.Op{F: "start:liar", Value: n1}, history.Op{F: "stop:liar"}))
		if len(ws) != 1 || ws[0].Proven || !strings.Contains(ws[0].Reason, "evidence for n2 does not count: not a victim") ||
			!strings.Contains(ws[0].Reason, "returned no evidence for victim n1") {
			t.Errorf("windows %+v, want one not proven, naming the non-victim", ws)
		}
	})
	t.Run("stop leaves it in effect", func(t *testing.T) {
		f := &ScriptFault{Name: "sticky", Start: set(true), Stop: set(true), Heal: set(false), Verify: look}
		ws := FaultWindows(run(f, history.Op{F: "start:sticky", Value: n1}, history.Op{F: "stop:sticky"}))
		if len(ws) != 1 || !ws[0].Proven || ws[0].Healed == nil || *ws[0].Healed || !strings.Contains(ws[0].HealNote, "after its stop, verify still showed it in effect on n1") {
			t.Errorf("windows %+v, want one proven but not healed, saying where it stayed", ws)
		}
	})
	t.Run("stop fails", func(t *testing.T) {
		f := &ScriptFault{Name: "broken", Start: set(true), Heal: set(false), Verify: look,
			Stop: func(context.Context, *control.Pool, []string) (any, error) { return nil, errors.New("exit status 7") }}
		ws := FaultWindows(run(f, history.Op{F: "start:broken", Value: n1}, history.Op{F: "stop:broken"}))
		if len(ws) != 1 || ws[0].Healed == nil || *ws[0].Healed || !strings.Contains(ws[0].HealNote, "exit status 7") {
			t.Errorf("windows %+v, want one not healed, with the stop's error", ws)
		}
		set(false)(ctx, pool, []string{"n1"})
	})
	t.Run("the final heal finds it still in effect", func(t *testing.T) {
		f := &ScriptFault{Name: "sticky2", Start: set(true), Stop: set(true), Heal: set(true), Verify: look}
		ops := run(f, history.Op{F: "start:sticky2", Value: n1}, history.Op{F: "heal"})
		ws := FaultWindows(ops)
		if len(ws) != 1 || ws[0].Healed == nil || *ws[0].Healed || !strings.Contains(ws[0].HealNote, "still showed it in effect on n1") {
			t.Errorf("windows %+v, want one the final heal did not heal", ws)
		}
		set(false)(ctx, pool, []string{"n1"})
	})
	t.Run("clean stop", func(t *testing.T) {
		f := &ScriptFault{Name: "clean", Start: set(true), Stop: set(false), Heal: set(false), Verify: look}
		ws := FaultWindows(run(f, history.Op{F: "start:clean", Value: n1}, history.Op{F: "stop:clean"}))
		if len(ws) != 1 || !ws[0].Proven || ws[0].Healed == nil || !*ws[0].Healed || ws[0].HealNote != "" {
			t.Errorf("windows %+v, want one proven and healed", ws)
		}
	})
	t.Run("inject-only", func(t *testing.T) {
		f := &ScriptFault{Name: "scar", Start: set(true), Verify: look}
		ws := FaultWindows(run(f, history.Op{F: "inject:scar", Value: n1}))
		if len(ws) != 1 || !ws[0].Proven || ws[0].OneShot == "" || ws[0].End != ws[0].Start || !strings.Contains(ws[0].Reason, "one-shot") {
			t.Errorf("windows %+v, want one one-shot window, proven", ws)
		}
		set(false)(ctx, pool, []string{"n1"})
	})
	t.Run("inject-only without evidence", func(t *testing.T) {
		f := &ScriptFault{Name: "dud", Start: set(false), Verify: look}
		ws := FaultWindows(run(f, history.Op{F: "inject:dud", Value: n1}))
		if len(ws) != 1 || ws[0].Proven || !strings.Contains(ws[0].Reason, "returned no evidence for victim n1") {
			t.Errorf("windows %+v, want one one-shot window, not proven", ws)
		}
	})
}
