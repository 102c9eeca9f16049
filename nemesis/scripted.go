package nemesis

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/faultline/faultline/control"
)

// A ScriptFault is a fault a scenario script defines at run time (the
// Starlark nemesis.fault): its steps are the script's functions, called
// with the victim nodes. It is scoped to the package that schedules it, so
// two scripts that define faults of the same name never see each other's;
// its ops follow a fixed naming (ScriptOps), so a recorded history is
// judged, windowed and replayed without the script's Go side.
type ScriptFault struct {
	Name string
	// Pos is where the script defined it ("suite.star:12:20"), for errors.
	Pos string
	// Start injects the fault on the victims (required).
	Start Action
	// Stop ends it on the same victims; nil: Heal ends it, and with no Heal
	// either the fault has no end (its damage stays, like file corruption).
	Stop Action
	// Verify reads back from the victims whether the fault is in effect:
	// the landing evidence. An empty result (None, {}, [], False) means not
	// in effect. Without Verify no fault of this kind can count as landed.
	Verify Action
	// Heal undoes the fault wherever it may be; it gets every node of the
	// pool and must be idempotent: the final heal, the heal on every way
	// out of a run, and `faultline heal --session` after a killed
	// controller run it.
	Heal Action
}

// An Action runs one step of a script-defined fault on nodes of pool and
// returns what the script's function returned, as a Go value (nil, bool,
// string, int64, float64, []any, map[string]any).
type Action func(ctx context.Context, pool *control.Pool, nodes []string) (any, error)

// scriptOpPrefixes are the op names of script-defined faults: start:NAME
// injects, stop:NAME ends, inject:NAME injects a fault with no end. No
// built-in op has a colon, so these never clash with one.
const (
	scriptStart  = "start:"
	scriptStop   = "stop:"
	scriptInject = "inject:"
)

// scriptName is what nemesis.fault accepts as a name: it is part of the
// fault's ops, so it must read back from them unambiguously.
var scriptName = regexp.MustCompile(`^[a-z][a-z0-9_-]*$`)

// ScriptOps returns the inject and end ops of a script-defined fault
// named name; end is "" when it has no end (no Stop and no Heal).
func (f *ScriptFault) ScriptOps() (inject, end string) {
	if f.Stop == nil && f.Heal == nil {
		return scriptInject + f.Name, ""
	}
	return scriptStart + f.Name, scriptStop + f.Name
}

// Fault is f's registry entry: what ByOp answers for its ops.
func (f *ScriptFault) Fault() Fault {
	inject, end := f.ScriptOps()
	return scriptFault(f.Name, inject, end)
}

func scriptFault(name, inject, end string) Fault {
	flt := Fault{Name: name, Inject: inject, End: end, FromScript: true,
		Landing: "the script's verify(nodes) returned non-empty evidence after inject (and, when it ended, still did before stop)"}
	if end == "" {
		flt.NoEnd = "the script defined neither stop nor heal"
	}
	return flt
}

// scriptByOp answers ByOp for the ops of script-defined faults, from the
// op's name alone.
func scriptByOp(op string) (Fault, bool) {
	for _, p := range []struct{ prefix, inject, end string }{
		{scriptStart, scriptStart, scriptStop}, {scriptStop, scriptStart, scriptStop}, {scriptInject, scriptInject, ""},
	} {
		name, ok := strings.CutPrefix(op, p.prefix)
		if !ok || !scriptName.MatchString(name) {
			continue
		}
		end := ""
		if p.end != "" {
			end = p.end + name
		}
		return scriptFault(name, p.inject+name, end), true
	}
	return Fault{}, false
}

// Scripted is the faults one script defines, in the order it defined them.
// It is how a script registers faults at run time: Define checks a new one
// against the built-in registry and the script's own, so a clash is an
// error at the line that defined it, never a silently shadowed fault.
type Scripted struct {
	mu     sync.Mutex
	faults []*ScriptFault
}

