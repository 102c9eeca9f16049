package vmnodes_test

import (
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/internal/clitest"
	"github.com/faultline/faultline/internal/integration"
	"github.com/faultline/faultline/internal/testdaemon"
)

// leaseLocalScript runs examples/etcd-lease/lock.star against one etcd on
// loopback (endpoints = [ETCD]) with an honest clock, twice: once judged
// with the lease etcd really grants, which etcd must pass, and once judged
// as if leases lasted 2.5 times longer than they do, which is what a
// leader clock running fast looks like from the clients: the checker must
// then find the overlapping holds.
const leaseLocalScript = `load("@lease//lock.star", "lease_lock_client", "lease_lock_workload")

def lock(name, holds, lease):
    scenario(
        name = name,
        client = lease_lock_client(ttl = 2, endpoints = ["ETCD"]),
        workload = lease_lock_workload(holds = holds, pause = "50ms"),
        checker = check.compose([check.mutual_exclusion(lease = lease), check.stats()]),
        concurrency = 3,
        op_timeout = "10s",
        time = "real",
        budgets = {"smoke": budget(duration = "8s")},
    )

lock("honest", ["1.2s", "1.5s"], "2s")
lock("fast_clock", ["3.5s"], "5s")
`

// The lease-lock client speaks etcd's gateway correctly (locks are taken,
// revoked, and found expired), and check.mutual_exclusion over its
// history passes an etcd whose leases last their TTL and catches one whose
// leases end before the lease the checker assumes. The VM test
// (TestVMNodes/EtcdLeaseUnderClockFaults) then puts a real fast clock under etcd.
func TestEtcdLeaseLockClientLocal(t *testing.T) {
	etcd := integration.NeedCommand(t, "etcd")
	lib, err := filepath.Abs(filepath.Join("..", "etcd-lease"))
	if err != nil {
		t.Fatal(err)
	}
	url := startLocalEtcd(t, etcd)
	dir := t.TempDir()
	script := filepath.Join(dir, "lease-local.star")
	if err := os.WriteFile(script, []byte(strings.ReplaceAll(leaseLocalScript, "ETCD", url)), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	code, stdout, stderr := clitest.Run(t, "run", script, "--local", "--nodes", "n1", "--seed", "3", "--reruns", "0",
		"--lib", "lease="+lib, "--out", out)
	t.Logf("exit %d\n%s", code, stdout)
	results, _ := filepath.Glob(filepath.Join(out, "*", "*", "results.json"))
	if len(results) != 1 {
		t.Fatalf("want one session's results.json, got %v\n%s", results, stderr)
	}
	session := filepath.Dir(results[0])
	for _, tc := range []struct {
		scenario string
		fail     bool // the checker must find overlapping holds
	}{
		{"honest", false},
		{"fast_clock", true},
	} {
		d := scriptDecision(t, results[0], tc.scenario)
		h := readLeaseHistory(t, filepath.Join(session, "artifacts", tc.scenario, "history.jsonl"))
		t.Logf("%s: %s %q; %d acquires ok of %d, %d releases, %d found the lease expired", tc.scenario, d.Verdict, d.Reasons, h.acquired, h.acquires, h.released, h.expired)
		if h.acquired < 2 || h.released < 1 {
			t.Errorf("%s: %d acquires ok, %d releases ok: the client did not take and give back the lock", tc.scenario, h.acquired, h.released)
		}
		failed := strings.HasPrefix(d.Verdict, "FAIL")
		named := strings.Contains(strings.Join(d.Reasons, " "), "overlapping holds")
		switch {
		case tc.fail && !(failed && named):
			t.Errorf("%s: leases shorter than the checker's went unseen: %s %q", tc.scenario, d.Verdict, d.Reasons)
		case tc.fail && h.expired == 0:
			t.Errorf("%s: no release found its lease expired, though every hold outlasts the TTL", tc.scenario)
		case !tc.fail && failed:
			t.Errorf("%s: etcd with an honest clock failed mutual exclusion: %q", tc.scenario, d.Reasons)
		}
	}
}

// startLocalEtcd starts a single-member etcd on loopback ports, waits until
// it is healthy, stops it when the test ends, and returns its client URL.
func startLocalEtcd(t *testing.T, bin string) string {
	t.Helper()
	addrs := testdaemon.FreeAddrs(t, 2)
	client, peer := "http://"+addrs[0], "http://"+addrs[1]
	dir := t.TempDir()
	cmd := exec.Command(bin, "--name", "lease-test", "--data-dir", filepath.Join(dir, "data"),
		"--listen-client-urls", client, "--advertise-client-urls", client,
		"--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
		"--initial-cluster", "lease-test="+peer)
	log, err := os.Create(filepath.Join(dir, "etcd.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatalf("start etcd: %v", err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		log.Close()
	})
	hc := http.Client{Timeout: time.Second}
	for i := 0; ; i++ {
		r, err := hc.Get(client + "/health")
		if err == nil {
			r.Body.Close()
			if r.StatusCode == http.StatusOK {
				return client
			}
		}
		if i == 300 {
			data, _ := os.ReadFile(log.Name())
			t.Fatalf("etcd at %s not healthy: %v\n%s", client, err, data)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
