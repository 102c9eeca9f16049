package nemesis

import (
	"slices"
	"strings"
	"testing"
)

// TestRegistry: every registered fault can be injected, verified and
// ended (or says why nothing ends it), names and ops are unique, and the
// ops are the ones recorded schedules name, so old sessions replay.
func TestRegistry(t *testing.T) {
	names, ops := map[string]bool{}, map[string]bool{}
	for _, f := range Faults() {
		t.Run(f.Inject, func(t *testing.T) {
			if f.inject == nil {
				t.Errorf("no inject step")
			}
			switch {
			case f.End != "" && f.NoEnd != "":
				t.Errorf("end op %s and a reason for none (%q)", f.End, f.NoEnd)
			case f.End != "" && f.end == nil:
				t.Errorf("end op %s has no step", f.End)
			case f.End == "" && f.NoEnd == "":
				t.Errorf("no end op and no reason for none")
			}
			if f.Landing == "" {
				t.Errorf("no landing read-back (verify) described")
			}
			if f.Network != (f.open != nil) || f.Network != (f.Effect != "") {
				t.Errorf("network %v: want an effect and an open check exactly for network faults (effect %q, open %v)", f.Network, f.Effect, f.open != nil)
			}
			if f.Network && !slices.Contains(f.Needs, "root") {
				t.Errorf("network fault needs %v: changing the node's network needs root", f.Needs)
			}
			if f.Name != "" {
				if names[f.Name] {
					t.Errorf("name %q twice", f.Name)
				}
				names[f.Name] = true
				if g, ok := Lookup(f.Name); !ok || g.Inject != f.Inject {
					t.Errorf("Lookup(%q) = %v, %v", f.Name, g.Inject, ok)
				}
			}
			for _, op := range []string{f.Inject, f.End} {
				if op == "" {
					continue
				}
				if ops[op] || op == "heal" {
					t.Errorf("op %s taken twice (or it is the final heal's)", op)
				}
				ops[op] = true
				if g, ok := ByOp(op); !ok || g.Inject != f.Inject {
					t.Errorf("ByOp(%s) = %v, %v", op, g.Inject, ok)
				}
			}
			if end, ok := EndOf(f.Inject); end != f.End || ok != (f.End != "") || OpensWindow(f.Inject) != ok {
				t.Errorf("EndOf(%s) = %q, %v", f.Inject, end, ok)
			}
			if !injectOp(f.Inject) || f.End != "" && injectOp(f.End) {
				t.Errorf("injectOp: %s injects, %s does not", f.Inject, f.End)
			}
			if d := f.Evidence; d != nil && !slices.Contains([]string{"landed", "iptables_drops", "op_errors", "process_state"}, d.Kind) {
				t.Errorf("default evidence of kind %q", d.Kind)
			}
		})
	}
	// The ops schedules and histories record: renaming one breaks replay.
	recorded := map[string]string{
		"start-partition": "stop-partition", "start-loss": "stop-loss", "kill": "start", "pause": "resume",
		"start-bandwidth": "stop-bandwidth", "start-delay": "stop-delay", "fill-disk": "free-disk",
		"truncate-file": "", "bitflip-file": "", "clock-skew": "", "bump-clock": "", "strobe-clock": "",
		"start-clock": "stop-clock",
	}
	for inject, end := range recorded {
		f, ok := ByOp(inject)
		if !ok || f.Inject != inject || f.End != end {
			t.Errorf("%s: registered %+v, want it ended by %q", inject, f, end)
		}
	}
	if _, ok := EndOf("heal"); ok || injectOp("heal") || OpensWindow("stop-partition") {
		t.Errorf("heal and end ops open no window")
	}
}

// TestPlanPhrases: each fault plans can name matches its own phrases, and
// first in rank order, as the plan compiler tries them.
func TestPlanPhrases(t *testing.T) {
	var planned []Fault
	ranks := map[int]string{}
	for _, f := range Faults() {
		if f.Plan == nil {
			continue
		}
		if f.Name == "" || f.Plan.Match == nil || f.Plan.Phrases == "" || (f.Plan.Target != "spec" && f.Plan.Target != "nodes") {
			t.Errorf("%s: incomplete plan phrases %+v", f.Inject, f.Plan)
		}
		if other, dup := ranks[f.Plan.Rank]; dup {
			t.Errorf("%s and %s share rank %d", f.Name, other, f.Plan.Rank)
		}
		ranks[f.Plan.Rank] = f.Name
		planned = append(planned, f)
	}
	slices.SortFunc(planned, func(a, b Fault) int { return a.Plan.Rank - b.Plan.Rank })
	for _, f := range planned {
		for _, phrase := range strings.Split(f.Plan.Phrases, ", ") {
			phrase = strings.ReplaceAll(phrase, "N", "30")
			i := slices.IndexFunc(planned, func(g Fault) bool { return g.Plan.Match.MatchString(phrase) })
			if i < 0 || planned[i].Name != f.Name {
				t.Errorf("phrase %q of %s: matched first by %v", phrase, f.Name, i)
			}
		}
	}
}
