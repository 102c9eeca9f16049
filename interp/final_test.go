package interp

import (
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/check"
	"github.com/faultline/faultline/history"
)

// finalScript is a keyed cas-register run whose final phase is src.
func finalScript(final string) string {
	return `
load("@stdlib//workloads.star", "cas_register", "final_dump")
scenario(
    name = "reg",
    client = client.register(),
    workload = gen.stagger("2ms", cas_register(keys = 3, ops_per_key = 10)),
    final = ` + final + `,
    checker = check.compose([check.linearizable(model = "kv"), check.no_lost_ack(), check.stats()]),
    concurrency = 5,
    budgets = {"smoke": budget(duration = "2s", min_ops = 300)},
)
`
}

// The final phase runs after every workload op has completed, its dump
// of every key the run wrote lands in the history, and no-lost-ack judges
// it: valid on a correct register, with keys rotated past 0..2.
func TestRunFinalDumpAfterWorkload(t *testing.T) {
	res := runScenario(t, loadOne(t, finalScript("final_dump()"), 1), 1)
	var dumps []history.Op
	lastWorkload := -1 // index of the last completion of a workload op
	for i, op := range res.Ops {
		switch {
		case op.F == "dump":
			dumps = append(dumps, op)
		case op.Process >= 0 && op.Type != history.Invoke && len(dumps) == 0:
			lastWorkload = i
		case op.Process >= 0 && len(dumps) > 0:
			t.Fatalf("op %d (%s %s) came after the final dump began", op.Index, op.Type, op.F)
		}
	}
	if len(dumps) != 2 || dumps[0].Type != history.Invoke || dumps[1].Type != history.OK {
		t.Fatalf("want one dump invoked and completed ok, got %v", dumps)
	}
	if int(dumps[0].Index) <= lastWorkload {
		t.Fatalf("the dump (op %d) began before the workload's last completion (op %d)", dumps[0].Index, lastWorkload)
	}
	state, _ := dumps[1].Value.(map[string]any)
	if _, ok := state["3"]; !ok || len(state) <= 3 {
		t.Errorf("the dump should hold every key written, rotated ones included: %v", state)
	}
	if res.Check.Valid != check.Valid {
		t.Fatalf("check = %s: %s\n%s", res.Check.Valid, res.Check.Summary, res.Check.Explanation)
	}
	var nla *check.Result
	for i := range res.Check.Children {
		if res.Check.Children[i].Checker == "no-lost-ack" {
			nla = &res.Check.Children[i]
		}
	}
	if nla == nil || nla.Valid != check.Valid || !strings.Contains(nla.Summary, "0 lost") {
		t.Fatalf("no-lost-ack did not judge the dump: %+v", nla)
	}
}

// A final phase that never succeeds ends with final_timeout, and the run
// goes on to check what it has.
func TestRunFinalTimeoutBoundsThePhase(t *testing.T) {
	s := loadOne(t, strings.Replace(finalScript(`final_dump(keys = ["x", [1]])`), "concurrency = 5,",
		`concurrency = 5, final_timeout = "5s",`, 1), 1)
	if s.FinalTimeout != 5*time.Second {
		t.Fatalf("final_timeout = %s", s.FinalTimeout)
	}
	res := runScenario(t, s, 1)
	failed := 0
	for _, op := range res.Ops {
		if op.F == "dump" && op.Type == history.Fail {
			failed++
		}
	}
	// One attempt a second for 5 s, the first at the phase's start.
	if failed != 5 {
		t.Errorf("%d failed dumps, want 5 (one per retry within final_timeout)", failed)
	}
	for _, c := range res.Check.Children {
		if c.Checker == "no-lost-ack" && c.Valid != check.Unknown {
			t.Errorf("no-lost-ack = %s with no ok dump: %s", c.Valid, c.Summary)
		}
	}
}

func TestScenarioFinalArgumentErrors(t *testing.T) {
	for _, tt := range []struct{ final, want string }{
		{`final = 3`, "final:"},
		{`final = {"f": "dump"}, final_timeout = "0s"`, "final_timeout must be positive"},
	} {
		src := strings.Replace(minimalScenario, `checker = check.stats()`, `checker = check.stats(), `+tt.final, 1)
		dir := writeFiles(t, map[string]string{"main.star": src})
		s, err := Load(t.Context(), dir+"/main.star", LoadOptions{})
		if err == nil {
			err = Validate(s.Scenarios[0], "smoke")
		}
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want one containing %q", tt.final, err, tt.want)
		}
	}
}
