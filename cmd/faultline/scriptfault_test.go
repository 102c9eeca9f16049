package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/cluster"
	"github.com/faultline/faultline/internal/clitest"
	"github.com/faultline/faultline/internal/integration"
	"github.com/faultline/faultline/internal/testcluster"
)

// scriptFaultSrc is a suite whose only fault is written in Starlark: a
// marker file in the victim's directory. heal appends the nodes it ran on
// to HEALLOG (an absolute path on this host, which local nodes share), so
// the test sees that the final heal ran it. VERIFY is the verify function.
const scriptFaultSrc = `
load("@stdlib//workloads.star", "cas_register")

def put(nodes):
    for n in nodes:
        n.exec(raw = "echo on > faultline-marker")

def remove(nodes):
    for n in nodes:
        n.exec(raw = "rm -f faultline-marker")

def look(nodes):
    found = {}
    for n in nodes:
        r = n.exec(raw = "cat faultline-marker 2>/dev/null", check = False)
        if r.stdout.strip() == "on":
            found[n.name] = "marker present"
    return found

def none(nodes):
    return None

def heal(nodes):
    remove(nodes)
    for n in nodes:
        n.exec(raw = "echo %s >> HEALLOG" % n.name)

def liar(nodes):
    # Evidence from a node that is not the victim: proves nothing of it.
    other = "n2" if nodes[0].name != "n2" else "n3"
    return {other: "marker present"}

def stuck(nodes):
    # A stop that fails quietly: the marker stays.
    for n in nodes:
        n.exec(raw = "exit 7", check = False)

def failing(nodes):
    for n in nodes:
        n.exec(raw = "exit 7")

marker = FAULT

scenario(name = "marked", client = client.register(), workload = gen.stagger("10ms", cas_register()),
         checker = check.compose([check.linearizable(model = "cas-register"), check.stats()]), landing = [evidence.landed()],
         nemesis = marker(SCHEDULE),
         budgets = {"smoke": budget(duration = "5900ms")})
`

// everyCycle is the marker fault's schedule: twice, with quiet load
// before the first and after the last, so recovery is measured.
const everyCycle = `nodes = "one", start = "1s", interval = "1500ms", hold = "1s"`

// writeScriptFault writes the suite with verify as its verify function and
// returns its path and the heal log's.
func writeScriptFault(t *testing.T, verify string) (script, healLog string) {
	t.Helper()
	return writeScriptFaultDef(t, `nemesis.fault("marker", start = put, stop = remove, verify = `+verify+`, heal = heal)`, everyCycle)
}

// writeScriptFaultDef writes the suite with def as the marker fault's
// definition, scheduled with schedule's arguments.
func writeScriptFaultDef(t *testing.T, def, schedule string) (script, healLog string) {
	t.Helper()
	dir := t.TempDir()
	healLog = filepath.Join(dir, "heal.log")
	src := strings.NewReplacer("FAULT", def, "SCHEDULE", schedule, "HEALLOG", healLog).Replace(scriptFaultSrc)
	script = filepath.Join(dir, "marked.star")
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return script, healLog
}

// A fault written in Starlark (nemesis.fault) on local nodes (twice, with
// quiet load before the first and after the last, so recovery is
// measured): injected on its victim, proven by what its verify read back (recorded in the
// history), ended by its stop with verify showing it gone, and its heal
// run by the final heal on every node.
func TestScriptFaultLocal(t *testing.T) {
	script, healLog := writeScriptFault(t, "look")
	out := t.TempDir()
	code, stdout, stderr := runCLI(t, "run", script, "--local", "--seed", "3", "--out", out)
	if code != exitOK || !clitest.HasRow(stdout, "marked", "PASS-smoke") {
		t.Fatalf("exit %d, want 0 with PASS-smoke\n%s\n%s", code, stdout, stderr)
	}
	hist, _ := filepath.Glob(filepath.Join(out, "marked", "*", "artifacts", "marked", "history.jsonl"))
	if len(hist) != 1 {
		t.Fatalf("history files: %v", hist)
	}
	if starts, stops, heals := markerOps(t, hist[0]); starts != 2 || stops != 2 || heals != 1 {
		t.Errorf("%d start:marker, %d stop:marker, %d heal completions; want 2, 2, 1", starts, stops, heals)
	}
	// The schedule records the fault by its ops' names; a replay loads the
	// script again and injects it on the same victims, landed again.
	session := filepath.Dir(filepath.Dir(filepath.Dir(hist[0])))
	code, stdout, stderr = runCLI(t, "replay", session, "--local")
	if code != exitOK || !strings.Contains(stdout, "marked: reproduced: no") {
		t.Fatalf("replay: exit %d, want 0\n%s\n%s", code, stdout, stderr)
	}
	replayed, _ := filepath.Glob(filepath.Join(out, "marked", "*-replay", "artifacts", "marked", "history.jsonl"))
	if len(replayed) != 1 {
		t.Fatalf("replay history files: %v", replayed)
	}
	if starts, stops, heals := markerOps(t, replayed[0]); starts != 2 || stops != 2 || heals != 1 {
		t.Errorf("replay: %d start:marker, %d stop:marker, %d heal completions; want 2, 2, 1", starts, stops, heals)
	}
	log, err := os.ReadFile(healLog)
	if err != nil {
		t.Fatalf("the script's heal never ran: %v", err)
	}
	for _, n := range []string{"n1", "n2", "n3"} {
		if !strings.Contains(string(log), n+"\n") {
			t.Errorf("heal log %q: the final heal did not run the script's heal on %s", log, n)
		}
	}
}

