package nemesis

import (
	"cmp"
	"context"
	"fmt"
	"regexp"
	"slices"
	"sync"

	"github.com/faultline/faultline/mesh"
)

// A Fault is one kind of fault the nemesis injects. Each is registered once,
// from the file that implements it, with everything the rest of faultline
// needs to know about it: the op that injects it and the one that ends its
// window (the names schedules and histories record, so old sessions replay),
// how its landing is proven, the host capabilities it needs and the phrases
// plans name it by. The Worker, the final heal, fault windows, reduction
// units and the capability probe all read this registry; adding a fault is
// one new file that registers it.
type Fault struct {
	// Name is the fault's name in scenarios: the nemesis.NAME builtin
	// ("partition", "fill_disk"), and the name Cycle takes. "" for a fault
	// no builtin offers (the clock faults, which always fail).
	Name string
	// Inject is the op that injects the fault ("start-partition", "kill").
	Inject string
	// End is the op that ends the fault's window ("stop-partition"); the
	// final "heal" ends every window too. "" when nothing ends it, and
	// NoEnd says why.
	End string
	// NoEnd says why a fault has no end op (file corruption: the damage is
	// the system's to repair); "" for a fault with one.
	NoEnd string
	// Network marks a fault that acts on traffic: in local mode faultline's
	// proxy mesh carries it, so it needs nothing of the host, and its
	// landing is its counted effect (Effect).
	Network bool
	// Effect (network faults) names what the closing read-back counts the
	// fault doing to traffic, for reports ("packets delayed"); a window
	// whose count is 0 is not proven.
	Effect string
	// Landing says what the read-back on the victims must show for the
	// fault to count as landed (its verification; see Window).
	Landing string
	// Needs lists the host capabilities (probe) a scenario using the fault
	// needs on real nodes.
	Needs []string
	// Evidence is the landing declaration a plan gets for the fault when it
	// states none (spec §5); nil for none.
	Evidence *Decl
	// Plan is how a plan's Faults field names the fault; nil when plans
	// have no phrase for it.
	Plan *PlanPhrases
	// Validate checks the value of an Inject op before it is scheduled
	// (Cycle); nil accepts any value.
	Validate func(value any) error
	// Holds names what the fault holds while it is in effect, for faults
	// that cannot overlap others holding the same ("process": a kill and a
	// pause both act on the nodes' process and record their victims for
	// the op that ends them; "qdisc": one root qdisc per interface). A
	// timeline never injects it while another fault holding the same is
	// in effect (it waits for that one's heal). "" means the fault's own
	// inject op: a fault never overlaps itself.
	Holds string
	// FromScript marks a fault a scenario script defined (ScriptFault):
	// its steps are the script's, given to the Worker by Options.Scripts.
	FromScript bool

	// inject performs the Inject op, end the End op.
	inject, end step
	// open (network faults) says whether the fault is still in effect, so
	// the final heal stops it with end first and records what it read
	// back; nil when HealAll alone undoes the fault.
	open func(w *Worker) bool
}

// PlanPhrases is how plans name a fault in a Faults clause.
type PlanPhrases struct {
	Phrases string         // the phrases, as the vocabulary lists them
	Match   *regexp.Regexp // matches a clause that names the fault
	// Target is the builtin's argument that says whom the fault hits:
	// "spec" (partition) or "nodes".
	Target string
	// Rank orders the matching: a clause is tried against lower ranks
	// first, so "kill -STOP" is a pause before it can be a kill.
	Rank int
}

// step performs one nemesis op with the op's value.
type step func(w *Worker, ctx context.Context, v any) (outcome, error)

// onMesh is a network fault's step: meshStep when the pool's network is
// faultline's proxy mesh (local nodes share one host, so the mesh applies
// the fault), else real, on the nodes themselves.
func onMesh(meshStep func(w *Worker, ctx context.Context, m *mesh.Mesh, v any) (outcome, error), real step) step {
	return func(w *Worker, ctx context.Context, v any) (outcome, error) {
		if m := w.mesh(); m != nil {
			return meshStep(w, ctx, m, v)
		}
		return real(w, ctx, v)
	}
}

