package nemesis

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/faultline/faultline/gen"
	"github.com/faultline/faultline/history"
)

// Package is a nemesis: a generator of fault cycles (wait interval, inject,
// hold, heal) for the nemesis thread, and a final generator that heals
// everything the cycles may leave. Build one with Cycle, Compose or Custom;
// scenarios build them with the Starlark "nemesis" module (star/nemesis).
type Package struct {
	name   string
	gen    gen.Generator
	cycles []faultCycle // the schedule of a package built from fault cycles
	final  gen.Generator
	// scripts are the script-defined faults the cycles inject.
	scripts []*ScriptFault
}

// Name is what the package was built as: a fault's name, "compose" or
// "custom".
func (p *Package) Name() string { return p.name }

// Within returns the fault cycles (nemesis ops, not yet routed) for a
// workload of d: every inject the schedule puts before d (on its own
// clock, as Planned lists them), each held for its hold once landed and
// then healed, however late that is; nothing is injected after. A custom
// package's ops simply stop at d.
func (p *Package) Within(d time.Duration) gen.Generator {
	if t, ok := p.gen.(*timeline); ok {
		return t.within(d)
	}
	return gen.TimeLimit(d, p.gen)
}

// The bounds of RecoveryTail [executor choice: the spec names no number.
// RF8 compares the second half of the quiet stretch after the last heal
// with the load before the first fault, and needs at least half a second
// of it (session.minRecoveryWindow); the first half is the system's
// settling, which a restarted process, a leader election or a JVM warming
// up takes seconds of. Five seconds leaves 2.5s to settle and 2.5s to
// measure on a short smoke run; a tenth of the load keeps the measured
// stretch in proportion on long runs, up to a minute].
const (
	MinRecoveryTail = 5 * time.Second
	MaxRecoveryTail = time.Minute
)

// RecoveryTail is the quiet load a run keeps after its nemesis's last step
// (gen.Alongside's quiet), so recovery after the last heal can always be
// measured whatever the schedule: a tenth of the workload d, at least
// MinRecoveryTail and at most MaxRecoveryTail. A schedule that already
// ends that long before the load does costs nothing; otherwise the load
// runs on past d by what is missing.
func RecoveryTail(d time.Duration) time.Duration {
	return min(max(d/10, MinRecoveryTail), MaxRecoveryTail)
}

// Final returns the generator that heals what the cycles may leave.
func (p *Package) Final() gen.Generator { return p.final }

// Heal returns a generator of one heal op: every fault removed from every
// node (the final generator of every package).
func Heal() gen.Generator {
	return gen.Op(history.Op{Process: history.NemesisProcess, Type: history.Invoke, F: "heal"})
}

// Custom makes a package of any generator of nemesis ops; its final is a
// single heal. It has no schedule to list (Planned is nil).
func Custom(g gen.Generator) *Package {
	return &Package{name: "custom", gen: g, final: Heal()}
}

// FirstAfterInterval is the Timing.Start that puts a cycle's first fault
// one interval into the run (the default).
const FirstAfterInterval time.Duration = -1

// Timing is when a fault cycle acts: the first fault at Start, held for
// Hold, then again Interval after each heal; with Repeat false the fault
// happens once, at Start. A fault with no end op (file corruption) ignores
// Hold and comes again every Interval.
type Timing struct {
	Start, Interval, Hold time.Duration
	Repeat                bool
}

// DefaultTiming is the timing a scenario gets when it gives none: every
// 10s, held 10s, the first one interval in, repeated.
func DefaultTiming() Timing {
	return Timing{Start: FirstAfterInterval, Interval: 10 * time.Second, Hold: 10 * time.Second, Repeat: true}
}

// Cycle is the package of one fault, named as scenarios name it (Lookup),
// injected with value (the Inject op's value: a grudge spec for a
// partition, {"nodes": ..., ...} for the others; the fault's Validate
// checks it) at the times tm gives.
func Cycle(name string, value any, tm Timing) (*Package, error) {
	f, ok := Lookup(name)
	if !ok {
		return nil, fmt.Errorf("nemesis: no fault named %q", name)
	}
	if f.Validate != nil {
		if err := f.Validate(value); err != nil {
			return nil, fmt.Errorf("nemesis.%s: %w", name, err)
		}
	}
	if tm.Interval < 0 || tm.Hold <= 0 || tm.Start < FirstAfterInterval {
		return nil, fmt.Errorf("nemesis.%s: hold must be positive, interval and start not negative", name)
	}
	if tm.Start == FirstAfterInterval {
		tm.Start = tm.Interval
	}
	cycles := []faultCycle{{inject: f.Inject, heal: f.End, value: value, tm: tm}}
	return &Package{name: name, gen: newTimeline(cycles), cycles: cycles, final: Heal()}, nil
}

// Compose runs every package's faults at their own times (they may
// overlap), with one final heal. Packages that are all fault cycles share
// one timeline, so each fault keeps the times it was given; with a custom
// package among them the generators are mixed.
func Compose(ps ...*Package) (*Package, error) {
	if len(ps) == 0 {
		return nil, errors.New("nemesis.compose: no nemeses")
	}
	var (
		gens   []gen.Generator
		cycles []faultCycle
		timed  = true
	)
	for _, p := range ps {
		gens = append(gens, p.gen)
		cycles = append(cycles, p.cycles...)
		timed = timed && p.cycles != nil
	}
	scripts, err := mergeScripts(ps)
	if err != nil {
		return nil, err
	}
	if timed {
		return &Package{name: "compose", gen: newTimeline(cycles), cycles: cycles, final: Heal(), scripts: scripts}, nil
	}
	return &Package{name: "compose", gen: gen.Mix(gens...), final: Heal(), scripts: scripts}, nil
}

// stopValue is what the healing op of a cycle carries: process faults need
// the same spec (start needs the restart command), network faults nothing.
func stopValue(v any) any {
	if m, ok := v.(map[string]any); ok {
		if _, ok := m["pattern"]; ok {
			return m
		}
	}
	return nil
}

// Scheduled is one op a package asks the nemesis for, and when.
type Scheduled struct {
	F  string        // the op, as the schedule records it
	At time.Duration // from the start of the run
}

// Preview returns what p asks the nemesis for over d of simulated time and
// then its final heal, touching no node: what a run's nemesis would do.
func (p *Package) Preview(d time.Duration) ([]Scheduled, error) {
	rec := &previewer{}
	g := gen.Then(gen.Nemesis(p.Within(d)), gen.Nemesis(p.Final()))
	// Steps take no time here, so the times listed are the schedule's own.
	_, err := gen.Run(context.Background(), g, gen.Config{Concurrency: 1, Virtual: true, Nemesis: rec,
		Client:  func(int, int) (gen.Worker, error) { return &previewer{}, nil },
		Latency: func(*rand.Rand, history.Op) time.Duration { return 0 }})
	if err != nil {
		return nil, fmt.Errorf("preview %s: %w", p.Name(), err)
	}
	return rec.ops, nil
}

// previewer is a worker that answers ok and remembers what it was asked.
type previewer struct{ ops []Scheduled }

func (r *previewer) Invoke(_ context.Context, op history.Op) history.Op {
	r.ops = append(r.ops, Scheduled{F: op.F, At: time.Duration(op.Time)})
	return history.Op{Type: history.OK}
}

func (r *previewer) Close() error { return nil }