// A verify that returns None proves nothing: the run says the fault did
// not land instead of passing.
func TestScriptFaultNotLanded(t *testing.T) {
	script, _ := writeScriptFault(t, "none")
	out := t.TempDir()
	code, stdout, stderr := runCLI(t, "run", script, "--local", "--seed", "3", "--out", out)
	if code != exitUnknown || !clitest.HasRow(stdout, "marked", "INCONCLUSIVE-fault-not-proven") ||
		!strings.Contains(stdout, "0 of 2 faults landed") || !strings.Contains(stdout, "verify(nodes) returned no evidence") {
		t.Fatalf("exit %d, want %d with the fault not proven\n%s\n%s", code, exitUnknown, stdout, stderr)
	}
}

// A custom fault meets the contract a built-in one does (issue 27 item
// 6): evidence for a node that is not a victim does not prove the window;
// a stop that leaves the fault in effect, or fails, blocks the PASS and
// says what to change; a fault with no stop and no heal is a fault, which
// earns PASS by evidence from its victim and not without it.
func TestScriptFaultContract(t *testing.T) {
	for _, tc := range []struct {
		name, def string
		code      int
		verdict   string
		want      []string
	}{
		{"evidence for a non-victim", `nemesis.fault("marker", start = put, stop = remove, verify = liar, heal = heal)`,
			exitUnknown, "INCONCLUSIVE-fault-not-proven", []string{"does not count: not a victim", "0 of 2 faults landed"}},
		{"stop leaves it in effect", `nemesis.fault("marker", start = put, stop = stuck, verify = look, heal = heal)`,
			exitUnknown, "PARTIAL-surface", []string{"not shown gone after it ended", "still showed it in effect on", "fix: make the fault's stop"}},
		{"stop fails", `nemesis.fault("marker", start = put, stop = failing, verify = look, heal = heal)`,
			exitUnknown, "PARTIAL-surface", []string{"its stop failed", "fix: make the fault's stop"}},
		// A one-shot fault (a bitflip's kind) happens once here: a
		// repeating one would leave no quiet load to measure recovery in.
		{"inject-only, landed", `nemesis.fault("marker", start = put, verify = look)`,
			exitOK, "PASS-smoke", []string{"1 of 1 faults landed"}},
		{"inject-only, no evidence", `nemesis.fault("marker", start = put, verify = none)`,
			exitUnknown, "INCONCLUSIVE-fault-not-proven", []string{"0 of 1 faults landed", "returned no evidence for victim"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			schedule := everyCycle
			if strings.HasPrefix(tc.name, "inject-only") {
				schedule += ", repeat = False"
			}
			script, _ := writeScriptFaultDef(t, tc.def, schedule)
			out := t.TempDir()
			code, stdout, stderr := runCLI(t, "run", script, "--local", "--seed", "3", "--out", out)
			if code != tc.code || !clitest.HasRow(stdout, "marked", tc.verdict) {
				t.Fatalf("exit %d, want %d with %s\n%s\n%s", code, tc.code, tc.verdict, stdout, stderr)
			}
			// The terminal shows each gate in one line; the whole reason
			// and its fix are in the findings.
			findings, _ := filepath.Glob(filepath.Join(clitest.OnlySession(t, filepath.Join(out, "marked")), "findings", "*.md"))
			var report []byte
			for _, f := range findings {
				data, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				report = append(report, data...)
			}
			for _, w := range tc.want {
				if !strings.Contains(stdout, w) && !strings.Contains(string(report), w) {
					t.Errorf("neither the output nor the findings say %q\n%s\n%s", w, stdout, report)
				}
			}
			rf3 := lineWith(string(report), "RF3 Fault injected")
			if rf3 == "" || strings.Contains(rf3, "n/a") || tc.code == exitOK && !strings.Contains(rf3, "one-shot fault") {
				t.Errorf("RF3 not judged on the fault's landing: %q", rf3)
			}
		})
	}
}

