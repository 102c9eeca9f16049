package session

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/faultline/faultline/internal/testfile"
	"github.com/faultline/faultline/plans"
	"github.com/faultline/faultline/report"
)

// TestReproduceCommand: the printed reproduce command carries every flag a
// run needs to be repeated, each once.
func TestReproduceCommand(t *testing.T) {
	base := Options{Seed: 42, Tier: "smoke"}
	with := func(mod func(*Options)) Options { f := base; mod(&f); return f }
	tests := []struct {
		name     string
		f        Options
		realtime bool
		want     string
	}{
		{"in-process, simulated", base, false,
			"faultline run s.star --scenario a --seed 42 --tier smoke"},
		{"--realtime asked and the run was real-time: once", with(func(f *Options) { f.Realtime = true }), true,
			"faultline run s.star --scenario a --seed 42 --tier smoke --realtime"},
		{"real-time because the client needs it", base, true,
			"faultline run s.star --scenario a --seed 42 --tier smoke --realtime"},
		{"--local with the default nodes names them", with(func(f *Options) { f.Nodes.Local = true }), true,
			"faultline run s.star --scenario a --seed 42 --tier smoke --local --nodes n1,n2,n3 --realtime"},
		{"--local with five nodes", with(func(f *Options) { f.Nodes.Local, f.Nodes.List = true, "a,b,c,d,e" }), true,
			"faultline run s.star --scenario a --seed 42 --tier smoke --local --nodes a,b,c,d,e --realtime"},
		{"load roots", with(func(f *Options) { f.Libs = []string{"mylib=./lib", "odd=/a dir"} }), false,
			"faultline run s.star --scenario a --seed 42 --tier smoke --lib mylib=./lib --lib 'odd=/a dir'"},
		{"SSH nodes with non-default settings", with(func(f *Options) {
			f.Nodes = Nodes{File: "nodes", User: "admin", Keys: []string{"k1"}, KnownHosts: "kh"}
		}), true, "faultline run s.star --scenario a --seed 42 --tier smoke --nodes-file nodes --ssh-user admin --ssh-key k1 --known-hosts kh --realtime"},
		{"SSH nodes as root: no --ssh-user", with(func(f *Options) { f.Nodes = Nodes{List: "n1,n2", User: "root"} }), true,
			"faultline run s.star --scenario a --seed 42 --tier smoke --nodes n1,n2 --realtime"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := reproduceCommand("s.star", "a", tt.f, tt.realtime); got != tt.want {
				t.Errorf("reproduceCommand =\n  %s\nwant\n  %s", got, tt.want)
			}
		})
	}
}