// Define registers f for its script. A name a built-in fault has, a name
// the script already defined, or a name that cannot be part of an op is an
// error naming both definitions.
func (s *Scripted) Define(f *ScriptFault) error {
	if !scriptName.MatchString(f.Name) {
		return fmt.Errorf("fault name %q: want lower-case letters, digits, '-' and '_', starting with a letter", f.Name)
	}
	if f.Start == nil {
		return fmt.Errorf("fault %q: no start function", f.Name)
	}
	if b, ok := Lookup(f.Name); ok {
		return fmt.Errorf("fault %q clashes with the built-in fault nemesis.%s (ops %s); give yours another name", f.Name, b.Name, b.Inject)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, g := range s.faults {
		if g.Name == f.Name {
			return fmt.Errorf("fault %q is already defined at %s", f.Name, g.Pos)
		}
	}
	s.faults = append(s.faults, f)
	return nil
}

// Faults returns the faults defined so far.
func (s *Scripted) Faults() []*ScriptFault {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.faults)
}

// ScriptCycle is the package of a script-defined fault, injected with
// value ({"nodes": spec}: the victims) at the times tm gives. The package
// carries f, so the run's Worker and heal can call its steps.
func ScriptCycle(f *ScriptFault, value any, tm Timing) (*Package, error) {
	switch spec := nodesOf(value).(type) {
	case nil, []any, []string:
	case string:
		if spec == "" {
			return nil, fmt.Errorf("nemesis fault %s: empty node spec", f.Name)
		}
	default:
		return nil, fmt.Errorf("nemesis fault %s: nodes must be a spec such as \"one\" or a list of node names, got %T", f.Name, spec)
	}
	if tm.Interval < 0 || tm.Hold <= 0 || tm.Start < FirstAfterInterval {
		return nil, fmt.Errorf("nemesis fault %s: hold must be positive, interval and start not negative", f.Name)
	}
	if tm.Start == FirstAfterInterval {
		tm.Start = tm.Interval
	}
	inject, end := f.ScriptOps()
	cycles := []faultCycle{{inject: inject, heal: end, value: value, tm: tm}}
	return &Package{name: f.Name, gen: newTimeline(cycles), cycles: cycles, final: Heal(), scripts: []*ScriptFault{f}}, nil
}

func nodesOf(v any) any {
	if m, ok := v.(map[string]any); ok {
		return m["nodes"]
	}
	return nil
}

// mergeScripts unions the script faults of composed packages; two
// different faults of one name cannot both run.
func mergeScripts(ps []*Package) ([]*ScriptFault, error) {
	var out []*ScriptFault
	for _, p := range ps {
		for _, f := range p.scripts {
			i := slices.IndexFunc(out, func(g *ScriptFault) bool { return g.Name == f.Name })
			switch {
			case i < 0:
				out = append(out, f)
			case out[i] != f:
				return nil, fmt.Errorf("nemesis.compose: two faults named %q (defined at %s and %s)", f.Name, out[i].Pos, f.Pos)
			}
		}
	}
	return out, nil
}

// Scripts returns the script-defined faults p schedules.
func (p *Package) Scripts() []*ScriptFault { return slices.Clone(p.scripts) }

// scriptStep performs an op of a script-defined fault.
func (w *Worker) scriptStep(ctx context.Context, flt Fault, op string, v any) (outcome, error) {
	f, ok := w.scripts[flt.Name]
	if !ok {
		return outcome{value: v}, fmt.Errorf("nemesis: fault %q is defined by a script this run did not load (op %s)", flt.Name, op)
	}
	if op == flt.Inject {
		return w.scriptStart(ctx, f, v)
	}
	return w.scriptEnd(ctx, f, v)
}

func (w *Worker) scriptStart(ctx context.Context, f *ScriptFault, v any) (outcome, error) {
	targets, err := w.targets(ctx, f.Name, nodesOf(v))
	if err != nil {
		return outcome{value: v}, err
	}
	val := resolved(v, targets)
	if _, err := f.Start(ctx, w.opts.Pool, targets); err != nil {
		// The script may have acted on some victims before it failed.
		return outcome{value: val, applied: true}, fmt.Errorf("fault %s: start: %w", f.Name, err)
	}
	if _, end := f.ScriptOps(); end != "" {
		// Remembered for the stop (or the final heal) that ends it; a
		// fault with no end has nothing to end.
		if w.scriptTargets == nil {
			w.scriptTargets = map[string][]string{}
		}
		w.scriptTargets[f.Name] = targets
	}
	rb, err := verify(ctx, w.opts.Pool, f, targets)
	res := outcome{value: val, evidence: rb.evidence, landed: rb.all(), applied: true, note: rb.gap()}
	return res, err
}

