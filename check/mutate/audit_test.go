package mutate

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/faultline/faultline/check"
	"github.com/faultline/faultline/history"
)

func linearizable(t testing.TB, model string) check.Checker {
	return must(t)(check.Linearizable(check.LinearizableOptions{Model: model}))
}

// transactional is a list-append checker as a run's check.transactional
// builds it (session/runplan audits those): every key known to start empty,
// so a phantom element is a garbage read rather than one from before the
// history, which leaves the check unknown.
func transactional(t testing.TB, models ...string) check.Checker {
	return must(t)(check.Transactional(check.TransactionalOptions{Workload: "list-append", ConsistencyModels: models, HasInit: true}))
}

// TestAudit runs correct oracles (every mutant caught) and weak ones (some
// escape) over small valid histories.
func TestAudit(t *testing.T) {
	setHist := func(t testing.TB) []history.Op {
		return edn(t, cat(whole(0, "add", "1", "1"), whole(1, "add", "2", "2"), whole(2, "read", "nil", "[1 2]"))...)
	}
	for _, tt := range []struct {
		name    string
		h       func(testing.TB) []history.Op
		c       func(testing.TB) check.Checker
		o       Options
		kinds   []string
		escaped []string // kinds that escape; every other mutant is caught
	}{
		{"linearizable register", registerHistory, func(t testing.TB) check.Checker { return linearizable(t, "register") },
			Options{}, []string{StaleRead, PhantomRead}, nil},
		{"linearizable cas-register", registerHistory, func(t testing.TB) check.Checker { return linearizable(t, "cas-register") },
			Options{}, []string{StaleRead, PhantomRead}, nil},
		{"linearizable kv over tuples", func(t testing.TB) []history.Op {
			return edn(t, cat(whole(0, "write", "[:k 1]", "[:k 1]"), whole(1, "write", "[:k 2]", "[:k 2]"),
				whole(2, "read", "[:k nil]", "[:k 2]"), whole(2, "read", "[:j nil]", "[:j nil]"))...)
		}, func(t testing.TB) check.Checker { return linearizable(t, "kv") }, Options{}, []string{StaleRead, PhantomRead}, nil},
		// Stats claims nothing: as the whole oracle it gets every mutant
		// and lets each through, which shows the scenario cannot fail.
		{"stats alone on a register", registerHistory, func(testing.TB) check.Checker { return check.Stats() },
			Options{}, []string{StaleRead, PhantomRead}, []string{StaleRead, PhantomRead}},
		// An oracle that accepts anything gets the mutants of the claim it
		// is named for, and lets every one escape.
		{"a linearizable that accepts anything", registerHistory, func(testing.TB) check.Checker { return lenient{"linearizable"} },
			Options{}, []string{StaleRead, PhantomRead}, []string{StaleRead, PhantomRead}},
		{"compose of a lenient linearizable and stats", registerHistory, func(testing.TB) check.Checker {
			return check.Compose(lenient{"linearizable"}, check.Stats())
		}, Options{}, []string{StaleRead, PhantomRead}, []string{StaleRead, PhantomRead}},
		{"compose of linearizable and stats", registerHistory, func(t testing.TB) check.Checker {
			return check.Compose(linearizable(t, "register"), check.Stats())
		}, Options{}, []string{StaleRead, PhantomRead}, nil},
		// check.Set reads a final read holding an element twice as invalid,
		// so the duplicated-element mutant is caught like the others.
		{"set", setHist, func(testing.TB) check.Checker { return check.Set() },
			Options{}, []string{PhantomRead, LostWrite, DuplicateEffect}, nil},
		{"set-full", setHist, func(testing.TB) check.Checker { return check.SetFull(check.SetFullOptions{}) },
			Options{}, []string{PhantomRead, LostWrite, DuplicateEffect}, nil},
		{"counter", func(t testing.TB) []history.Op {
			return edn(t, cat(whole(0, "add", "1", "1"), whole(1, "add", "5", "5"), whole(2, "read", "nil", "6"))...)
		}, func(testing.TB) check.Checker { return check.Counter() }, Options{}, []string{LostWrite, DuplicateEffect}, nil},
		{"list-append strict-serializable", listAppendHistory, func(t testing.TB) check.Checker { return transactional(t) },
			Options{MaxPerKind: 4}, []string{PhantomRead, LostWrite, SwappedAppends, DuplicateEffect}, nil},
		{"list-append serializable without realtime mutants", listAppendHistory, func(t testing.TB) check.Checker { return transactional(t, "serializable") },
			Options{MaxPerKind: 4, SkipRealtime: true}, []string{PhantomRead, LostWrite, SwappedAppends, DuplicateEffect}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := tt.h(t)
			before := clone(h)
			rep := Audit(context.Background(), tt.c(t), h, tt.o)
			unchanged(t, before, h)
			if rep.Skipped != "" || rep.Baseline != check.Valid || len(rep.Undecided) > 0 {
				t.Fatalf("report %+v", rep)
			}
			if !slices.Equal(rep.Kinds, tt.kinds) {
				t.Errorf("kinds %q, want %q", rep.Kinds, tt.kinds)
			}
			var escaped []string
			for _, m := range rep.Escaped {
				if !slices.Contains(escaped, m.Kind) {
					escaped = append(escaped, m.Kind)
				}
			}
			if !slices.Equal(escaped, tt.escaped) {
				t.Errorf("escaped kinds %q, want %q: %s", escaped, tt.escaped, rep)
			}
			if rep.Caught+len(rep.Escaped) != rep.Checked || rep.Checked == 0 {
				t.Errorf("counts %d caught + %d escaped != %d checked", rep.Caught, len(rep.Escaped), rep.Checked)
			}
			if len(rep.Escaped) > 0 {
				m := rep.Escaped[0]
				if s := rep.String(); !strings.Contains(s, m.Kind) || !strings.Contains(s, m.Description) || !strings.Contains(m.Description, "op ") {
					t.Errorf("report does not cite the escaped mutant: %s", s)
				}
			}
		})
	}
}

