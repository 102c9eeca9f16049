package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faultline/faultline/internal/integration"
	"github.com/faultline/faultline/report"
	"github.com/faultline/faultline/verdict"
)

// logRecipeSuite is a correct register behind a db recipe whose setup
// writes LOG into app/app.log on every --local node and declares it, with
// PATTERNS (the recipe's log_alarms / log_expected fields).
const logRecipeSuite = `load("@stdlib//workloads.star", "cas_register")

LOG = %s

def setup(node):
    node.exec("sh", "-c", 'mkdir -p app && cat > app/app.log', stdin = LOG)

def teardown(node):
    node.exec("rm", "-rf", "app")

scenario(
    name = "logs",
    db = struct(setup = setup, teardown = teardown, logs = ["app/app.log"]%s),
    client = client.register(),
    workload = gen.stagger("5ms", cas_register(values = 3)),
    checker = check.compose([check.linearizable(model = "cas-register"), check.stats()]),
    budgets = {"smoke": budget(duration = "2s", min_ops = 30)},
)
`

// starlarkNoDBSuite is a correct register (register.sh, kept in a file
// under flock) behind a client written in Starlark, with no db recipe:
// LOGS is its scenario(logs = ...) argument.
const starlarkNoDBSuite = `load("@stdlib//workloads.star", "cas_register")

def open(node):
    return node

def invoke(node, op):
    r = node.exec("sh", SCRIPT, STATE, stdin = json.encode({"f": op["f"], "value": op.get("value")}), check = False)
    if r.exit == 0 and op["f"] == "read":
        return {"type": "ok", "value": json.decode(r.stdout)}
    if r.exit == 0:
        return {"type": "ok"}
    if r.exit == 1:
        return {"type": "fail", "error": r.stdout.strip()}
    return {"type": "info", "error": "exit %d: %s" % (r.exit, r.stderr.strip())}

scenario(
    name = "star",
    client = client.starlark(open = open, invoke = invoke, retries = "never: one exec per op"),
    workload = gen.stagger("10ms", cas_register(values = 3)),
    checker = check.compose([check.linearizable(model = "cas-register"), check.stats()]),
    concurrency = 3,
    budgets = {"smoke": budget(duration = "3s", min_ops = 20)},
    logs = LOGS,
)
`

// jvmLog is what a ZooKeeper-like server logs on a clean run under faults:
// connection-loss exceptions by the dozen, some at ERROR level.
const jvmLog = `2024-01-01 12:00:00,000 [myid:1] - INFO  [main:QuorumPeerMain@137] - Starting quorum peer
2024-01-01 12:00:01,000 [myid:1] - WARN  [QuorumPeer[myid=1]:Follower@129] - Exception when following the leader
java.net.ConnectException: Connection refused
	at java.base/sun.nio.ch.Net.connect0(Native Method)
	at java.lang.Thread.run(Thread.java:829)
2024-01-01 12:00:02,000 [myid:1] - ERROR [LearnerHandler-/127.0.0.1:4444:LearnerHandler@714] - Unexpected exception causing shutdown while sock still open
java.io.EOFException
2024-01-01 12:00:03,000 [myid:1] - ERROR [main-EventThread:ClientCnxn@555] - org.apache.zookeeper.KeeperException$ConnectionLossException: KeeperErrorCode = ConnectionLoss for /jepsen
2024-01-01 12:00:04,000 [myid:1] - INFO  [QuorumPeer[myid=1]:Follower@81] - FOLLOWING - LEADER ELECTION TOOK - 42 MS
`

// jvmPatterns makes the audit stricter than the defaults (every ERROR line
// alarms) and declares the lines a fault makes a correct server write.
const jvmPatterns = `, log_alarms = ["\\bERROR\\b"], log_expected = ["Unexpected exception causing shutdown while sock still open", "ConnectionLossException"]`

// npeLine is ZooKeeper 3.8.0's SyncThread NullPointerException when a
// follower loses its leader: a server bug, not noise.
const npeLine = `2024-01-01 12:00:05,000 [myid:1] - ERROR [SyncThread:1:ZooKeeperCriticalThread@49] - Severe unrecoverable error, from thread : SyncThread:1
java.lang.NullPointerException: null
`

// runLogSuite writes src, runs it on local nodes and returns the exit code
// and the one unit's decision from results.json.
func runLogSuite(t *testing.T, src string) (int, verdict.Decision, string) {
	t.Helper()
	dir := t.TempDir()
	script := filepath.Join(dir, "suite.star")
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI(t, "run", script, "--local", "--yes", "--seed", "5", "--out", filepath.Join(dir, "out"), "-o", "json")
	var doc report.Results
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil || len(doc.Units) != 1 {
		t.Fatalf("exit %d: results: %v\n%s\n%s", code, err, stdout, stderr)
	}
	return code, doc.Units[0].Decision, stdout + stderr
}

// rf7 is the decision's RF7 item.
func rf7(t *testing.T, d verdict.Decision) verdict.AuditItem {
	t.Helper()
	for _, it := range d.Audits {
		if it.ID == "RF7" {
			return it
		}
	}
	t.Fatalf("no RF7 among the audits of %s (%s)", d.Scenario, d.Verdict)
	return verdict.AuditItem{}
}

