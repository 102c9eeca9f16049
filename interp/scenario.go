package interp

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"

	"github.com/faultline/faultline/check"
	"github.com/faultline/faultline/client"
	"github.com/faultline/faultline/gen"
	"github.com/faultline/faultline/logaudit"
	"github.com/faultline/faultline/nemesis"
	"github.com/faultline/faultline/star"
	starcheck "github.com/faultline/faultline/star/check"
	starclient "github.com/faultline/faultline/star/client"
	starevidence "github.com/faultline/faultline/star/evidence"
	stargen "github.com/faultline/faultline/star/gen"
	starnemesis "github.com/faultline/faultline/star/nemesis"
)

// Tiers are the budget tiers a scenario runs under, weakest first.
var Tiers = []string{"smoke", "hardening", "release"}

// Budget bounds one run of a scenario at one tier.
type Budget struct {
	Duration time.Duration // wall-clock (or simulated) length of the workload
	Ops      int64         // stop issuing client ops after this many (0 = no limit)
	Steps    uint64        // Starlark steps all generator callbacks of a run may take (0 = no limit on the run; stargen.CallSteps bounds each callback)
	Faults   int           // faults the tier requires to have landed
	Seeds    int           // distinct seeds the tier requires
	MinOps   int64         // client ops that must end ok or fail (a known outcome) for the run to count
}

// defaultBudget applies when a scenario declares no budgets at all.
var defaultBudget = Budget{Duration: 10 * time.Second, Seeds: 1}

// defaultSteps bounds the Starlark work of loading a script (an endless loop
// at load time is an input error); at run time generator callbacks are
// bounded by stargen.CallSteps each instead.
const defaultSteps = 50_000_000

// Scenario is one scenario(...) declaration, ready to run.
type Scenario struct {
	Name        string
	Pos         syntax.Position // where scenario() was called
	Description string
	Falsifies   []string
	Client      client.Client
	Workload    starlark.Value // a generator for client threads
	Checker     check.Checker
	Concurrency string // "5" or "2n"
	Nodes       []string
	Budgets     map[string]Budget
	OpTimeout   time.Duration
	Time        string   // "auto", "virtual" or "real"
	libs        []LibUse // the --lib files the script loaded (Load sets it), recorded by Run
	params      Params   // the -p values the script loaded with (Load sets it), recorded by Run
	overrides   Overrides
	// Nemesis is the scenario's faults (nil = none); Landing the evidence
	// the run must show that they took effect.
	Nemesis *nemesis.Package
	// NemesisByTier holds each tier's faults when the script gives nemesis
	// as a dict keyed by tier; a run takes its tier's (none for a tier the
	// dict leaves out).
	NemesisByTier map[string]*nemesis.Package
	Landing       []*nemesis.Decl
	// DB sets the system under test up and tears it down on the nodes
	// (nil = the system is managed outside faultline).
	DB *DB
	// Final is a generator of client ops run once the workload's time is
	// up and the nemesis's final heal is done, before teardown and the
	// checker: a final read of the healed, quiet system, such as the dump
	// check.no_lost_ack judges (nil = none). FinalTimeout bounds it, so a
	// dead cluster cannot hang the run.
	Final        starlark.Value
	FinalTimeout time.Duration
	// Logs is what the scenario says of its system's logs: the db
	// recipe's declarations and scenario(logs = ...) together.
	Logs logaudit.Spec
}

// defaultFinalTimeout bounds a scenario's final phase when it sets no final_timeout.
const defaultFinalTimeout = 30 * time.Second

// Budget returns the scenario's budget for tier, with the duration
// --time-limit gives in place of the script's.
func (s *Scenario) Budget(tier string) (Budget, error) {
	b, err := s.scriptBudget(tier)
	if err == nil && s.overrides.TimeLimit > 0 {
		b.Duration = s.overrides.TimeLimit
	}
	return b, err
}

// scriptBudget is the budget the script declares for tier.
func (s *Scenario) scriptBudget(tier string) (Budget, error) {
	if len(s.Budgets) == 0 {
		return defaultBudget, nil
	}
	b, ok := s.Budgets[tier]
	if !ok {
		have := make([]string, 0, len(s.Budgets))
		for t := range s.Budgets {
			have = append(have, t)
		}
		sort.Strings(have)
		return Budget{}, fmt.Errorf("scenario %q declares no %q budget (it has: %s)", s.Name, tier, strings.Join(have, ", "))
	}
	return b, nil
}

// budgetValue is the Starlark value built by budget(...).
type budgetValue struct{ b Budget }

func (v *budgetValue) String() string {
	return fmt.Sprintf("budget(duration=%q, ops=%d, faults=%d, seeds=%d, min_ops=%d)", v.b.Duration, v.b.Ops, v.b.Faults, v.b.Seeds, v.b.MinOps)
}
func (v *budgetValue) Type() string          { return "budget" }
func (v *budgetValue) Freeze()               {}
func (v *budgetValue) Truth() starlark.Bool  { return true }
func (v *budgetValue) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable: budget") }