// TestAuditProvesNothing covers audits that check no mutant: each must say
// why and count nothing as caught.
func TestAuditProvesNothing(t *testing.T) {
	for _, tt := range []struct {
		name string
		h    func(testing.TB) []history.Op
		c    check.Checker
		why  string
	}{
		{"set checker on a register history", registerHistory, check.Set(), "returned unknown"},
		{"stats alone and no shape to mutate", func(t testing.TB) []history.Op {
			return edn(t, cat(whole(0, "ping", "1", "1"), whole(1, "pong", "nil", "1"))...)
		}, check.Stats(), "no mutant fits stats on this history: it claims nothing, and no op shape"},
		{"an oracle with no mutant kind", func(t testing.TB) []history.Op {
			return edn(t, cat(whole(0, "write", "1", "1"), whole(1, "read", "nil", "1"), whole(1, "read", "nil", "1"))...)
		}, lenient{"oracle-nobody-mutates"}, "no mutant fits oracle-nobody-mutates on this history: the audit has no mutant kind"},
		{"an invalid history", func(t testing.TB) []history.Op {
			return edn(t, cat(whole(0, "write", "1", "1"), whole(1, "read", "nil", "2"))...)
		}, nil, "returned invalid"},
		{"no checker", registerHistory, nil, "no checker"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := tt.c
			if c == nil && tt.why != "no checker" {
				c = linearizable(t, "register")
			}
			rep := Audit(context.Background(), c, tt.h(t), Options{})
			if rep.Checked != 0 || rep.Caught != 0 || !strings.Contains(rep.Skipped, tt.why) {
				t.Errorf("report %+v, want nothing checked because %q", rep, tt.why)
			}
			if !strings.HasPrefix(rep.String(), "sensitivity audit skipped: ") {
				t.Errorf("String() = %q", rep.String())
			}
		})
	}
}

// TestAuditLargeRegister audits a generated 2000-op register history: the
// linearizability checker catches every mutant, one that accepts anything
// none.
func TestAuditLargeRegister(t *testing.T) {
	h := genRegister(2000, 3)
	lin := Audit(context.Background(), linearizable(t, "register"), h, Options{Seed: 9})
	if lin.Checked != 2*DefaultMaxPerKind || lin.Caught != lin.Checked {
		t.Errorf("linearizable: %s", lin)
	}
	st := Audit(context.Background(), lenient{"linearizable"}, h, Options{Seed: 9})
	if len(st.Escaped) != 2*DefaultMaxPerKind {
		t.Errorf("lenient: %s", st)
	}
}

// TestAuditCancelled: with the context already done, checks end unknown
// and the audit says it decided nothing rather than passing.
func TestAuditCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rep := Audit(ctx, linearizable(t, "register"), registerHistory(t), Options{})
	if rep.Checked != 0 || rep.Skipped == "" {
		t.Errorf("report %+v", rep)
	}
}

// A baseline the caller already has is used as is, not checked again: an
// invalid one stops the audit although the history itself is fine.
func TestAuditUsesGivenBaseline(t *testing.T) {
	given := check.Result{Checker: "linearizable", Valid: check.Invalid, Summary: "as the run found"}
	rep := Audit(context.Background(), linearizable(t, "register"), registerHistory(t), Options{Baseline: &given})
	if rep.Baseline != check.Invalid || rep.Checked != 0 || !strings.Contains(rep.Skipped, "as the run found") {
		t.Errorf("report %+v, want the given invalid baseline to stop the audit", rep)
	}
}
