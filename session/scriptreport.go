package session

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/faultline/faultline/check"
	"github.com/faultline/faultline/interp"
	"github.com/faultline/faultline/report"
)

// reproduceCommand is the command line that runs one scenario of a script
// again as f ran it: same seed and tier, same load roots, the same nodes (or
// --local with the same node names), and --realtime when the run was in
// real time (whether --realtime asked for it or the client needed it).
func reproduceCommand(script, scenario string, f Options, realtime bool) string {
	return runCommand(script, scenario, "", f, realtime)
}

// planReproduce is the command that runs one scenario of a plan again from
// seed, the seed of the run that failed: the suite the run used, its load
// roots, nodes and clock.
func planReproduce(plan, scenario string, seed uint64, f Options) string {
	f.Seed = seed
	return runCommand(plan, scenario, f.Suite, f, f.Realtime)
}

// runCommand is "faultline run TARGET" with what repeats a run of scenario.
func runCommand(target, scenario, suite string, f Options, realtime bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "faultline run %s --scenario %s --seed %d --tier %s", shellQuote(target), shellQuote(scenario), f.Seed, f.Tier)
	if suite != "" {
		b.WriteString(" --suite " + shellQuote(suite))
	}
	b.WriteString(libFlags(f.Libs))
	b.WriteString(runKnobFlags(f))
	b.WriteString(f.Nodes.flags())
	if realtime {
		b.WriteString(" --realtime")
	}
	return b.String()
}

// runKnobFlags repeats the run's -p, --time-limit and --concurrency: the
// same seed without them is another test.
func runKnobFlags(f Options) string {
	var b strings.Builder
	params, _ := interp.ParseParams(f.Params)
	for _, p := range params.Flags() {
		b.WriteString(" -p " + shellQuote(p))
	}
	if f.TimeLimit > 0 {
		b.WriteString(" --time-limit " + f.TimeLimit.String())
	}
	if f.Concurrency != "" {
		b.WriteString(" --concurrency " + shellQuote(f.Concurrency))
	}
	return b.String()
}

// libFlags repeats the run's load roots: without them the script's
// load("@name//...") statements do not resolve on replay.
func libFlags(libs []string) string {
	var b strings.Builder
	for _, l := range libs {
		b.WriteString(" --lib " + shellQuote(l))
	}
	return b.String()
}

// ReplayCommand is the command that replays a session's recorded
// schedules: the recorded header says whether the nodes were local, and the
// session keeps a copy of every --lib file the run loaded (replay restores
// them, so no --lib is repeated), but real nodes are not recorded, so they
// are repeated.
func ReplayCommand(session string, n Nodes) string {
	cmd := "faultline replay " + shellQuote(session)
	if !n.Local {
		cmd += n.flags()
	}
	return cmd
}

// ScriptMetrics is metrics/summary.json of a script session: the counts
// of every scenario run, for tools that chart runs over time.
type ScriptMetrics struct {
	Script    string            `json:"script"`
	Seed      uint64            `json:"seed"`
	Tier      string            `json:"tier"`
	Result    string            `json:"result"`
	ExitCode  int               `json:"exit_code"`
	Scenarios []ScenarioMetrics `json:"scenarios"`
}

// ScenarioMetrics are one scenario run's counts in metrics/summary.json.
type ScenarioMetrics struct {
	Scenario      string  `json:"scenario"`
	Result        string  `json:"result"`
	SimulatedTime bool    `json:"simulated_time"`
	Invoked       int64   `json:"invoked"`
	OK            int64   `json:"ok"`
	Fail          int64   `json:"fail"`
	Info          int64   `json:"info"`
	Faults        int     `json:"faults"`
	FaultsLanded  int     `json:"faults_landed"`
	ElapsedSecs   float64 `json:"elapsed_seconds"`
}

// writeScriptReport fills the session of a script run: findings/report.md
// (each scenario's check result and how to reproduce it), metrics/summary.json
// (the counts) and logs/<scenario>/<node>/ (the node logs the db recipe
// saved, copied out of the artifacts so logs/ holds every log of the run).
// It is the one place a script session's report is written, so verdicts can
// be added here.
func writeScriptReport(sess *report.Session, f Options, script string, outcomes []ScenarioOutcome, code int) error {
	m := ScriptMetrics{Script: script, Seed: f.Seed, Tier: f.Tier, Result: Overall(code), ExitCode: code, Scenarios: []ScenarioMetrics{}}
	for _, o := range outcomes {
		sm := ScenarioMetrics{Scenario: o.Scenario, Result: o.Result, SimulatedTime: o.Virtual, Invoked: o.Invoked,
			OK: o.OK, Fail: o.Fail, Info: o.Info, Faults: len(o.Faults), ElapsedSecs: o.ElapsedSecs}
		for _, w := range o.Faults {
			if w.Landed {
				sm.FaultsLanded++
			}
		}
		m.Scenarios = append(m.Scenarios, sm)
	}
	if err := sess.WriteJSON(filepath.Join("metrics", "summary.json"), m); err != nil {
		return err
	}
	logs := map[string][]string{} // scenario -> nodes whose logs were saved
	for _, o := range outcomes {
		nodes, err := copyNodeLogs(filepath.Join(sess.ArtifactDir(o.Scenario), "logs"), filepath.Join(sess.Dir, "logs", o.Scenario))
		if err != nil {
			return fmt.Errorf("session logs: %w", err)
		}
		logs[o.Scenario] = nodes
	}
	text := renderScriptReport(sess.Dir, script, f, outcomes, code, logs)
	if err := os.WriteFile(filepath.Join(sess.Dir, "findings", "report.md"), []byte(text), 0o644); err != nil {
		return fmt.Errorf("write findings report: %w", err)
	}
	return nil
}