var (
	registryMu sync.RWMutex
	registry   []Fault            // sorted by Inject
	byOp       = map[string]int{} // Inject and End ops -> index in registry
	byName     = map[string]int{}
)

// register adds a fault. The files that implement faults call it from
// init; a fault without an inject step or a name or op already taken is a
// programming error, reported at startup before anything runs.
func register(f Fault) {
	registryMu.Lock()
	defer registryMu.Unlock()
	if err := checkFault(f); err != nil {
		panic(err)
	}
	registry = append(registry, f)
	// Sorted by op, so every reader sees one order whatever the order of
	// the files' init functions.
	slices.SortFunc(registry, func(a, b Fault) int { return cmp.Compare(a.Inject, b.Inject) })
	clear(byOp)
	clear(byName)
	for i, f := range registry {
		byOp[f.Inject] = i
		if f.End != "" {
			byOp[f.End] = i
		}
		if f.Name != "" {
			byName[f.Name] = i
		}
	}
}

// checkFault reports what makes f unfit for the registry (the caller holds
// registryMu).
func checkFault(f Fault) error {
	switch {
	case f.Inject == "" || f.inject == nil:
		return fmt.Errorf("nemesis: fault %q has no inject op", f.Name)
	case (f.End == "") == (f.NoEnd == ""):
		return fmt.Errorf("nemesis: fault %s needs an end op or a reason it has none, not both", f.Inject)
	case f.End != "" && f.end == nil:
		return fmt.Errorf("nemesis: fault %s has no step for its end op %s", f.Inject, f.End)
	case f.Inject == "heal" || f.End == "heal":
		return fmt.Errorf("nemesis: fault %s: heal is the final heal's op", f.Inject)
	}
	for _, op := range []string{f.Inject, f.End} {
		if _, dup := byOp[op]; dup && op != "" {
			return fmt.Errorf("nemesis: op %s registered twice", op)
		}
	}
	if _, dup := byName[f.Name]; dup && f.Name != "" {
		return fmt.Errorf("nemesis: fault %q registered twice", f.Name)
	}
	return nil
}

// Faults returns every registered fault, ordered by Inject op.
func Faults() []Fault {
	registryMu.RLock()
	defer registryMu.RUnlock()
	return slices.Clone(registry)
}

// Lookup returns the fault a scenario names (Fault.Name).
func Lookup(name string) (Fault, bool) {
	registryMu.RLock()
	defer registryMu.RUnlock()
	i, ok := byName[name]
	if !ok {
		return Fault{}, false
	}
	return registry[i], true
}

// ByOp returns the fault whose Inject or End op is f: a built-in, or a
// script-defined fault (ScriptFault), known by the naming of its ops.
func ByOp(f string) (Fault, bool) {
	registryMu.RLock()
	defer registryMu.RUnlock()
	i, ok := byOp[f]
	if !ok {
		return scriptByOp(f)
	}
	return registry[i], true
}

// EndOf returns the op that ends the window op f opens; ok is false when f
// opens no window (it injects nothing, or a fault nothing ends).
func EndOf(f string) (end string, ok bool) {
	flt, found := ByOp(f)
	if !found || flt.Inject != f || flt.End == "" {
		return "", false
	}
	return flt.End, true
}

// OpensWindow reports whether nemesis op f injects a fault that a later op
// (or the final heal) ends: the faults FaultWindows opens windows for.
func OpensWindow(f string) bool {
	_, ok := EndOf(f)
	return ok
}

// injectOp reports whether nemesis op f injects a fault (one that opens a
// window, or one that leaves damage with no heal).
func injectOp(f string) bool {
	flt, ok := ByOp(f)
	return ok && flt.Inject == f
}
