package check

import (
	"strings"
	"testing"

	"github.com/faultline/faultline/check"
	"github.com/faultline/faultline/history"
	"github.com/faultline/faultline/internal/testhist"
)

// TestStarlarkOracles builds every oracle from a script and checks that its
// options reach the Go checker.
func TestStarlarkOracles(t *testing.T) {
	g, err := exec(t, `
s = check.set()
sf = check.set_full(linearizable = True)
c = check.counter()
b = check.bank(total = 20, accounts = [0, 1])
u = check.unique_ids()
q = check.queue()
tq = check.total_queue()
nla = check.no_lost_ack(writes = ["add"], final = "read")
mr = check.monotonic_reads(session = "client", version = "v")
ryw = check.read_your_writes()
eo = check.exactly_once(key = "order_id", writes = ["pay"])
slo = check.slo(p99 = "20ms", error_rate = 0.01, window = 10)
fair = check.fairness(group = "tenant", max_p99_ratio = 3, max_error_rate = 0)
def conserved(state):
    total = 0
    for v in state.values():
        total += v
    return total == 20, "total is %d" % total
fs = check.final_state(conserved)
def loops(state):
    for i in range(1000000000):
        pass
    return True
runaway = check.final_state(loops, final = "read")
rep = check.replicas(final = "snapshot")
rec = check.recovery(within = "10s", after = ["kill", "start-partition"], f = ["write", "cas"])
`)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"s": "set", "sf": "set-full", "c": "counter", "b": "bank", "u": "unique-ids", "q": "queue", "tq": "total-queue",
		"nla": "no-lost-ack", "mr": "monotonic-reads", "ryw": "read-your-writes",
		"eo": "exactly-once", "slo": "slo", "fair": "fairness",
		"fs": "final-state", "runaway": "final-state", "rep": "replicas", "rec": "recovery",
	}
	for global, name := range want {
		c, err := FromStarlark(g[global])
		if err != nil || c.Name() != name {
			t.Errorf("%s: %v, name %v", global, err, c)
		}
	}
	if got := g["sf"].String(); got != "check.set_full(linearizable=True)" {
		t.Errorf("str(set_full) = %s", got)
	}
	texts := map[string]string{
		"nla":  `check.no_lost_ack(writes=["add"], final="read")`,
		"mr":   `check.monotonic_reads(session="client", version="v")`,
		"ryw":  `check.read_your_writes()`,
		"eo":   `check.exactly_once(key="order_id", writes=["pay"], final="dump")`,
		"slo":  `check.slo(p99="20ms", error_rate=0.01, window="10s")`,
		"fair": `check.fairness(group="tenant", max_p99_ratio=3, max_error_rate=0)`,
		"fs":   `check.final_state(conserved, final="dump")`,
		"rep":  `check.replicas(final="snapshot")`,
		"rec":  `check.recovery(within="10s", after=["kill", "start-partition"], f=["write", "cas"])`,
	}
	for global, want := range texts {
		if got := g[global].String(); got != want {
			t.Errorf("str(%s) = %s, want %s", global, got, want)
		}
	}
	fs, _ := FromStarlark(g["fs"])
	dump := func(v string) []history.Op {
		return testhist.EDN(t, `{:process 9 :type :invoke :f :dump}`, `{:process 9 :type :ok :f :dump :value `+v+`}`)
	}
	if r := run(t, fs, dump(`{:a 5 :b 15}`)); r.Valid != check.Valid {
		t.Errorf("final_state over a conserved total: %s", r.Summary)
	}
	if r := run(t, fs, dump(`{:a 5 :b 16}`)); r.Valid != check.Invalid || !strings.Contains(r.Summary, "total is 21") {
		t.Errorf("final_state over a broken total: %s %s", r.Valid, r.Summary)
	}
	if r := run(t, fs, dump(`[1 2]`)); r.Valid != check.Unknown || !strings.Contains(r.Summary, "conserved") {
		t.Errorf("final_state predicate error: %s %s", r.Valid, r.Summary)
	}
	runaway, _ := FromStarlark(g["runaway"])
	if r := run(t, runaway, testhist.JepsenLog(t, "0 :invoke :read nil", "0 :ok :read 1")); r.Valid != check.Unknown || !strings.Contains(r.Summary, "too many steps") {
		t.Errorf("runaway predicate: %s %s", r.Valid, r.Summary)
	}
	b, _ := FromStarlark(g["b"])
	if r := run(t, b, testhist.JepsenLog(t, "1 :invoke :read nil", "1 :ok :read {0 10 1 11}")); r.Valid != check.Invalid {
		t.Errorf("total=20 did not reach the bank checker: %s", r.Summary)
	}
	if r := run(t, b, testhist.JepsenLog(t, "1 :invoke :read nil", "1 :ok :read {0 10 2 10}")); r.Valid != check.Invalid {
		t.Errorf("accounts did not reach the bank checker: %s", r.Summary)
	}
}

func TestStarlarkOracleErrors(t *testing.T) {
	tests := []struct{ src, want string }{
		{`check.set(1)`, "got 1 arguments"},
		{`check.set_full(linearizable = "yes")`, `for parameter "linearizable": got string, want bool`},
		{`check.bank(total = -1)`, "must not be negative"},
		{`check.bank(accounts = 3)`, "accounts must be a list"},
		{`check.queue(x = 1)`, "unexpected keyword argument"},
		{`check.no_lost_ack(writes = [1])`, "writes: element 0 is a int, want a string"},
		{`check.read_your_writes(version = "v")`, "unexpected keyword argument"},
		{`check.exactly_once()`, "missing argument for key"},
		{`check.exactly_once(key = "")`, "needs the business key"},
		{`check.slo()`, "slo needs a bound"},
		{`check.slo(p99 = "fast")`, "bad duration"},
		{`check.slo(error_rate = "low")`, "error_rate: want a number or None, got string"},
		{`check.fairness(group = "t")`, "fairness needs a bound"},
		{`check.fairness(max_spread = 1)`, "needs repeat"},
		{`check.fairness(max_error_rate = 0, f = [1])`, "f: element 0 is a int"},
		{`check.final_state()`, "missing argument for predicate"},
		{`check.final_state(3)`, "want callable"},
		{`check.replicas(final = 1)`, `for parameter "final": got int, want string`},
		{`check.recovery()`, "missing argument for within"},
		{`check.recovery(within = 0)`, "needs a positive bound"},
		{`check.recovery(within = "10s", after = [1])`, "after: element 0 is a int"},
		{`check.recovery(within = "10s", f = [None])`, "f: element 0 is a NoneType"},
	}
	for _, tt := range tests {
		_, err := exec(t, tt.src)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want one containing %q", tt.src, err, tt.want)
		}
	}
}