// TestLogAuditEndToEnd runs suites on local nodes whose logs hold what
// red flag #7 must tell apart: expected connection-loss exceptions (PASS,
// lines read), a real server error (blocks, quoting file:line), a Go panic
// behind an in-process client (blocks: the declared log is read whatever
// the client), an empty declared log (not clean), and a Starlark client
// with no db that says its system has no logs faultline can reach (n/a,
// with the reason) or says nothing (cannot-judge, saying what to write).
func TestLogAuditEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("runs suites on local nodes")
	}
	recipe := func(log, patterns string) string {
		b, _ := json.Marshal(log) // a JSON string is a Starlark string literal
		return strings.Replace(strings.Replace(logRecipeSuite, "%s", string(b), 1), "%s", patterns, 1)
	}
	t.Run("expected exceptions pass", func(t *testing.T) {
		code, d, out := runLogSuite(t, recipe(jvmLog, jvmPatterns))
		it := rf7(t, d)
		l := d.Evidence.Logs
		if it.Status != verdict.Pass || l.Files != 3 || l.Lines != 3*9 || l.Excused != 6 || l.Matches != 0 {
			t.Fatalf("RF7 %s: %s (logs %+v)\n%s", it.Status, it.Evidence, l, out)
		}
		if code != exitOK || d.Verdict != verdict.PassSmoke {
			t.Fatalf("exit %d, %s: want a PASS-smoke\n%s", code, d.Verdict, out)
		}
		if !strings.Contains(it.Evidence, "3 log files (27 lines) read") || !strings.Contains(it.Evidence, "6 alarm lines excused as expected (first: n1/app/app.log:6:") {
			t.Errorf("RF7 evidence %q", it.Evidence)
		}
	})
	t.Run("a real server error blocks", func(t *testing.T) {
		code, d, out := runLogSuite(t, recipe(jvmLog+npeLine, jvmPatterns))
		it := rf7(t, d)
		if it.Status != verdict.Failed || code == exitOK || d.Verdict == verdict.PassSmoke {
			t.Fatalf("exit %d, %s, RF7 %s: %s\n%s", code, d.Verdict, it.Status, it.Evidence, out)
		}
		// Two alarms per node: the ERROR line (declared) and the NPE (a
		// JVM default, so it blocks even without the ERROR alarm).
		for _, want := range []string{"6 alarm lines in 3 log files", "n1/app/app.log:10: 2024-01-01 12:00:05,000 [myid:1] - ERROR [SyncThread:1",
			"n1/app/app.log:11: java.lang.NullPointerException: null [alarm `java\\.lang\\.(?:NullPointer", "and 1 more not quoted"} {
			if !strings.Contains(it.Evidence, want) {
				t.Errorf("RF7 evidence lacks %q: %s", want, it.Evidence)
			}
		}
	})
	t.Run("the npe blocks with the default alarms alone", func(t *testing.T) {
		_, d, out := runLogSuite(t, recipe(jvmLog+npeLine, ""))
		it := rf7(t, d)
		if it.Status != verdict.Failed || !strings.Contains(it.Evidence, "3 alarm lines") || !strings.Contains(it.Evidence, "n2/app/app.log:11: java.lang.NullPointerException") {
			t.Fatalf("RF7 %s: %s\n%s", it.Status, it.Evidence, out)
		}
	})
	t.Run("a panic behind an in-process client blocks", func(t *testing.T) {
		code, d, out := runLogSuite(t, recipe("starting\npanic: runtime error: index out of range [3] with length 3\n", ""))
		it := rf7(t, d)
		if it.Status != verdict.Failed || code == exitOK || !strings.Contains(it.Evidence, "n1/app/app.log:2: panic: runtime error: index out of range [3] with length 3 [alarm `\\bpanic: `, default (Go)]") {
			t.Fatalf("exit %d, RF7 %s: %s\n%s", code, it.Status, it.Evidence, out)
		}
	})
	t.Run("an empty declared log is not clean", func(t *testing.T) {
		code, d, out := runLogSuite(t, recipe("", ""))
		it := rf7(t, d)
		if it.Status != verdict.CannotJudge || code == exitOK || !strings.Contains(it.Evidence, "n1/app/app.log: empty") {
			t.Fatalf("exit %d, RF7 %s: %s\n%s", code, it.Status, it.Evidence, out)
		}
	})

	integration.NeedCommand(t, "jq")
	integration.NeedCommand(t, "flock")
	sh, err := filepath.Abs(filepath.Join("testdata", "exec", "register.sh"))
	if err != nil {
		t.Fatal(err)
	}
	starSuite := func(logs string) string {
		state := t.TempDir()
		return strings.NewReplacer("SCRIPT", quoteStar(sh), "STATE", quoteStar(state), "LOGS", logs).Replace(starlarkNoDBSuite)
	}
	t.Run("a Starlark client whose system has no reachable logs", func(t *testing.T) {
		code, d, out := runLogSuite(t, starSuite(`system_logs(none = "the register lives in a file; it writes no log")`))
		it := rf7(t, d)
		if it.Status != verdict.NA || !strings.Contains(it.Evidence, "the register lives in a file; it writes no log") {
			t.Fatalf("RF7 %s: %s\n%s", it.Status, it.Evidence, out)
		}
		if code != exitOK || d.Verdict != verdict.PassSmoke {
			t.Fatalf("exit %d, %s: want a PASS-smoke\n%s", code, d.Verdict, out)
		}
	})
	t.Run("a Starlark client that says nothing of its logs", func(t *testing.T) {
		code, d, out := runLogSuite(t, starSuite("None"))
		it := rf7(t, d)
		if it.Status != verdict.CannotJudge || code != exitUnknown || !strings.Contains(it.Fix, `system_logs(none = "why")`) {
			t.Fatalf("exit %d, RF7 %s: %s (fix: %s)\n%s", code, it.Status, it.Evidence, it.Fix, out)
		}
	})
}

// quoteStar is s as a Starlark string literal.
func quoteStar(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