// lineWith is the first line of text containing s, "" when none does.
func lineWith(text, s string) string {
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, s) {
			return l
		}
	}
	return ""
}

// A script fault named like a built-in, or defined twice, is an error at
// the line that defined it.
func TestScriptFaultNameClash(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"built-in", `nemesis.fault("partition", start = lambda nodes: None)`, `clashes with the built-in fault nemesis.partition`},
		{"twice", "f = lambda nodes: None\nnemesis.fault(\"x\", start = f)\nnemesis.fault(\"x\", start = f)", `fault "x" is already defined at`},
		{"bad name", `nemesis.fault("Has Space", start = lambda nodes: None)`, `want lower-case letters`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			script := filepath.Join(t.TempDir(), "clash.star")
			if err := os.WriteFile(script, []byte("\n"+tc.src+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			code, stdout, stderr := runCLI(t, "lint", script)
			line := strings.Count(tc.src, "\n") + 2 // the last definition's line
			pos := "clash.star:" + string(rune('0'+line))
			if code == exitOK || !strings.Contains(stderr, tc.want) || !strings.Contains(stderr, pos) {
				t.Fatalf("exit %d, want an error naming %s: %s\n%s\n%s", code, pos, tc.want, stdout, stderr)
			}
		})
	}
}

// markerOps counts the marker fault's completions in a history, failing
// the test for one that did not land with the victim's marker as its
// evidence, or a stop that did not read it held and then gone.
func markerOps(t *testing.T, path string) (starts, stops, heals int) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		var op struct {
			Process  any            `json:"process"`
			Type     string         `json:"type"`
			F        string         `json:"f"`
			Value    any            `json:"value"`
			Landed   *bool          `json:"landed"`
			Healed   *bool          `json:"healed"`
			Held     any            `json:"held"`
			Evidence map[string]any `json:"evidence"`
		}
		if json.Unmarshal([]byte(line), &op) != nil || op.Process != "nemesis" || op.Type == "invoke" {
			continue
		}
		switch op.F {
		case "start:marker":
			starts++
			value, _ := op.Value.(map[string]any)
			victims, _ := value["nodes"].([]any)
			if op.Type != "ok" || op.Landed == nil || !*op.Landed || len(victims) != 1 {
				t.Errorf("start:marker completion %s", line)
				continue
			}
			if op.Evidence[victims[0].(string)] != "marker present" {
				t.Errorf("start:marker evidence %v, want the victim's marker read back", op.Evidence)
			}
		case "stop:marker":
			stops++
			if op.Type != "ok" || op.Healed == nil || !*op.Healed || op.Held != true {
				t.Errorf("stop:marker completion %s: want held until the stop and healed by it", line)
			}
		case "heal":
			heals++
		}
	}
	return starts, stops, heals
}

var scriptFaultClusterConfig = cluster.Config{Nodes: 3, StateDir: "/var/lib/faultline-test-sfault/cluster",
	Subnet: "10.89.0.0/24", Prefix: "ffa"}

