package check_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/faultline/faultline/check"
	"github.com/faultline/faultline/history"
	"github.com/faultline/faultline/verdict"
)

// TestRegistry: every checker is registered once with what its consumers
// read: a --model (or why it has none), --model names that are unique and
// resolve to a checker of the registered name, oracle kinds the verdict
// knows, plan families and mutant families named once each.
func TestRegistry(t *testing.T) {
	specs := check.Checkers()
	if len(specs) < 21 {
		t.Fatalf("%d checkers registered, want the 21 package check defines", len(specs))
	}
	kinds := []string{string(verdict.KindHistory), string(verdict.KindNoLostAck), string(verdict.KindFinalState),
		string(verdict.KindReconciliation), string(verdict.KindMetricSLO), string(verdict.KindPerGroup)}
	names, models, plan := map[string]bool{}, map[string]string{}, map[string]string{}
	for _, s := range specs {
		t.Run(s.Name, func(t *testing.T) {
			if names[s.Name] {
				t.Errorf("name %s registered twice", s.Name)
			}
			names[s.Name] = true
			switch {
			case len(s.Models) == 0 && s.NoModel == "":
				t.Errorf("no --model and no reason why not")
			case len(s.Models) > 0 && s.NoModel != "":
				t.Errorf("has --model %v but also NoModel %q", s.Models, s.NoModel)
			case (len(s.Models) > 0) != (s.New != nil):
				t.Errorf("New must be given exactly when --model is")
			}
			for _, m := range s.Models {
				if other, dup := models[m]; dup {
					t.Errorf("--model %s is also %s's", m, other)
				}
				models[m] = s.Name
				got, ok := check.ForModel(m)
				if !ok || got.Name != s.Name {
					t.Errorf("ForModel(%s) = %s, %v", m, got.Name, ok)
				}
				c, err := check.New(check.Options{Model: m})
				if err != nil {
					t.Errorf("--model %s with default options: %v", m, err)
				} else if c.Name() != s.Name {
					t.Errorf("--model %s built %s", m, c.Name())
				}
			}
			if s.Oracle != "" && !slices.Contains(kinds, s.Oracle) {
				t.Errorf("oracle kind %q is not one of verdict's %v", s.Oracle, kinds)
			}
			for _, f := range s.Plan {
				if other, dup := plan[f]; dup {
					t.Errorf("plan family %s also compiles to %s", f, other)
				}
				plan[f] = s.Name
			}
			if got, ok := check.Lookup(s.Name); !ok || got.Name != s.Name {
				t.Errorf("Lookup(%s) = %s, %v", s.Name, got.Name, ok)
			}
		})
	}
	listed := check.ModelNames()
	if len(listed) != len(models) {
		t.Errorf("ModelNames() = %v, want the %d registered --model names", listed, len(models))
	}
	for _, m := range listed {
		if _, ok := models[m]; !ok {
			t.Errorf("ModelNames lists %s, which no checker answers to", m)
		}
	}
	if _, ok := check.ForModel("nosuch"); ok {
		t.Error("ForModel(nosuch) resolved")
	}
	if _, err := check.New(check.Options{Model: "nosuch"}); err == nil {
		t.Error("New(nosuch): no error")
	}
}

// TestRegisterRejects: a spec that would make the registry ambiguous panics
// at startup, naming what is wrong.
func TestRegisterRejects(t *testing.T) {
	mk := func(check.Options) (check.Checker, error) { return check.Stats(), nil }
	for name, s := range map[string]check.Spec{
		"no name":        {Models: []string{"x-new"}, New: mk},
		"no model":       {Name: "x-new"},
		"models, no New": {Name: "x-new", Models: []string{"x-new"}},
		"New, no models": {Name: "x-new", NoModel: "because", New: mk},
		"taken name":     {Name: "linearizable", NoModel: "because"},
		"taken model":    {Name: "x-new", Models: []string{"kv"}, New: mk},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: Register did not panic", name)
				}
			}()
			check.Register(s)
		}()
	}
	if _, ok := check.Lookup("x-new"); ok {
		t.Error("a rejected spec was registered")
	}
}

