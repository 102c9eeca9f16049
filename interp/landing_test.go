package interp

import (
	"context"
	"strings"
	"testing"

	"github.com/faultline/faultline/control"
	"github.com/faultline/faultline/mesh"
)

// landingScript partitions links of local nodes that the in-process
// client never uses (its traffic does not cross the mesh), and schedules
// a loss after the workload has ended.
const landingScript = `
load("@stdlib//workloads.star", "cas_register")
scenario(
    name = "reg",
    client = client.register(),
    workload = gen.stagger("2ms", cas_register(values = 5)),
    checker = check.linearizable(model = "cas-register"),
    nemesis = nemesis.compose([
        nemesis.partition(spec = {"n1": ["n2"]}, start = "100ms", hold = "300ms", repeat = False),
        nemesis.loss(nodes = ["n1"], probability = 0.5, start = "10s", hold = "1s"),
    ]),
    landing = [evidence.landed()],
    budgets = {"smoke": budget(duration = "1s")},
)
`

// localMeshPool is three --local nodes whose links run through a proxy mesh.
func localMeshPool(t *testing.T) *control.Pool {
	t.Helper()
	pool, _, err := control.NewLocalPool(t.TempDir(), []string{"n1", "n2", "n3"})
	if err != nil {
		t.Fatal(err)
	}
	m := mesh.New(mesh.Options{Seed: 1})
	t.Cleanup(func() { m.Close() })
	pool.SetNetwork(m)
	return pool
}

// End to end on local nodes: a partition configured but crossed by no
// traffic is not proven, and a fault due after the workload is a miss; an
// interrupted run says so and names the faults that never fired.
func TestRunJudgesLandingByEffect(t *testing.T) {
	s := loadOne(t, landingScript, 1)
	r, err := Run(context.Background(), s, RunOptions{Seed: 1, Dir: t.TempDir(), Pool: localMeshPool(t)})
	if err != nil {
		t.Fatal(err)
	}
	if r.Interrupted {
		t.Errorf("a run that ended with its budget is marked interrupted")
	}
	if len(r.Scheduled) != 2 {
		t.Errorf("scheduled %+v, want the partition and the loss", r.Scheduled)
	}
	if len(r.Faults) != 1 || !r.Faults[0].Landed || r.Faults[0].Proven || !strings.Contains(r.Faults[0].Reason, "no traffic crossed") {
		t.Errorf("the idle partition's window: %+v", r.Faults)
	}
	if len(r.Missed) != 1 || !strings.HasPrefix(r.Missed[0].Fault, "start-loss @T+10s") || !strings.Contains(r.Missed[0].Reason, "at or after the end of the workload") {
		t.Errorf("missed %+v, want the loss due after the workload", r.Missed)
	}
	if len(r.Landing) != 1 || r.Landing[0].Pass {
		t.Errorf("evidence.landed() passed on a fault with no effect: %+v", r.Landing)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel() // Ctrl-C before the first fault was due
	r, err = Run(ctx, s, RunOptions{Seed: 1, Dir: t.TempDir(), Pool: localMeshPool(t)})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Interrupted || len(r.Faults) != 0 || len(r.Missed) != 2 || !strings.Contains(r.Missed[0].Reason, "interrupted") {
		t.Errorf("interrupted run: interrupted %v, faults %+v, missed %+v", r.Interrupted, r.Faults, r.Missed)
	}
}