// budgetBuiltin is budget(duration, ops=0, steps=0, faults=0, seeds=1, min_ops=0).
func budgetBuiltin(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var d star.Duration
	var ops, steps, faults, minOps int64
	seeds := 1
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "duration", &d, "ops?", &ops, "steps?", &steps,
		"faults?", &faults, "seeds?", &seeds, "min_ops?", &minOps); err != nil {
		return nil, err
	}
	if d <= 0 {
		return nil, fmt.Errorf("budget: duration must be positive")
	}
	if ops < 0 || steps < 0 || faults < 0 || seeds < 1 || minOps < 0 {
		return nil, fmt.Errorf("budget: counts must not be negative and seeds must be at least 1")
	}
	return &budgetValue{Budget{Duration: time.Duration(d), Ops: ops, Steps: uint64(steps), Faults: int(faults), Seeds: seeds, MinOps: minOps}}, nil
}

// collectorKey is the thread-local under which scenario() appends declarations.
const collectorKey = "faultline.scenarios"

type collector struct{ scenarios []*Scenario }

// scenarioBuiltin is scenario(name, client, workload, checker, ...).
func scenarioBuiltin(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var (
		name, description, timeMode string
		cl, workload, checker       starlark.Value
		nodes, budgets, falsifies   starlark.Value
		nem, landing, dbRecipe      starlark.Value
		final, logs                 starlark.Value
		opTimeout                                  = star.Duration(5 * time.Second)
		finalTimeout                               = star.Duration(defaultFinalTimeout)
		conc                        starlark.Value = starlark.MakeInt(5)
	)
	timeMode = "auto"
	if err := starlark.UnpackArgs(b.Name(), args, kwargs,
		"name", &name, "client", &cl, "workload", &workload, "checker", &checker,
		"concurrency?", &conc, "nodes?", &nodes, "budgets?", &budgets,
		"op_timeout?", &opTimeout, "falsifies?", &falsifies, "description?", &description,
		"time?", &timeMode, "nemesis?", &nem, "landing?", &landing, "db?", &dbRecipe,
		"final?", &final, "final_timeout?", &finalTimeout, "logs?", &logs); err != nil {
		return nil, err
	}
	s := &Scenario{Name: name, Pos: thread.CallFrame(1).Pos, Description: description, Workload: workload,
		OpTimeout: time.Duration(opTimeout), Time: timeMode, FinalTimeout: time.Duration(finalTimeout)}
	if final != nil && final != starlark.None {
		s.Final = final
	}
	if s.FinalTimeout <= 0 {
		return nil, fmt.Errorf("scenario %q: final_timeout must be positive", name)
	}
	if name == "" || strings.ContainsAny(name, "/\\ \t\n") {
		return nil, fmt.Errorf("scenario: name %q must be non-empty with no spaces or slashes (it names a directory)", name)
	}
	var ok bool
	if s.Client, ok = starclient.FromStarlark(cl); !ok {
		return nil, fmt.Errorf("scenario %q: client must be a client (e.g. client.register()), got %s", name, cl.Type())
	}
	var err error
	if s.Checker, err = starcheck.FromStarlark(checker); err != nil {
		return nil, fmt.Errorf("scenario %q: checker: %w", name, err)
	}
	switch c := conc.(type) {
	case starlark.Int:
		n, ok := c.Int64()
		if !ok || n < 1 {
			return nil, fmt.Errorf("scenario %q: concurrency must be at least 1", name)
		}
		s.Concurrency = fmt.Sprint(n)
	case starlark.String:
		s.Concurrency = string(c)
	default:
		return nil, fmt.Errorf("scenario %q: concurrency must be an int or a string like \"2n\"", name)
	}
	if s.Nodes, err = stringList(nodes); err != nil {
		return nil, fmt.Errorf("scenario %q: nodes: %w", name, err)
	}
	if len(s.Nodes) == 0 {
		s.Nodes = []string{"n1", "n2", "n3"}
	}
	if s.Falsifies, err = stringList(falsifies); err != nil {
		return nil, fmt.Errorf("scenario %q: falsifies: %w", name, err)
	}
	if s.Budgets, err = budgetMap(budgets); err != nil {
		return nil, fmt.Errorf("scenario %q: budgets: %w", name, err)
	}
	if dbRecipe != nil && dbRecipe != starlark.None {
		if s.DB, err = dbFromStarlark(dbRecipe); err != nil {
			return nil, fmt.Errorf("scenario %q: %w", name, err)
		}
	}
	if s.Logs, err = logSpec(logs); err != nil {
		return nil, fmt.Errorf("scenario %q: logs: %w", name, err)
	}
	if s.DB != nil {
		s.Logs = s.DB.LogSpec.Merge(s.Logs)
	}
	if err := s.Logs.Check(); err != nil {
		return nil, fmt.Errorf("scenario %q: %w", name, err)
	}
	if d, ok := nem.(*starlark.Dict); ok {
		if s.NemesisByTier, err = nemesisByTier(d); err != nil {
			return nil, fmt.Errorf("scenario %q: nemesis: %w", name, err)
		}
	} else if nem != nil && nem != starlark.None {
		if s.Nemesis, err = starnemesis.FromStarlark(nem); err != nil {
			return nil, fmt.Errorf("scenario %q: %w", name, err)
		}
	}
	if s.Landing, err = starevidence.DeclsFromStarlark(landing); err != nil {
		return nil, fmt.Errorf("scenario %q: %w", name, err)
	}
	if len(s.Landing) > 0 && s.Nemesis == nil && s.NemesisByTier == nil {
		return nil, fmt.Errorf("scenario %q: landing evidence is declared but no nemesis", name)
	}
	switch timeMode {
	case "auto", "virtual", "real":
	default:
		return nil, fmt.Errorf("scenario %q: time must be \"auto\", \"virtual\" or \"real\", got %q", name, timeMode)
	}
	if s.Time == "virtual" && !s.Client.Simulated() {
		return nil, fmt.Errorf("scenario %q: time=\"virtual\" needs an in-process client; %s talks to a real system", name, cl)
	}
	col, _ := thread.Local(collectorKey).(*collector)
	if col == nil {
		return nil, fmt.Errorf("scenario() may only be called while loading a script")
	}
	for _, prev := range col.scenarios {
		if prev.Name == name {
			return nil, fmt.Errorf("scenario %q is already declared at %s", name, prev.Pos)
		}
	}
	col.scenarios = append(col.scenarios, s)
	return starlark.None, nil
}

