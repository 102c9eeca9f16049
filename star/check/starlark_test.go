package check

import (
	"fmt"
	"strings"
	"testing"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"

	"github.com/faultline/faultline/check"
	"github.com/faultline/faultline/history"
	"github.com/faultline/faultline/internal/testhist"
)

// exec runs a script with the check module predeclared and returns its globals.
func exec(t *testing.T, src string) (starlark.StringDict, error) {
	t.Helper()
	thread := &starlark.Thread{Name: t.Name(), Print: func(*starlark.Thread, string) {}}
	return starlark.ExecFileOptions(&syntax.FileOptions{}, thread, "test.star", src, starlark.StringDict{"check": Module})
}

func TestStarlarkModule(t *testing.T) {
	g, err := exec(t, `
lin = check.linearizable()
reg0 = check.linearizable(model = "register", init = 0)
multi = check.linearizable(model = "multi-register", init = {"x": 0, "y": 0})
st = check.stats()
both = check.compose([reg0, st])
kind = type(both)
text = str(both)
mtext = str(multi)
`)
	if err != nil {
		t.Fatal(err)
	}
	if g["kind"] != starlark.String("checker") {
		t.Errorf("type is %s", g["kind"])
	}
	if want := `check.compose([check.linearizable(model="register", init=0), check.stats()])`; g["text"] != starlark.String(want) {
		t.Errorf("str is %s, want %s", g["text"], want)
	}
	if want := `check.linearizable(model="multi-register", init={"x": 0, "y": 0})`; g["mtext"] != starlark.String(want) {
		t.Errorf("str is %s, want %s", g["mtext"], want)
	}
	names := map[string]string{"lin": "linearizable", "reg0": "linearizable", "multi": "linearizable", "st": "stats", "both": "compose"}
	for global, name := range names {
		c, err := FromStarlark(g[global])
		if err != nil || c.Name() != name {
			t.Errorf("%s: %v, name %v", global, err, c)
		}
	}
	// The init values reach the models: a first read of 0 passes only with init 0.
	h := testhist.JepsenLog(t, "0 :invoke :read nil", "0 :ok :read 0")
	if c, _ := FromStarlark(g["reg0"]); run(t, c, h).Valid != check.Valid {
		t.Error("init=0 did not reach the register model")
	}
	if c, _ := FromStarlark(g["lin"]); run(t, c, h).Valid != check.Invalid {
		t.Error("default init is not nil")
	}
	hm := testhist.JepsenLog(t, "0 :invoke :txn [[:read :y nil]]", "0 :ok :txn [[:read :y 0]]")
	if c, _ := FromStarlark(g["multi"]); run(t, c, hm).Valid != check.Valid {
		t.Error("init map did not reach the multi-register model")
	}
	if c, _ := FromStarlark(g["both"]); run(t, c, h).Valid != check.Valid {
		t.Error("compose of valid children is not valid")
	}
}

func TestStarlarkErrors(t *testing.T) {
	tests := []struct{ src, want string }{
		{`check.linearizable(model = "bank")`, "models: register, cas-register, multi-register, kv"},
		{`check.linearizable(model = "multi-register", init = 3)`, "must be a map"},
		{`check.linearizable(init = {1: 2})`, "init: dict key 1 is a int"},
		{`check.linearizable(mode = "register")`, "unexpected keyword argument"},
		{`check.stats(1)`, "got 1 arguments"},
		{`check.compose([check.stats(), "stats"])`, "element 1: want a checker"},
		{`check.compose([])`, "at least one checker"},
		{`check.compose(check.stats())`, "for parameter checkers: got checker, want iterable"},
		{`{check.stats(): 1}`, "unhashable type: checker"},
	}
	for _, tt := range tests {
		_, err := exec(t, tt.src)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want one containing %q", tt.src, err, tt.want)
		}
	}
	if _, err := FromStarlark(starlark.String("x")); err == nil || !strings.Contains(err.Error(), "got string") {
		t.Errorf("FromStarlark(string): %v", err)
	}
}

// check.transactional takes Elle's options: anomalies named alone are the
// whole question, and bad options fail at load with what is wrong.
func TestStarlarkTransactionalOptions(t *testing.T) {
	g, err := exec(t, `
g0 = check.transactional(workload = "list-append", anomalies = ["G0"], cycle_search_timeout = "5s")
g1c = check.transactional(workload = "list-append", anomalies = ["G1c"])
wfr = check.transactional(workload = "rw-register", wfr_keys = True)
text = str(g1c)
`)
	if err != nil {
		t.Fatal(err)
	}
	if want := `check.transactional(workload="list-append", consistency_models=[], anomalies=["G1c"], init=nil)`; g["text"] != starlark.String(want) {
		t.Errorf("str is %s, want %s", g["text"], want)
	}
	h := testhist.JepsenLog(t, "0 :invoke :txn [[:append :x 1] [:r :y nil]]", "1 :invoke :txn [[:append :y 1] [:r :x nil]]",
		"0 :ok :txn [[:append :x 1] [:r :y [1]]]", "1 :ok :txn [[:append :y 1] [:r :x [1]]]")
	for name, want := range map[string]check.Validity{"g0": check.Valid, "g1c": check.Invalid} {
		c, _ := FromStarlark(g[name])
		if r := run(t, c, h); r.Valid != want {
			t.Errorf("%s: %s, want %s: %s", name, r.Valid, want, r.Summary)
		}
	}
	for src, want := range map[string]string{
		`check.transactional(workload = "list-append", anomalies = ["G9"])`:            `unknown anomaly "G9"`,
		`check.transactional(workload = "list-append", wfr_keys = True)`:               "writes-follow-reads applies to rw-register only",
		`check.transactional(workload = "list-append", cycle_search_timeout = "soon")`: "cycle_search_timeout: want a positive duration",
		`check.transactional(workload = "list-append", anomalies = "G1")`:              "anomalies",
	} {
		if _, err := exec(t, src); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want one containing %q", src, err, want)
		}
	}
}

