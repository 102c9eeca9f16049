package interp

import (
	"bufio"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/faultline/faultline/check"
	"github.com/faultline/faultline/history"
)

// limitScript is a long simulated run (an hour of load) whose generator is
// a Starlark function, under a budget whose step limit runs out long
// before the hour does: a small-budget equivalent of a long run at full
// rate outliving a fixed step budget.
const limitScript = `
def one():
    return {"f": "read"}

scenario(
    name = "long",
    client = client.register(),
    workload = gen.stagger("1ms", one),
    checker = check.compose([check.linearizable(model = "cas-register"), check.stats()]),
    concurrency = 2,
    budgets = {"smoke": budget(duration = "1h", steps = 30000)},
)
`

// A limit hit at run time ends the load; the run is still healed, checked
// and reported over every op its history holds, and it names the limit as
// a problem: never "nothing ran", never an error (which the session turns
// into input rejected).
func TestRunLimitKeepsHistory(t *testing.T) {
	s := loadOne(t, limitScript, 1)
	dir := t.TempDir()
	r, err := Run(context.Background(), s, RunOptions{Seed: 1, Dir: dir})
	if err != nil {
		t.Fatalf("a step limit hit at run time must not fail the run: %v", err)
	}
	if !strings.Contains(r.Limit, "30000 Starlark steps") {
		t.Errorf("limit %q, want the budget's step limit named", r.Limit)
	}
	if !strings.Contains(strings.Join(r.Problems, "\n"), "the load ended early, after") {
		t.Errorf("problems %q do not say the load ended at a limit", r.Problems)
	}
	lines := historyLines(t, r.HistoryPath)
	if lines == 0 || lines != len(r.Ops) {
		t.Fatalf("the history holds %d ops, the result %d", lines, len(r.Ops))
	}
	client := 0
	for _, op := range r.Ops {
		if !op.IsNemesis() && op.Type != history.Invoke {
			client++
		}
	}
	if client < 1000 || r.Check.Valid != check.Valid {
		t.Errorf("%d client completions, check %s (%s): want the recorded load checked", client, r.Check.Valid, r.Check.Summary)
	}
}

func historyLines(t *testing.T, path string) int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) != "" {
			n++
		}
	}
	return n
}