// scriptEnd ends a script fault on the victims its start hit: verify
// first (was it still in effect?), then stop (or heal), then verify again
// (is it gone?).
func (w *Worker) scriptEnd(ctx context.Context, f *ScriptFault, v any) (outcome, error) {
	targets, ok := w.scriptTargets[f.Name]
	if !ok {
		var err error
		// Not started by this worker (a replay that begins mid-cycle):
		// the op's value names the victims, or all nodes.
		if targets, err = w.targets(ctx, f.Name, cmpOr(nodesOf(v), "all")); err != nil {
			return outcome{value: v}, err
		}
	}
	delete(w.scriptTargets, f.Name)
	val := resolved(v, targets)
	before, err := verify(ctx, w.opts.Pool, f, targets)
	if err != nil {
		return outcome{value: val}, err
	}
	step, what := f.Stop, "stop"
	if step == nil {
		step, what = f.Heal, "heal"
	}
	if step == nil {
		return outcome{value: val}, fmt.Errorf("fault %s defines neither stop nor heal: nothing ends it", f.Name)
	}
	if _, err := step(ctx, w.opts.Pool, targets); err != nil {
		healed := false
		return outcome{value: val, evidence: map[string]any{"before": before.evidence}, healed: &healed,
			note: fmt.Sprintf("its %s failed, so nothing shows the fault ended", what)}, fmt.Errorf("fault %s: %s: %w", f.Name, what, err)
	}
	after, err := verify(ctx, w.opts.Pool, f, targets)
	healed := err == nil && !after.any()
	res := outcome{value: val, evidence: map[string]any{"before": before.evidence, "after": after.evidence}, landed: err == nil, healed: &healed}
	if f.Verify != nil {
		held := before.all()
		res.held = &held
	}
	if err == nil && !healed {
		res.note = fmt.Sprintf("after its %s, verify still showed it in effect on %s", what, after.stillOn())
	}
	return res, err
}

func cmpOr(v, def any) any {
	if v == nil {
		return def
	}
	return v
}

// readBack is what a fault's verify read from its victims, judged per
// victim: a built-in fault proves its landing on each node it acted on, so a
// script's must too. Evidence for a node that is not a victim proves
// nothing about the victims and is left out; a result that is not keyed by
// node name (a bare True, a list) cannot say which victim it came from.
type readBack struct {
	victims []string
	// evidence is each victim's non-empty entry, keyed by node name.
	evidence map[string]any
	// strangers are the keys verify returned that name no victim.
	strangers []string
	// unkeyed is set when verify returned something non-empty that is not
	// a dict: its type, for the reason.
	unkeyed  string
	noVerify bool
}

// all reports whether every victim showed the fault in effect.
func (r readBack) all() bool {
	return !r.noVerify && len(r.victims) > 0 && len(r.missing()) == 0
}

// any reports whether verify showed the fault on any victim, or said
// something it cannot attribute (then it cannot be shown gone either).
func (r readBack) any() bool { return len(r.evidence) > 0 || r.unkeyed != "" }

// missing lists the victims verify showed no evidence for.
func (r readBack) missing() []string {
	var out []string
	for _, v := range r.victims {
		if _, ok := r.evidence[v]; !ok {
			out = append(out, v)
		}
	}
	return out
}

// stillOn names where verify still showed the fault.
func (r readBack) stillOn() string {
	if len(r.evidence) > 0 {
		return strings.Join(slices.Sorted(maps.Keys(r.evidence)), ", ")
	}
	return "the victims (it returned a " + r.unkeyed + " not keyed by node name)"
}