// A controller killed with SIGKILL while a Starlark-defined fault is in
// effect leaves it behind on the nodes; `faultline heal --session` loads
// the session's script and runs the fault's heal on every node. The
// markers live under /var/tmp, which netns nodes share with the host
// (their /tmp is their own).
func TestScriptFaultHealSession(t *testing.T) {
	integration.NeedRoot(t)
	st := testcluster.Up(t, scriptFaultClusterConfig)
	sshArgs := []string{"--nodes-file", st.NodesFile, "--known-hosts", st.KnownHosts, "--ssh-key", st.ClientKey}
	marks, err := os.MkdirTemp("/var/tmp", "faultline-sfault-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(marks) })
	src := `
load("@stdlib//workloads.star", "cas_register")
DIR = "` + marks + `"
def put(nodes):
    for n in nodes:
        n.exec(raw = "touch %s/marker-%s" % (DIR, n.name))
def look(nodes):
    return {n.name: "marker" for n in nodes if n.exists("%s/marker-%s" % (DIR, n.name))}
def heal(nodes):
    for n in nodes:
        n.exec(raw = "rm -f %s/marker-%s" % (DIR, n.name))
marker = nemesis.fault("marker", start = put, verify = look, heal = heal)
scenario(name = "marked", client = client.register(), workload = gen.stagger("10ms", cas_register()),
         checker = check.stats(), nemesis = marker(nodes = "all", interval = "0s", hold = "10m"),
         budgets = {"smoke": budget(duration = "5m")})
`
	dir := t.TempDir()
	script := filepath.Join(dir, "marked.star")
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	left := func() int {
		m, _ := filepath.Glob(filepath.Join(marks, "marker-*"))
		return len(m)
	}
	out := filepath.Join(dir, "out")
	cmd := faultlineCmd(append([]string{"run", script, "--realtime", "--seed", "1", "--out", out}, sshArgs...)...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for left() < 3 {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("the fault's markers did not appear on all 3 nodes within 60s (%d)", left())
		}
		time.Sleep(100 * time.Millisecond)
	}
	cmd.Process.Kill()
	cmd.Wait()
	if left() != 3 {
		t.Fatalf("%d markers after SIGKILL, want 3: the test proves nothing", left())
	}
	code, stdout, stderr := runCLI(t, append([]string{"heal"}, sshArgs...)...)
	if code != exitOK || !strings.Contains(stdout, "heal --session DIR runs their heal") || left() != 3 {
		t.Fatalf("heal without --session: exit %d, %d markers; want 0, 3 left and a note\n%s\n%s", code, left(), stdout, stderr)
	}
	session := clitest.OnlySession(t, filepath.Join(out, "marked"))
	code, stdout, stderr = runCLI(t, append([]string{"heal", "--session", session}, sshArgs...)...)
	if code != exitOK || !strings.Contains(stdout, "fault marker of marked") || !strings.Contains(stdout, "heal ran on n1, n2, n3") {
		t.Fatalf("heal --session: exit %d, want 0 with the script's heal reported\n%s\n%s", code, stdout, stderr)
	}
	if n := left(); n != 0 {
		t.Fatalf("after heal --session %d markers remain", n)
	}
}

// combinedScript is the demo store under @stdlib//nemeses.star's combined
// partition + kill + pause of one node each, seeded so the schedule is
// fixed and each fault once: every fault ends by T+8.5s, leaving quiet load
// to judge recovery.
const combinedScript = `
load("@stdlib//nemeses.star", "combined")
load("@stdlib//db/demo.star", "demo_store")
load("@stdlib//workloads.star", "cas_register")

db = demo_store()
scenario(name = "combined", db = db, client = client.demo_kv(),
         workload = gen.stagger("10ms", cas_register(keys = 6, ops_per_key = 30)),
         checker = check.compose([check.linearizable(model = "kv"), check.stats()]),
         landing = [evidence.landed()],
         nemesis = combined(faults = ["partition", "kill", "pause"], targets = ["one"], db = db,
                            interval = "2s", hold = "1500ms", start = "1s", seed = SEED, repeat = False),
         budgets = {"smoke": budget(duration = "12s")})
`

// combined on local nodes of the demo store: a partition, a kill -9 with
// its restart and a pause each land (proven by the run's landing audit)
// and the store stays linearizable.
func TestCombinedNemesisLocal(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "combined.star")
	if err := os.WriteFile(script, []byte(strings.ReplaceAll(combinedScript, "SEED", "1")), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	code, stdout, stderr := runCLI(t, "run", script, "--local", "--seed", "2", "--out", out)
	if code != exitOK || !clitest.HasRow(stdout, "combined", "PASS-smoke") || !strings.Contains(stdout, "landed (3 of 3 faults landed)") {
		t.Fatalf("exit %d, want 0 with combined PASS-smoke and every fault landed\n%s\n%s", code, stdout, stderr)
	}
	hist, _ := filepath.Glob(filepath.Join(out, "combined", "*", "artifacts", "combined", "history.jsonl"))
	if len(hist) != 1 {
		t.Fatalf("history files: %v", hist)
	}
	landed := clitest.NemesisOps(t, hist[0])
	for _, f := range []string{"start-partition", "stop-partition", "kill", "start", "pause", "resume"} {
		if landed[f] != "landed" {
			t.Errorf("%s: %q, want landed", f, landed[f])
		}
	}
}
