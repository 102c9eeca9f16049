package session

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/control"
	"github.com/faultline/faultline/interp"
)

// writeSchedule records a schedule header for artifact id of session, as a
// run does when its workload starts.
func writeSchedule(t *testing.T, session, id string, h interp.ScheduleHeader) {
	t.Helper()
	dir := filepath.Join(session, "artifacts", id)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	h.Schedule, h.Tier, h.Concurrency, h.Started = interp.ScheduleVersion, "smoke", 1, time.Now().UTC()
	w, err := interp.NewScheduleWriter(filepath.Join(dir, interp.ScheduleFile), h)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// healDBScript has a db recipe whose teardown marks each node in root, and
// a scenario without one.
const healDBScript = `
def teardown(node):
    node.exec("touch", %q + "/torn-" + node.name)

db = struct(setup = lambda n: None, teardown = teardown, logs = [%q])
scenario(name = "withdb", client = client.register(), workload = gen.limit(1, {"f": "read"}), checker = check.stats(), db = db)
scenario(name = "nodb", client = client.register(), workload = gen.limit(1, {"f": "read"}), checker = check.stats())
`

// heal --session finds what a session's runs set up from their schedules
// and tears down each scenario's db once, saving the logs of a run that
// had not saved them; it says plainly what it could not do.
func TestHealSessionDBs(t *testing.T) {
	root := t.TempDir()
	logFile := filepath.Join(root, "db.log")
	if err := os.WriteFile(logFile, []byte("log\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(root, "s.star")
	if err := os.WriteFile(script, []byte(fmt.Sprintf(healDBScript, root, logFile)), 0o644); err != nil {
		t.Fatal(err)
	}
	nodes := []string{"n1", "n2"}
	cases := []struct {
		name     string
		schedule map[string]interp.ScheduleHeader // artifact id -> header; nil: no artifacts/ at all
		logsIn   []string                         // artifact ids whose run saved its logs
		wantOut  []string
		wantErr  string
		wantTorn bool
		wantLogs string // artifact id heal saves the logs into
	}{
		{name: "not a session", wantErr: "is not a faultline session"},
		{name: "no schedule", schedule: map[string]interp.ScheduleHeader{}, wantErr: "recorded no schedule"},
		{name: "killed run", schedule: map[string]interp.ScheduleHeader{
			"withdb": {Scenario: "withdb", Script: script, Nodes: nodes}},
			wantOut:  []string{"db of withdb (" + script + "): torn down on n1, n2; its logs saved in"},
			wantTorn: true, wantLogs: "withdb"},
		{name: "run and re-run: one teardown, logs where missing", schedule: map[string]interp.ScheduleHeader{
			"withdb": {Scenario: "withdb", Script: script, Nodes: nodes}, "withdb-rerun1": {Scenario: "withdb", Script: script, Nodes: nodes}},
			logsIn:   []string{"withdb"},
			wantOut:  []string{"db of withdb (" + script + "): torn down on n1, n2; its logs saved in ", filepath.Join("artifacts", "withdb-rerun1", "logs") + "\n"},
			wantTorn: true, wantLogs: "withdb-rerun1"},
		{name: "every run saved its logs", schedule: map[string]interp.ScheduleHeader{
			"withdb": {Scenario: "withdb", Script: script, Nodes: nodes}},
			logsIn: []string{"withdb"}, wantOut: []string{"db of withdb (" + script + "): torn down on n1, n2\n"}, wantTorn: true},
		{name: "no db recipe", schedule: map[string]interp.ScheduleHeader{
			"nodb": {Scenario: "nodb", Script: script, Nodes: nodes}},
			wantOut: []string{"the scenario has no db recipe: nothing to tear down"}},
		{name: "local run", schedule: map[string]interp.ScheduleHeader{
			"withdb": {Scenario: "withdb", Script: script, Nodes: nodes, Local: true}},
			wantOut: []string{"ran on local nodes"}},
		{name: "other nodes", schedule: map[string]interp.ScheduleHeader{
			"withdb": {Scenario: "withdb", Script: script, Nodes: []string{"n1", "n9"}}},
			wantOut: []string{"warning: the run's nodes n9 are not among the nodes given"}, wantTorn: true, wantLogs: "withdb"},
		{name: "script gone", schedule: map[string]interp.ScheduleHeader{
			"withdb": {Scenario: "withdb", Script: filepath.Join(root, "gone.star"), Nodes: nodes}},
			wantOut: []string{"not torn down: the recorded script is gone"}, wantErr: "the recorded script is gone"},
		{name: "scenario gone", schedule: map[string]interp.ScheduleHeader{
			"renamed": {Scenario: "renamed", Script: script, Nodes: nodes}},
			wantErr: `declares no scenario "renamed" any more`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, n := range nodes {
				os.Remove(filepath.Join(root, "torn-"+n))
			}
			session := t.TempDir()
			if c.schedule != nil {
				if err := os.MkdirAll(filepath.Join(session, "artifacts"), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			for id, h := range c.schedule {
				writeSchedule(t, session, id, h)
			}
			for _, id := range c.logsIn {
				if err := os.MkdirAll(filepath.Join(session, "artifacts", id, "logs"), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			pool, err := control.NewPool([]control.Node{{Name: "n1", Host: "n1"}, {Name: "n2", Host: "n2"}}, control.LocalDialer())
			if err != nil {
				t.Fatal(err)
			}
			defer pool.Close()
			var out, stderr bytes.Buffer
			err = HealSessionDBs(context.Background(), pool, session, nil, &out, &stderr)
			if c.wantErr == "" && err != nil {
				t.Fatalf("heal: %v\n%s", err, out.String())
			}
			if c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)) {
				t.Fatalf("heal: %v, want an error containing %q", err, c.wantErr)
			}
			for _, w := range c.wantOut {
				if !strings.Contains(out.String(), w) {
					t.Errorf("output lacks %q:\n%s", w, out.String())
				}
			}
			for _, n := range nodes {
				_, err := os.Stat(filepath.Join(root, "torn-"+n))
				if torn := err == nil; torn != c.wantTorn {
					t.Errorf("teardown on %s: %t, want %t", n, torn, c.wantTorn)
				}
			}
			for id := range c.schedule {
				_, err := os.Stat(filepath.Join(session, "artifacts", id, "logs", "n1", "db.log"))
				if saved := err == nil; saved != (id == c.wantLogs) {
					t.Errorf("logs saved into %s: %t, want %t", id, saved, id == c.wantLogs)
				}
			}
		})
	}
}