// gap says why the read-back does not prove the fault on every victim, ""
// when it does. It is recorded with the op, so the window's reason (judged
// from the history alone) names the victims and what to change.
func (r readBack) gap() string {
	if r.all() {
		return ""
	}
	if r.noVerify {
		return "the fault defines no verify, so nothing was read back from the victims; fix: pass verify = a function returning {node.name: evidence} for each victim"
	}
	var parts []string
	if r.unkeyed != "" {
		parts = append(parts, "verify returned a "+r.unkeyed+", not a dict keyed by victim node name, so it shows no victim")
	}
	if m := r.missing(); len(m) > 0 {
		parts = append(parts, "verify(nodes) returned no evidence for victim "+strings.Join(m, ", "))
	}
	if len(r.strangers) > 0 {
		parts = append(parts, "evidence for "+strings.Join(r.strangers, ", ")+" does not count: not a victim")
	}
	return strings.Join(parts, "; ") + "; fix: return {node.name: evidence} read back on each victim node verify is given"
}

// verify runs f's Verify on targets and judges what it returned per victim.
// With no Verify there is no evidence, so not landed.
func verify(ctx context.Context, pool *control.Pool, f *ScriptFault, targets []string) (readBack, error) {
	rb := readBack{victims: targets, evidence: map[string]any{}}
	if f.Verify == nil {
		rb.noVerify = true
		return rb, nil
	}
	v, err := f.Verify(ctx, pool, targets)
	if err != nil {
		return rb, fmt.Errorf("fault %s: verify: %w", f.Name, err)
	}
	judgeReadBack(&rb, v)
	return rb, nil
}

// judgeReadBack files what verify returned into rb.
func judgeReadBack(rb *readBack, v any) {
	m, ok := v.(map[string]any)
	if !ok {
		if !empty(v) {
			rb.unkeyed = fmt.Sprintf("%T", v)
		}
		return
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		switch {
		case !slices.Contains(rb.victims, k):
			rb.strangers = append(rb.strangers, k)
		case !empty(m[k]):
			rb.evidence[k] = m[k]
		}
	}
}

// empty reports whether a value a script returned says "nothing": None,
// False, "", 0, or an empty list or dict.
func empty(v any) bool {
	if v == nil {
		return true
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Slice, reflect.Map, reflect.String:
		return rv.Len() == 0
	}
	return rv.IsZero()
}

// HealScripts runs the Heal of every fault in fs on every node of pool
// (Stop is not safe where the fault may not be), after HealAll removed
// faultline's own. It reports per fault ("fault NAME") on which nodes the
// heal ran, or that the script gave none, and joins the failures.
func HealScripts(ctx context.Context, pool *control.Pool, fs []*ScriptFault) (HealReport, error) {
	rep := HealReport{}
	var errs []error
	nodes := nodeNamesOf(pool)
	for _, f := range fs {
		key := "fault " + f.Name
		if f.Heal == nil {
			rep[key] = []string{"the script defines no heal for it: nothing run"}
			continue
		}
		if _, err := f.Heal(ctx, pool, nodes); err != nil {
			errs = append(errs, fmt.Errorf("heal fault %s (defined at %s): %w", f.Name, f.Pos, err))
			rep[key] = []string{"heal failed"}
			continue
		}
		rep[key] = []string{"heal ran on " + strings.Join(nodes, ", ")}
	}
	return rep, errors.Join(errs...)
}

func nodeNamesOf(pool *control.Pool) []string {
	var out []string
	for _, n := range pool.Nodes() {
		out = append(out, n.Name)
	}
	return out
}

// openScripts (the final heal) ends every script fault still in effect the
// ordinary way, so its window records what verify read back, and returns
// fault -> held for those that have a verify.
func (w *Worker) openScripts(ctx context.Context) (map[string]any, error) {
	held := map[string]any{}
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(w.scriptTargets)) {
		f := w.scripts[name]
		res, err := w.scriptEnd(ctx, f, nil)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if res.healed != nil && !*res.healed {
			// The heal op's healed must not say yes over it.
			errs = append(errs, fmt.Errorf("fault %s: %s", f.Name, res.note))
		}
		inject, _ := f.ScriptOps()
		if res.held != nil {
			held[inject] = *res.held
		} else {
			held[inject] = res.landed
		}
	}
	return held, errors.Join(errs...)
}
