// Package testcluster gives an integration test a netns cluster of its own
// (cluster.Up with the test's prefix, subnet and state dir) and a pool
// reaching its nodes over SSH, and takes both down when the test ends.
package testcluster

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/faultline/faultline/cluster"
	"github.com/faultline/faultline/control"
	"github.com/faultline/faultline/internal/integration"
)

// EnvVMTests set to "later" skips the tests that boot VM clusters, for a
// run that runs them on their own afterwards (.ci/run does).
const EnvVMTests = "FAULTLINE_VM_TESTS"

// Up requires root and the commands a netns cluster needs, plus tools
// (missing ones fail the test under FAULTLINE_REQUIRE_INTEGRATION=1, skip
// it otherwise), brings cfg up, and when the test ends takes it down and
// removes its state dir's parent, which a test's own config names.
func Up(t testing.TB, cfg cluster.Config, tools ...string) *cluster.State {
	t.Helper()
	if cfg.VM && os.Getenv(EnvVMTests) == "later" {
		// .ci/run runs these on their own after the rest: emulated CPUs
		// starve the timing-sensitive tests of other packages running
		// beside them (a recovery judged "up but degraded" by the host's
		// load, not the system's).
		t.Skipf("%s=later: VM tests run on their own, after the others", EnvVMTests)
	}
	integration.NeedRoot(t)
	for _, c := range append([]string{"ip", "unshare", "sshd"}, tools...) {
		integration.NeedCommand(t, c)
	}
	t.Cleanup(func() {
		if err := cluster.Down(context.Background(), cfg); err != nil {
			t.Errorf("cluster down: %v", err)
		}
		os.RemoveAll(filepath.Dir(cfg.StateDir))
	})
	st, err := cluster.Up(context.Background(), cfg)
	if err != nil {
		t.Fatalf("cluster up: %v", err)
	}
	return st
}

// Pool returns a pool reaching st's nodes, and any extra ones, over SSH
// with the cluster's client key and strict known_hosts; it is closed when
// the test ends (before the cluster goes down).
func Pool(t testing.TB, st *cluster.State, extra ...control.Node) *control.Pool {
	t.Helper()
	nodes := make([]control.Node, 0, len(st.Nodes)+len(extra))
	for _, n := range st.Nodes {
		nodes = append(nodes, control.Node{Name: n.Name, Host: n.Addr.Addr().String(), Port: int(n.Addr.Port())})
	}
	pool, err := control.NewPool(append(nodes, extra...), control.SSHDialer(control.SSHConfig{KeyFiles: []string{st.ClientKey}, KnownHosts: st.KnownHosts}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pool.Close() })
	return pool
}