func stringList(v starlark.Value) ([]string, error) {
	if v == nil || v == starlark.None {
		return nil, nil
	}
	it, ok := v.(starlark.Iterable)
	if !ok {
		return nil, fmt.Errorf("want a list of strings, got %s", v.Type())
	}
	var out []string
	iter := it.Iterate()
	defer iter.Done()
	var x starlark.Value
	for iter.Next(&x) {
		s, ok := starlark.AsString(x)
		if !ok {
			return nil, fmt.Errorf("want a list of strings, found %s", x.Type())
		}
		out = append(out, s)
	}
	return out, nil
}

func budgetMap(v starlark.Value) (map[string]Budget, error) {
	if v == nil || v == starlark.None {
		return nil, nil
	}
	d, ok := v.(*starlark.Dict)
	if !ok {
		return nil, fmt.Errorf("want a dict of tier -> budget(...), got %s", v.Type())
	}
	out := map[string]Budget{}
	for _, item := range d.Items() {
		tier, ok := starlark.AsString(item[0])
		if !ok || !ValidTier(tier) {
			return nil, fmt.Errorf("unknown tier %s (want one of %s)", item[0], strings.Join(Tiers, ", "))
		}
		bv, ok := item[1].(*budgetValue)
		if !ok {
			return nil, fmt.Errorf("tier %q: want budget(...), got %s", tier, item[1].Type())
		}
		out[tier] = bv.b
	}
	return out, nil
}

// ValidTier reports whether t names a budget tier.
func ValidTier(t string) bool {
	for _, x := range Tiers {
		if x == t {
			return true
		}
	}
	return false
}

// finalGenerator is the scenario's final phase as a generator, nil when it
// has none.
func (s *Scenario) finalGenerator() (gen.Generator, error) {
	if s.Final == nil {
		return nil, nil
	}
	g, err := stargen.FromStarlark(s.Final)
	if err != nil {
		return nil, fmt.Errorf("final: %w", err)
	}
	return g, nil
}

// nemesisByTier reads nemesis = {"smoke": ..., "hardening": ...}.
func nemesisByTier(d *starlark.Dict) (map[string]*nemesis.Package, error) {
	out := make(map[string]*nemesis.Package, d.Len())
	for _, item := range d.Items() {
		tier, ok := starlark.AsString(item[0])
		if !ok || !ValidTier(tier) {
			return nil, fmt.Errorf("key %s: want a tier (%s)", item[0], strings.Join(Tiers, ", "))
		}
		p, err := starnemesis.FromStarlark(item[1])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", tier, err)
		}
		out[tier] = p
	}
	return out, nil
}

// forTier is the scenario as a run at tier sees it: with that tier's
// nemesis when the script gave one per tier.
func (s *Scenario) forTier(tier string) *Scenario {
	if s.NemesisByTier == nil {
		return s
	}
	c := *s
	c.Nemesis = s.NemesisByTier[tier]
	return &c
}
