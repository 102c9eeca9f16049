package nemesis_test

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/faultline/faultline/control"
	"github.com/faultline/faultline/history"
	"github.com/faultline/faultline/nemesis"
)

// Inject a fault and heal it from plain Go, no Starlark: look the fault up
// in the registry, have a Worker perform its inject and end ops on a
// dry-run pool (which records what would run on each node instead of
// running it), then the final heal. A dry run reads nothing back from the
// victims, so nothing is judged landed or healed: a fault is never taken
// on the injector's word.
func Example() {
	var log strings.Builder
	pool, err := control.NewPool([]control.Node{{Name: "n1", Host: "10.0.0.1"}}, control.DryRunDialer(&log))
	if err != nil {
		fmt.Println(err)
		return
	}
	w, err := nemesis.New(nemesis.Options{Pool: pool, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	pause, _ := nemesis.Lookup("pause")
	spec := map[string]any{"nodes": "all", "pattern": "etcd"}
	for _, f := range []string{pause.Inject, pause.End, "heal"} {
		c := w.Invoke(context.Background(), history.Op{Process: history.NemesisProcess, Type: history.Invoke, F: f, Value: spec})
		fmt.Println(f, c.Type, c.Value, "landed:", c.Extra["landed"], c.Error)
	}
	fmt.Print(log.String())
	// Output:
	// pause ok map[nodes:[n1] pattern:etcd] landed: false <nil>
	// resume ok map[nodes:[n1] pattern:etcd] landed: false <nil>
	// heal fail [n1] landed: false heal n1: faultline rules remain after heal ()
	// n1: pause processes matching etcd
	// n1: read back processes matching etcd
	// n1: resume processes matching etcd
	// n1: stop clock faults
	// n1: heal faultline faults
}

// Build a fault's schedule in Go: a partition of the majority 5s into the
// run, held 10s, again 20s after each heal.
func ExampleCycle() {
	p, err := nemesis.Cycle("partition", "majority", nemesis.Timing{Start: 5 * time.Second, Hold: 10 * time.Second, Interval: 20 * time.Second, Repeat: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, pl := range p.Planned(time.Minute) {
		fmt.Println(pl.Name())
	}
	// Output:
	// start-partition @T+5s for 10s
	// start-partition @T+35s for 10s
}
