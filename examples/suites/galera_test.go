package suites_test

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faultline/faultline/cluster"
	"github.com/faultline/faultline/internal/clitest"
	"github.com/faultline/faultline/internal/integration"
	"github.com/faultline/faultline/internal/testcluster"
	"github.com/faultline/faultline/internal/testfile"
)

var byoGaleraClusterConfig = cluster.Config{Nodes: 3, StateDir: "/var/lib/faultline-test-galera/cluster",
	Subnet: "10.85.0.0/24", Prefix: "fga"}

// galeraVerdict is the part of an Elle (check.transactional) result this
// test reads from checker.json.
type galeraVerdict struct {
	Checker string `json:"checker"`
	Valid   string `json:"valid"`
	Summary string `json:"summary"`
	Details struct {
		AnomalyTypes      []string       `json:"anomaly_types"`
		Counts            map[string]int `json:"counts"`
		Not               []string       `json:"not"`
		ConsistencyModels []string       `json:"consistency_models"`
	} `json:"details"`
}

// TestByoGaleraOverSSH runs examples/byo-galera on a 3-node netns cluster:
// MariaDB Galera brought up by a db recipe written in Starlark and tested
// through the sql module's list-append client (each worker on its own
// node) under a partition and a kill -9. It asserts what the run must show
// whatever Galera does: the cluster formed with 3 members, load ran, both
// faults landed, and the verdict is a checked one — valid, or the
// anomalies Elle found with the isolation levels they rule out, named in
// the finding. Which of the two it is, is Galera's to decide; the test logs
// the numbers.
func TestByoGaleraOverSSH(t *testing.T) {
	for _, c := range []string{"mariadbd", "mariadb-install-db", "mariadb", "rsync"} {
		integration.NeedCommand(t, c)
	}
	_, err := os.Stat("/usr/lib/galera/libgalera_smm.so")
	integration.Need(t, err == nil, "Galera 4 (/usr/lib/galera/libgalera_smm.so; apt-get install galera-4)")
	st := testcluster.Up(t, byoGaleraClusterConfig, "iptables")
	out := t.TempDir()
	plan := filepath.Join("..", "byo-galera", "plan.md")
	code, stdout, stderr := clitest.Run(t, "run", plan, "--yes", "--seed", "3", "--out", out,
		"--nodes-file", st.NodesFile, "--ssh-key", st.ClientKey, "--known-hosts", st.KnownHosts)
	t.Logf("exit %d\n%s", code, stdout)
	pass, fail := clitest.HasRow(stdout, "S1", "PASS-smoke"), clitest.HasRow(stdout, "S1", "FAIL-reproducible") || clitest.HasRow(stdout, "S1", "FAIL-nondeterministic")
	if !(code == 0 && pass) && !(code == 1 && fail) {
		t.Fatalf("exit %d, want a checked verdict: 0 with S1 PASS-smoke or 1 with S1 FAIL-*\n%s\n%s", code, stdout, stderr)
	}
	dir := clitest.OnlySession(t, filepath.Join(out, "byo-galera"))
	art := filepath.Join(dir, "artifacts", "S1")

	// The cluster formed: every node's setup saw all three members, and
	// Galera itself logged that the node synced with the group.
	for _, n := range []string{"n1", "n2", "n3"} {
		logs := filepath.Join(art, "logs", n)
		if s := galeraLog(t, filepath.Join(logs, "stdout.log")); !strings.Contains(s, "wsrep_cluster_size=3 wsrep_ready=ON") {
			t.Errorf("%s: the recipe's setup never saw wsrep_cluster_size=3 wsrep_ready=ON:\n%s", n, s)
		}
		if s := galeraLog(t, filepath.Join(logs, "error.log")); !strings.Contains(s, "Synchronized with group, ready for connections") {
			t.Errorf("%s: error.log has no \"Synchronized with group\"", n)
		}
	}

	// Load ran, on every node.
	ok, failed, info, perNode := galeraTxnCounts(t, filepath.Join(art, "history.jsonl"))
	t.Logf("transactions: %d ok, %d fail, %d info; ok per node %v", ok, failed, info, perNode)
	if ok < 200 {
		t.Errorf("%d transactions ok, want at least the plan's 200", ok)
	}
	for _, n := range []string{"n1", "n2", "n3"} {
		if perNode[n] == 0 {
			t.Errorf("no transaction committed on %s", n)
		}
	}

	// Both faults landed.
	landed := clitest.NemesisOps(t, filepath.Join(art, "history.jsonl"))
	for _, f := range []string{"start-partition", "stop-partition", "kill", "start"} {
		if landed[f] != "landed" {
			t.Errorf("%s: %q, want landed", f, landed[f])
		}
	}

	// The verdict, with Elle's names for what it found.
	var res struct {
		Children []galeraVerdict `json:"children"`
	}
	testfile.ReadJSON(t, filepath.Join(art, "checker.json"), &res)
	// The plan's oracle is the first transactional check (snapshot
	// isolation, what Galera claims between nodes); the compiler adds a
	// serializable one for the Elle technique, logged too.
	var elle *galeraVerdict
	for i := range res.Children {
		c := &res.Children[i]
		if c.Checker != "transactional" {
			continue
		}
		t.Logf("Elle against %v: %s; counts %v; rules out %v", c.Details.ConsistencyModels, c.Summary, c.Details.Counts, c.Details.Not)
		if elle == nil {
			elle = c
		}
	}
	if elle == nil {
		t.Fatalf("checker.json has no transactional result: %+v", res)
	}
	finding := galeraLog(t, filepath.Join(dir, "findings", "S1.md"))
	switch {
	case pass:
		if elle.Valid != "valid" {
			t.Errorf("S1 passed but Elle says %s: %s", elle.Valid, elle.Summary)
		}
	case elle.Valid != "invalid" || len(elle.Details.AnomalyTypes) == 0 || len(elle.Details.Not) == 0:
		t.Errorf("S1 failed but Elle names no anomaly or no model ruled out: %s", elle.Summary)
	default:
		for _, a := range elle.Details.AnomalyTypes {
			if !strings.Contains(finding, a) {
				t.Errorf("findings/S1.md does not name the anomaly %s", a)
			}
		}
		if !strings.Contains(finding, "not "+elle.Details.Not[0]) {
			t.Errorf("findings/S1.md does not say which level the history rules out (not %s)", elle.Details.Not[0])
		}
	}
}

// galeraTxnCounts counts the completed transactions in a history by type,
// and the ok ones by the node their worker talked to.
func galeraTxnCounts(t *testing.T, path string) (ok, failed, info int, perNode map[string]int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	perNode = map[string]int{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var op struct {
			Type string `json:"type"`
			F    string `json:"f"`
			Node string `json:"node"`
		}
		if err := json.Unmarshal(sc.Bytes(), &op); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if op.F != "txn" {
			continue
		}
		switch op.Type {
		case "ok":
			ok++
			perNode[op.Node]++
		case "fail":
			failed++
		case "info":
			info++
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return ok, failed, info, perNode
}

// galeraLog is a node log the run saved, or the test fails.
func galeraLog(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the run did not save %s: %v", path, err)
	}
	return string(data)
}