// TestRegisterNewChecker: a checker added in one file is one Register call,
// and the registry's consumers see it: its --model lists and resolves.
func TestRegisterNewChecker(t *testing.T) {
	if _, done := check.Lookup("always-valid"); !done { // -count=N runs this again
		check.Register(check.Spec{
			Name:   "always-valid",
			Models: []string{"always-valid"},
			New:    func(check.Options) (check.Checker, error) { return alwaysValid{}, nil },
			Plan:   []string{"always-valid"},
		})
	}
	if !slices.Contains(check.ModelNames(), "always-valid") {
		t.Errorf("ModelNames() = %v lacks the new checker", check.ModelNames())
	}
	c, err := check.New(check.Options{Model: "always-valid"})
	if err != nil {
		t.Fatal(err)
	}
	if r := c.Check(context.Background(), nil, check.Env{}); r.Valid != check.Valid {
		t.Errorf("new checker: %s", r.Valid)
	}
}

type alwaysValid struct{}

func (alwaysValid) Name() string { return "always-valid" }
func (alwaysValid) Check(context.Context, []history.Op, check.Env) check.Result {
	return check.Result{Checker: "always-valid", Valid: check.Valid}
}

// Example runs the checker `faultline check --model cas-register` names on
// a small history built in plain Go: a write of 1, then a read of 2 that no
// write explains.
func Example() {
	op := func(process int, typ history.Type, f string, v any) history.Op {
		return history.Op{Process: process, Type: typ, F: f, Value: v}
	}
	h := []history.Op{
		op(0, history.Invoke, "write", int64(1)),
		op(0, history.OK, "write", int64(1)),
		op(1, history.Invoke, "read", nil),
		op(1, history.OK, "read", int64(2)),
	}
	for i := range h {
		h[i].Index = int64(i)
	}
	c, err := check.New(check.Options{Model: "cas-register"})
	if err != nil {
		fmt.Println(err)
		return
	}
	r := c.Check(context.Background(), h, check.Env{})
	fmt.Println(r.Checker, r.Valid)
	h[3].Value = int64(1)
	fmt.Println(r.Checker, c.Check(context.Background(), h, check.Env{}).Valid)
	// Output:
	// linearizable invalid
	// linearizable valid
}

// TestRegistryServesEvidence pins what the run's evidence reads from the
// registry (which checkers a plan's model under test calls for, and the
// oracle kind each checker adds) to the tables it kept before.
func TestRegistryServesEvidence(t *testing.T) {
	calledFor := map[string][]string{
		"register": {"linearizable"},
		"map":      {"linearizable", "transactional"},
		"queue":    {"queue", "total-queue"},
		"counter":  {"counter"},
		"ledger":   {"bank"},
		"session":  {"monotonic-reads", "read-your-writes", "transactional"},
		"blob":     nil,
	}
	for model, want := range calledFor {
		if got := check.CalledFor(model); !slices.Equal(got, want) {
			t.Errorf("CalledFor(%s) = %v, want %v", model, got, want)
		}
	}
	kinds := map[string]verdict.OracleKind{
		"linearizable": verdict.KindHistory, "transactional": verdict.KindHistory, "monotonic-reads": verdict.KindHistory,
		"read-your-writes": verdict.KindHistory, "recovery": verdict.KindHistory,
		"no-lost-ack": verdict.KindNoLostAck, "final-state": verdict.KindFinalState, "replicas": verdict.KindReconciliation,
		"slo": verdict.KindMetricSLO, "fairness": verdict.KindPerGroup,
	}
	for _, s := range check.Checkers() {
		if got, want := check.OracleKind(s.Name), string(kinds[s.Name]); got != want {
			t.Errorf("OracleKind(%s) = %q, want %q", s.Name, got, want)
		}
	}
	for _, name := range []string{"stats", "compose", "nosuch"} {
		if got := check.OracleKind(name); got != "" {
			t.Errorf("OracleKind(%s) = %q, want none", name, got)
		}
	}
}
