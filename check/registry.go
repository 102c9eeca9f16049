package check

import (
	"fmt"
	"slices"
	"sync"
)

// Spec is everything the rest of faultline needs to know about one checker,
// so that adding a checker is one file: the file that defines it registers
// its Spec from init, and the CLI, the plan compiler, the evidence and the
// mutation audit read the registry instead of keeping tables of their own.
type Spec struct {
	// Name is the checker's Name(), the Result.Checker of its verdicts.
	Name string
	// Models are the `faultline check --model` values that build this
	// checker, in help order. Empty for a checker only a script can
	// configure; NoModel then says why.
	Models []string
	// NoModel says why the checker has no --model (the options it needs
	// have no flag); empty when Models is not.
	NoModel string
	// New builds the checker for one of Models from plain options (the
	// CLI's flags). Nil exactly when Models is empty.
	New func(Options) (Checker, error)
	// Plan are the oracle vocabulary families (plans.ClassifyOracle's
	// Checkers) the plan compiler turns into this checker.
	Plan []string
	// Oracle is the kind of oracle ingredient a run has when this checker
	// ran (a verdict.OracleKind value: "history", "no-lost-ack", ...);
	// empty when it adds none the weak-oracle audit weighs.
	Oracle string
	// ModelsUnderTest are the plan's "Model under test" values (register,
	// map, queue, counter, ledger, session) for which this checker is the
	// one the model calls for (spec §4.1).
	ModelsUnderTest []string
	// Mutants are the check/mutate families whose planted defects break
	// this checker's claim, so it alone judges them in the mutation audit.
	Mutants []string
}

// Options are the plain options a checker is built from by name; each
// checker reads the ones that apply to it and ignores the rest.
type Options struct {
	// Model is the --model value, one of the Spec's Models.
	Model string
	// Init is the initial state (linearizability models, rw-register);
	// HasInit says it was given, so it is known.
	Init    any
	HasInit bool
	// Transactional holds Elle's options for list-append and rw-register;
	// its Workload, Init and HasInit come from the fields above.
	Transactional TransactionalOptions
	// Bank holds the bank checker's options.
	Bank BankOptions
}

var registry struct {
	sync.Mutex
	specs []Spec
}

// Register adds a checker's Spec. The file defining the checker calls it
// from init; an invalid or duplicate Spec (a name or --model taken, New
// without Models) is a programming error and panics at startup, before any
// check runs, as a duplicate Starlark module does.
func Register(s Spec) {
	registry.Lock()
	defer registry.Unlock()
	if err := validSpec(s, registry.specs); err != nil {
		panic("check.Register: " + err.Error())
	}
	registry.specs = append(registry.specs, s)
}

// validSpec says what is wrong with s beside the specs registered before it.
func validSpec(s Spec, have []Spec) error {
	switch {
	case s.Name == "":
		return fmt.Errorf("a checker without a name")
	case len(s.Models) == 0 && s.NoModel == "":
		return fmt.Errorf("%s: no --model and no NoModel reason", s.Name)
	case (len(s.Models) == 0) != (s.New == nil):
		return fmt.Errorf("%s: New must be given exactly when Models are", s.Name)
	}
	for _, o := range have {
		if o.Name == s.Name {
			return fmt.Errorf("%s registered twice", s.Name)
		}
		for _, m := range s.Models {
			if slices.Contains(o.Models, m) {
				return fmt.Errorf("--model %s is both %s and %s", m, o.Name, s.Name)
			}
		}
	}
	return nil
}

// Checkers returns every registered Spec, in registration order (the order
// of the files that define them).
func Checkers() []Spec {
	registry.Lock()
	defer registry.Unlock()
	return slices.Clone(registry.specs)
}

// Lookup returns the Spec of the checker named name (a Result.Checker).
func Lookup(name string) (Spec, bool) {
	for _, s := range Checkers() {
		if s.Name == name {
			return s, true
		}
	}
	return Spec{}, false
}

// ForModel returns the Spec of the checker --model model builds.
func ForModel(model string) (Spec, bool) {
	for _, s := range Checkers() {
		if slices.Contains(s.Models, model) {
			return s, true
		}
	}
	return Spec{}, false
}

// CalledFor lists, in registration order, the checkers a plan's "Model under
// test" (register, map, queue, counter, ledger, session) calls for (spec
// §4.1); nil for a model that names none.
func CalledFor(modelUnderTest string) []string {
	var out []string
	for _, s := range Checkers() {
		if slices.Contains(s.ModelsUnderTest, modelUnderTest) {
			out = append(out, s.Name)
		}
	}
	return out
}

// OracleKind returns the oracle kind (a verdict.OracleKind value) of the
// checker named name; "" for one that adds none or is not registered.
func OracleKind(name string) string {
	s, _ := Lookup(name)
	return s.Oracle
}

// ModelNames lists every --model value: first those of the checkers that
// read per-op histories (linearizability models, transactional workloads),
// which are what `faultline check` is mostly for, then the others, each
// group in registration order.
func ModelNames() []string {
	var history, rest []string
	for _, s := range Checkers() {
		if s.Oracle == "history" {
			history = append(history, s.Models...)
		} else {
			rest = append(rest, s.Models...)
		}
	}
	return append(history, rest...)
}

// New builds the checker --model o.Model names from plain options.
func New(o Options) (Checker, error) {
	s, ok := ForModel(o.Model)
	if !ok {
		return nil, fmt.Errorf("no checker answers to model %q", o.Model)
	}
	c, err := s.New(o)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.Name, err)
	}
	return c, nil
}

// plain adapts a constructor that takes no options to Spec.New.
func plain(mk func() Checker) func(Options) (Checker, error) {
	return func(Options) (Checker, error) { return mk(), nil }
}