func TestReplayCommand(t *testing.T) {
	tests := []struct {
		name  string
		nodes Nodes
		want  string
	}{
		{"local: the schedule says so", Nodes{Local: true}, "faultline replay S"},
		{"load roots are kept by the session: not repeated", Nodes{Local: true, List: "a,b"}, "faultline replay S"},
		{"SSH nodes are not recorded: repeated", Nodes{File: "f", User: "root"}, "faultline replay S --nodes-file f"},
		{"in-process", Nodes{}, "faultline replay S"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ReplayCommand("S", tt.nodes); got != tt.want {
				t.Errorf("ReplayCommand = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestPlanSuite: run and lint find a plan's suite the same way.
func TestPlanSuite(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, text string) string {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	shared := write("suites/demo.star", "")
	besideOnly := write("b/faultline.star", "")
	tests := []struct {
		name, flag, header, plan string
		want                     string // "" means an error
		wantErr                  string
	}{
		{name: "--suite wins", flag: shared, header: "../nope.star", plan: "a/plan.md", want: shared},
		{name: "--suite missing", flag: filepath.Join(dir, "missing.star"), plan: "a/plan.md", wantErr: "--suite"},
		{name: "the Suite: header, relative to the plan", header: "../suites/demo.star", plan: "a/plan.md", want: filepath.Join(dir, "a", "..", "suites", "demo.star")},
		{name: "the header in backticks", header: "`../suites/demo.star`", plan: "a/plan.md", want: filepath.Join(dir, "a", "..", "suites", "demo.star")},
		{name: "faultline.star beside the plan", plan: "b/plan.md", want: besideOnly},
		{name: "a header naming a missing file falls back to beside", header: "../gone.star", plan: "b/plan.md", want: besideOnly},
		{name: "nothing found", plan: "a/plan.md", wantErr: "pass --suite FILE"},
		{name: "the header's file missing, nothing beside", header: "../gone.star", plan: "a/plan.md", wantErr: "Suite: header names"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text := "# Test Plan: x\n\n**Status:** draft\n"
			if tt.header != "" {
				text += "**Suite:** " + tt.header + "\n"
			}
			plan := write(tt.plan, text)
			p, _, err := plans.Load(plan)
			if err != nil {
				t.Fatal(err)
			}
			got, err := PlanSuite(tt.flag, plan, p)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("PlanSuite = %q, %v; want an error saying %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil || filepath.Clean(got) != filepath.Clean(tt.want) {
				t.Fatalf("PlanSuite = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

// TestScriptReportCopiesNodeLogs: node logs the db recipe saved into a
// scenario's artifacts are copied to logs/<scenario>/<node>/ and named in
// the report; a scenario without logs says so.
func TestScriptReportCopiesNodeLogs(t *testing.T) {
	sess, err := report.NewSession(t.TempDir(), "s", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	saved := filepath.Join(sess.ArtifactDir("withlogs"), "logs", "n2", "store.log")
	if err := os.MkdirAll(filepath.Dir(saved), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(saved, []byte("raft: elected\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	outs := []ScenarioOutcome{
		{Scenario: "withlogs", Result: "valid", Summary: "ok", Invoked: 10, OK: 9, Info: 1, Replay: "faultline run x"},
		{Scenario: "inproc", Result: "invalid", Summary: "not linearizable", Replay: "faultline run y"},
	}
	f := Options{Seed: 3, Tier: "smoke", Nodes: Nodes{Local: true}}
	if err := writeScriptReport(sess, f, "x.star", outs, exitFail); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(sess.Dir, "logs", "withlogs", "n2", "store.log"))
	if err != nil || string(got) != "raft: elected\n" {
		t.Errorf("logs/withlogs/n2/store.log = %q, %v", got, err)
	}
	testfile.MustContain(t, filepath.Join(sess.Dir, "findings", "report.md"), "**invalid** (exit 1)",
		"- Node logs: `logs/withlogs/` (n2)", "- Node logs: none saved", "Reproduce from the seed: `faultline run y`",
		"`faultline replay "+sess.Dir+" --scenario inproc`")
	var m ScriptMetrics
	testfile.ReadJSON(t, filepath.Join(sess.Dir, "metrics", "summary.json"), &m)
	if len(m.Scenarios) != 2 || m.Scenarios[0].Invoked != 10 || m.Scenarios[0].Info != 1 || m.ExitCode != exitFail {
		t.Errorf("metrics = %+v", m)
	}
}

// TestReplayReport: a replay that did not run says so instead of claiming
// it found no anomaly.
func TestReplayReport(t *testing.T) {
	sess, err := report.NewSession(t.TempDir(), "s", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	outs := []ReplayOutcome{
		{Scenario: "a", Original: "orig/a", Replay: "new/a", Reproduced: "yes, the same anomaly on the same keys",
			Was: []string{"linearizable key=1"}, Now: []string{"linearizable key=1"}, Result: "invalid", Summary: "not linearizable",
			OriginalVerdict: "invalid: not linearizable on key 1 (anomalies: linearizable key=1)", ReplayVerdict: "invalid: not linearizable on key 1 (anomalies: linearizable key=1)"},
		{Scenario: "b", Original: "orig/b", Replay: "new/b", Reproduced: "no (the replay did not run)", Result: "error", Summary: "the recorded script is gone"},
	}
	if err := writeReplayReport(sess, "orig", ReplayOptions{Libs: []string{"x=lib"}}, outs, exitFail); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(sess.Dir, "findings", "report.md")
	testfile.MustContain(t, path, "# Replay of orig", "## a: reproduced: yes, the same anomaly on the same keys",
		"- Original: `orig/a`: invalid: not linearizable on key 1 (anomalies: linearizable key=1)",
		"- Replay: `new/a`: invalid: not linearizable on key 1 (anomalies: linearizable key=1)", "## b: reproduced: no (the replay did not run)",
		"- Replay: did not run: the recorded script is gone", "Replay again: `faultline replay orig`")
	text, _ := os.ReadFile(path)
	if strings.Contains(string(text), "new/b") {
		t.Errorf("a replay that did not run is reported with an artifact:\n%s", text)
	}
}