// renderScriptReport is findings/report.md of a script session.
func renderScriptReport(dir, script string, f Options, outcomes []ScenarioOutcome, code int, logs map[string][]string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Findings: %s\n\n", script)
	fmt.Fprintf(&b, "- Session: `%s`\n- Seed: %d\n- Tier: %s\n- Result: **%s** (exit %d)\n\n", dir, f.Seed, f.Tier, Overall(code), code)
	if len(outcomes) == 0 {
		b.WriteString("No scenario ran.\n")
	}
	b.WriteString("| Scenario | Ops | ok | fail | info | Checker | Verdict | Summary |\n|---|---|---|---|---|---|---|---|\n")
	for _, o := range outcomes {
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %s | %s | %s |\n", o.Scenario, o.Invoked, o.OK, o.Fail, o.Info, o.Result,
			orDash(string(o.Decision.Verdict)), report.Cell(o.Summary))
	}
	for _, o := range outcomes {
		fmt.Fprintf(&b, "\n## %s: %s\n\n%s\n\n", o.Scenario, o.Result, o.Summary)
		if o.Check.Explanation != "" && o.Result != "valid" {
			fmt.Fprintf(&b, "```\n%s\n```\n\n", strings.TrimRight(o.Check.Explanation, "\n"))
		}
		if o.Context != "" {
			fmt.Fprintf(&b, "- When and where: %s\n", o.Context)
		}
		for _, p := range o.Problems {
			fmt.Fprintf(&b, "- problem: %s\n", p)
		}
		if len(o.Decision.Blockers) > 0 {
			fmt.Fprintf(&b, "- %s, not a PASS; what to change:\n", o.Decision.Verdict)
			report.WriteBlockers(&b, o.Decision, "  ")
		}
		for _, l := range o.Landing {
			mark := "landed"
			if !l.Pass {
				mark = "NOT LANDED"
			}
			fmt.Fprintf(&b, "- landing evidence %s: %s (%s)\n", l.Decl, mark, l.Evidence)
		}
		fmt.Fprintf(&b, "- Evidence: `artifacts/%s/` (history.jsonl, checker.txt, schedule.jsonl)\n", o.Scenario)
		if o.History != "" {
			timeline := "../artifacts/" + o.Scenario + "/timeline.html"
			if ops := violation(o.Check).Ops; o.Result == string(check.Invalid) && len(ops) > 0 {
				timeline += "#" + report.TimelineAnchor(ops[0])
			}
			fmt.Fprintf(&b, "- Pictures: [plot](../artifacts/%s/plot.svg), [timeline](%s)\n", o.Scenario, timeline)
		}
		if nodes := logs[o.Scenario]; len(nodes) > 0 {
			fmt.Fprintf(&b, "- Node logs: `logs/%s/` (%s)\n", o.Scenario, strings.Join(nodes, ", "))
		} else {
			b.WriteString("- Node logs: none saved (in-process client, or a db without `logs`)\n")
		}
		fmt.Fprintf(&b, "- Reproduce from the seed: `%s`\n", o.Replay)
		fmt.Fprintf(&b, "- Replay the recorded schedule: `%s --scenario %s`\n", ReplayCommand(dir, f.Nodes), o.Scenario)
	}
	return b.String()
}

// orDash is s, or "—" when there is nothing to show.
func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// copyNodeLogs copies src/<node>/... to dst/<node>/... and returns the
// nodes copied; a missing src (no logs were saved) copies nothing.
func copyNodeLogs(src, dst string) ([]string, error) {
	entries, err := os.ReadDir(src)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var nodes []string
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		nodes = append(nodes, e.Name())
		if err := os.MkdirAll(filepath.Join(dst, e.Name()), 0o755); err != nil {
			return nil, err
		}
		if _, err := copyFiles(filepath.Join(src, e.Name()), filepath.Join(dst, e.Name()), nil); err != nil {
			return nil, err
		}
	}
	return nodes, nil
}