// check.transactional passes rw-register's version-order options and its
// initial state through: a linearizable-keys stale read is cyclic-versions,
// and a read of the given initial state is fine while another unwritten value
// is garbage.
func TestStarlarkTransactionalRegisterOptions(t *testing.T) {
	g, err := exec(t, `
plain = check.transactional(workload = "rw-register", consistency_models = ["read-uncommitted"])
lin = check.transactional(workload = "rw-register", consistency_models = ["read-uncommitted"], linearizable_keys = True)
seq = check.transactional(workload = "rw-register", consistency_models = ["read-uncommitted"], sequential_keys = True)
order = check.transactional(workload = "rw-register", consistency_models = ["PL-3"], transaction_order = {1: 2, 3: 1})
init0 = check.transactional(workload = "rw-register", consistency_models = ["read-uncommitted"], init = 0)
inity = check.transactional(workload = "rw-register", consistency_models = ["read-uncommitted"], init = {"y": 0})
`)
	if err != nil {
		t.Fatal(err)
	}
	// Process 0 writes x = 1, then process 1 reads x = nil: by linearizable
	// keys, nil came after 1, against the initial state.
	stale := testhist.JepsenLog(t, "0 :invoke :txn [[:w :x 1]]", "0 :ok :txn [[:w :x 1]]", "1 :invoke :txn [[:r :x nil]]", "1 :ok :txn [[:r :x nil]]")
	// The same, reading x = 0, which nobody wrote.
	pre := testhist.JepsenLog(t, "0 :invoke :txn [[:w :x 1]]", "0 :ok :txn [[:w :x 1]]", "1 :invoke :txn [[:r :x nil]]", "1 :ok :txn [[:r :x 0]]")
	// T1 read x = nil then T2 wrote x = 3; the given order puts T2 first.
	skew := testhist.JepsenLog(t, "0 :invoke :txn [[:r :x nil] [:w :y 2]]", "0 :ok :txn [[:r :x nil] [:w :y 2]]",
		"1 :invoke :txn [[:w :x 3] [:w :y 4]]", "1 :ok :txn [[:w :x 3] [:w :y 4]]")
	cases := []struct {
		name  string
		h     []history.Op
		want  check.Validity
		types string
	}{
		{"plain", stale, check.Valid, "[]"},
		{"lin", stale, check.Invalid, "[cyclic-versions]"},
		{"seq", stale, check.Valid, "[]"},                                       // two processes: no order
		{"plain", pre, check.Invalid, "[empty-transaction-graph garbage-read]"}, // a run starts from a clean db: every key nil
		{"init0", pre, check.Valid, "[]"},
		{"inity", pre, check.Invalid, "[empty-transaction-graph garbage-read]"},
		{"plain", skew, check.Valid, "[]"},
		{"order", skew, check.Invalid, "[G-single-item]"},
	}
	if want := `check.transactional(workload="rw-register", consistency_models=["read-uncommitted"], linearizable_keys=True, init=nil)`; g["lin"].String() != want {
		t.Errorf("str is %s, want %s", g["lin"], want)
	}
	for _, tc := range cases {
		c, _ := FromStarlark(g[tc.name])
		r := run(t, c, tc.h)
		if r.Valid != tc.want || fmt.Sprint(r.Details["anomaly_types"]) != tc.types {
			t.Errorf("%s: %s %v, want %s %s: %s", tc.name, r.Valid, r.Details["anomaly_types"], tc.want, tc.types, r.Summary)
		}
	}
	for src, want := range map[string]string{
		`check.transactional(workload = "list-append", sequential_keys = True)`:       "sequential-keys applies to rw-register only",
		`check.transactional(workload = "list-append", init = 0)`:                     "a list-append history can only start empty",
		`check.transactional(workload = "rw-register", transaction_order = {"a": 1})`: "transaction_order: want {completion index: position}",
		`check.transactional(workload = "list-append", transaction_order = {1: 1})`:   "transaction-order applies to rw-register only",
		`check.transactional(workload = "rw-register", linearizable_keys = "yes")`:    "linearizable_keys",
	} {
		if _, err := exec(t, src); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want one containing %q", src, err, want)
		}
	}
}

// A run's list-append check knows every key starts empty, so an element
// nobody appended is a garbage read (faultline check without --init takes it,
// as Elle, for one that may predate the history).
func TestStarlarkTransactionalAppendStartsEmpty(t *testing.T) {
	g, err := exec(t, `
plain = check.transactional(workload = "list-append", consistency_models = ["read-uncommitted"])
empty = check.transactional(workload = "list-append", consistency_models = ["read-uncommitted"], init = [])
`)
	if err != nil {
		t.Fatal(err)
	}
	phantom := testhist.JepsenLog(t, "0 :invoke :txn [[:append :x 1]]", "0 :ok :txn [[:append :x 1]]", "1 :invoke :txn [[:r :x nil]]", "1 :ok :txn [[:r :x [1 7]]]")
	for _, name := range []string{"plain", "empty"} {
		c, _ := FromStarlark(g[name])
		if r := run(t, c, phantom); r.Valid != check.Invalid || fmt.Sprint(r.Details["anomaly_types"]) != "[empty-transaction-graph garbage-read]" {
			t.Errorf("%s: %s %v: %s", name, r.Valid, r.Details["anomaly_types"], r.Summary)
		}
	}
}
