package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faultline/faultline/internal/clitest"
)

// defaultsScript is a suite written from docs/starlark.md with the fault
// settings left at their defaults (repeat = True, every target combined
// offers for partition, kill and pause), NEMESIS filled in per test.
const defaultsScript = `
load("@stdlib//nemeses.star", "combined")
load("@stdlib//db/demo.star", "demo_store")
load("@stdlib//workloads.star", "cas_register")

db = demo_store()
scenario(name = "defaults", db = db, client = client.demo_kv(),
         workload = gen.stagger("10ms", cas_register(keys = 6, ops_per_key = 30)),
         checker = check.compose([check.linearizable(model = "kv"), check.stats()]),
         nemesis = NEMESIS,
         budgets = {"smoke": budget(duration = "DURATION")})
`

// runDefaults runs defaultsScript on local nodes of the demo store and
// returns stdout and the session's directory; the run must earn PASS-smoke.
func runDefaults(t *testing.T, nemesis, duration string) (string, string) {
	t.Helper()
	dir := t.TempDir()
	script := filepath.Join(dir, "defaults.star")
	src := strings.NewReplacer("NEMESIS", nemesis, "DURATION", duration).Replace(defaultsScript)
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	code, stdout, stderr := runCLI(t, "run", script, "--local", "--seed", "2", "--out", out)
	session := clitest.OnlySession(t, filepath.Join(out, "defaults"))
	if code != exitOK || !clitest.HasRow(stdout, "defaults", "PASS-smoke") {
		findings, _ := os.ReadFile(filepath.Join(session, "findings", "defaults.md"))
		t.Fatalf("exit %d, want 0 with defaults PASS-smoke\n%s\n%s\n%s", code, stdout, stderr, findings)
	}
	return stdout, session
}

// A partition with its defaults (every 10s, held 10s, repeated) in a 12s
// load heals at T+20s, past the load's end: the run keeps load going for
// the recovery tail after that heal, marks it in the schedule and the
// session log, and RF8 measures recovery there (before the tail existed
// the load stopped at the heal: "recovery after heal not measured",
// PARTIAL-surface).
func TestQuietTailAfterLateHeal(t *testing.T) {
	_, session := runDefaults(t, "nemesis.partition()", "12s")
	art := filepath.Join(session, "artifacts", "defaults")
	sched, err := os.ReadFile(filepath.Join(art, "schedule.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(sched), `"phase":"recovery"`) {
		t.Errorf("schedule.jsonl has no recovery phase:\n%s", lastLines(string(sched), 5))
	}
	log, err := os.ReadFile(filepath.Join(session, "session-log.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(log), "recovery tail") || !strings.Contains(string(log), "past its 12s to keep that stretch") {
		t.Errorf("session log does not say the load ran on for the recovery tail:\n%s", log)
	}
	findings, _ := os.ReadFile(filepath.Join(session, "findings", "defaults.md"))
	if !strings.Contains(string(findings), "RF8 Recovery completed — pass") {
		t.Errorf("RF8 did not pass:\n%s", findings)
	}
}

// combined() with its defaults but a short interval, repeated until the
// end of the load: its kills, pauses and partitions never collide (no
// "did not show the fault in effect", no "a partition is already
// active"), every fault lands, and the quiet tail lets RF8 measure.
func TestCombinedDefaultsPass(t *testing.T) {
	stdout, session := runDefaults(t, `combined(db = db, interval = "2s")`, "20s")
	if !strings.Contains(stdout, "every fault landed") {
		t.Errorf("not every fault landed:\n%s", stdout)
	}
	hist := filepath.Join(session, "artifacts", "defaults", "history.jsonl")
	data, err := os.ReadFile(hist)
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"already active", "did not show the fault in effect"} {
		if strings.Contains(string(data), bad) {
			t.Errorf("history has a nemesis op that says %q", bad)
		}
	}
	landed := clitest.NemesisOps(t, hist)
	for _, f := range []string{"start-partition", "kill", "pause"} {
		if landed[f] != "landed" {
			t.Errorf("%s: %q, want landed", f, landed[f])
		}
	}
}

func lastLines(s string, n int) string {
	l := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(l[max(0, len(l)-n):], "\n")
}
