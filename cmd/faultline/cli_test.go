package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/faultline/faultline/internal/clitest"
	"github.com/faultline/faultline/internal/testfile"
	"github.com/faultline/faultline/interp"
	"github.com/faultline/faultline/session"
)

// shellWords splits a command line printed with shellQuote.
func shellWords(t *testing.T, line string) []string {
	t.Helper()
	var words []string
	var cur strings.Builder
	inWord, quoted := false, false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quoted && c == '\'':
			quoted = false
		case quoted:
			cur.WriteByte(c)
		case c == '\'':
			quoted, inWord = true, true
		case c == ' ':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if quoted {
		t.Fatalf("unbalanced quote in %q", line)
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}

// scriptResults is what these tests read of a script session's results.json.
type scriptResults struct {
	SessionDir string `json:"session_dir"`
	Scenarios  []struct {
		Scenario string `json:"scenario"`
		Result   string `json:"result"`
		History  string `json:"history"`
		Replay   string `json:"replay"`
	} `json:"scenarios"`
}

// TestPrintedCommandsRun runs a script that needs --lib, then runs the
// reproduce command it printed (the same history must come back, byte for
// byte) and the replay command (the anomaly must reproduce), and checks the
// sessions hold what the README says: findings/, logs/, metrics/, and the
// replay beside the original.
func TestPrintedCommandsRun(t *testing.T) {
	root := t.TempDir()
	lib := "h6=" + filepath.Join("testdata", "cli", "lib")
	script := filepath.Join("testdata", "cli", "stale.star")
	code, stdout, stderr := runCLI(t, "run", script, "--seed", "42", "--lib", lib, "--out", root, "-o", "json")
	if code != exitFail {
		t.Fatalf("run: exit %d, want %d (the stale register must be caught)\n%s\n%s", code, exitFail, stdout, stderr)
	}
	var first scriptResults
	if err := json.Unmarshal([]byte(stdout), &first); err != nil || len(first.Scenarios) != 1 {
		t.Fatalf("-o json: %v\n%s", err, stdout)
	}
	sc := first.Scenarios[0]
	if !strings.Contains(sc.Replay, " --lib "+lib) || strings.Contains(sc.Replay, "--realtime") {
		t.Errorf("reproduce command %q: want --lib %s and no --realtime (simulated time)", sc.Replay, lib)
	}

	// The session holds a findings report, the counts and a logs directory.
	testfile.MustContain(t, filepath.Join(first.SessionDir, "findings", "report.md"), "# Findings: "+script, "| stale |", "invalid",
		"Reproduce from the seed: `"+sc.Replay+"`", "faultline replay "+first.SessionDir+" --scenario stale")
	var metrics session.ScriptMetrics
	testfile.ReadJSON(t, filepath.Join(first.SessionDir, "metrics", "summary.json"), &metrics)
	if len(metrics.Scenarios) != 1 || metrics.Scenarios[0].Invoked == 0 || metrics.Scenarios[0].Result != "invalid" || !metrics.Scenarios[0].SimulatedTime {
		t.Errorf("metrics/summary.json = %+v", metrics)
	}
	if st, err := os.Stat(filepath.Join(first.SessionDir, "logs")); err != nil || !st.IsDir() {
		t.Errorf("logs/: %v", err)
	}

	// The printed reproduce command, run as printed (plus where to write).
	words := shellWords(t, sc.Replay)
	if words[0] != "faultline" {
		t.Fatalf("reproduce command %q does not start with faultline", sc.Replay)
	}
	again := t.TempDir()
	code, stdout, stderr = runCLI(t, append(words[1:], "--out", again, "-o", "json")...)
	if code != exitFail {
		t.Fatalf("%s: exit %d, want %d\n%s\n%s", sc.Replay, code, exitFail, stdout, stderr)
	}
	var second scriptResults
	if err := json.Unmarshal([]byte(stdout), &second); err != nil || len(second.Scenarios) != 1 {
		t.Fatalf("-o json: %v\n%s", err, stdout)
	}
	h1, err := os.ReadFile(sc.History)
	if err != nil {
		t.Fatal(err)
	}
	h2, err := os.ReadFile(second.Scenarios[0].History)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(h1, h2) {
		t.Errorf("the reproduce command gave another history (%d bytes, was %d)", len(h2), len(h1))
	}

	// The replay command, without --out: the replay lands beside the original.
	replay := shellWords(t, session.ReplayCommand(first.SessionDir, session.Nodes{}))
	code, stdout, stderr = runCLI(t, replay[1:]...)
	if code != exitFail || !strings.Contains(stdout, "stale: reproduced: yes") {
		t.Fatalf("replay: exit %d, want %d and the anomaly reproduced\n%s\n%s", code, exitFail, stdout, stderr)
	}
	// Each run is named by its verdict, not by its checker's name alone
	// ("original: linearizable / replay: linearizable" for two invalid runs).
	for _, which := range []string{"original", "replay  "} {
		if !regexp.MustCompile(`(?m)^  ` + which + ` \S+: invalid: `).MatchString(stdout) {
			t.Errorf("replay output does not give the %s run's verdict:\n%s", strings.TrimSpace(which), stdout)
		}
	}
	replays, _ := filepath.Glob(filepath.Join(filepath.Dir(first.SessionDir), "*-replay"))
	if len(replays) != 1 {
		t.Fatalf("want one replay session beside %s, got %v", first.SessionDir, replays)
	}
	testfile.MustContain(t, filepath.Join(replays[0], "findings", "report.md"), "# Replay of "+first.SessionDir,
		"## stale: reproduced: yes", "Original: `"+filepath.Join(first.SessionDir, "artifacts"))
}

// TestLintAndRunAgreeOnSuite: a plan without a suite is rejected by lint
// (exit 3) for the same reason run blocks it; the example plan names its
// suite, so both accept it without --suite.
func TestLintAndRunAgreeOnSuite(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "examples", "plans", "demo.md"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	orphan := filepath.Join(dir, "demo.md")
	if err := os.WriteFile(orphan, bytes.Replace(data, []byte("**Suite:** ../demo/faultline.star\n"), nil, 1), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, lintErr := runCLI(t, "lint", orphan)
	if code != exitRejected || !strings.Contains(lintErr, "run would be BLOCKED: no suite file") {
		t.Fatalf("lint of a plan with no suite: exit %d, want %d\n%s", code, exitRejected, lintErr)
	}
	code, _, runErr := runCLI(t, "run", orphan, "--local", "--yes", "--out", t.TempDir())
	if code != exitRejected || !strings.Contains(runErr, "BLOCKED: no suite file") {
		t.Fatalf("run of a plan with no suite: exit %d, want %d\n%s", code, exitRejected, runErr)
	}
	// One reason, in both words.
	_, why, _ := strings.Cut(lintErr, "no suite file")
	if !strings.Contains(runErr, why[:40]) {
		t.Errorf("lint and run give different reasons:\nlint: %s\nrun:  %s", lintErr, runErr)
	}

	code, stdout, stderr := runCLI(t, "lint", filepath.Join("..", "..", "examples", "plans", "demo.md"))
	if code != exitOK || !strings.Contains(stdout, filepath.Join("examples", "demo", "faultline.star")+"; ok to run") {
		t.Fatalf("lint examples/plans/demo.md: exit %d\n%s\n%s", code, stdout, stderr)
	}
}

func TestVersionFlag(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"version"}} {
		code, stdout, _ := runCLI(t, args...)
		if code != exitOK || stdout != "faultline "+buildVersion()+"\n" {
			t.Errorf("%v: exit %d, %q; want faultline %s", args, code, stdout, buildVersion())
		}
	}
}

// TestUnknownModelListsAll: the error names every model check accepts.
func TestUnknownModelListsAll(t *testing.T) {
	code, _, stderr := runCLI(t, "check", "--model", "nosuch", "h.edn")
	if code != exitUsage {
		t.Fatalf("exit %d, want %d\n%s", code, exitUsage, stderr)
	}
	models := allModels()
	if len(models) < 13 {
		t.Errorf("allModels() = %v: fewer than the 13 models check accepts", models)
	}
	for _, m := range models {
		if !strings.Contains(stderr, m) {
			t.Errorf("the error does not list %s:\n%s", m, stderr)
		}
	}
	// Every listed model is accepted: the list is the registry, not a copy.
	for _, m := range models {
		if _, err := session.NewChecker(session.CheckerFlags{Model: m, Init: "nil"}, nil); err != nil {
			t.Errorf("--model %s is listed but rejected: %v", m, err)
		}
	}
}

// TestFlagValueCompletion: --model and --tier complete from the registries.
func TestFlagValueCompletion(t *testing.T) {
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"check", "--model", ""}, allModels()},
		{[]string{"run", "x.star", "--tier", ""}, interp.Tiers},
		{[]string{"lint", "x.star", "--tier", ""}, interp.Tiers},
		{[]string{"compile", "x.md", "--tier", ""}, interp.Tiers},
		{[]string{"check", "-o", ""}, outputFormats},
	}
	for _, tt := range tests {
		_, stdout, _ := runCLI(t, append([]string{"__complete"}, tt.args...)...)
		lines := strings.Split(strings.TrimSpace(stdout), "\n")
		got := lines[:len(lines)-1] // the last line is the shell directive
		if !slices.Equal(got, tt.want) {
			t.Errorf("%v: completions %v, want %v", tt.args, got, tt.want)
		}
	}
}

// TestOutputFlag: -o/--output picks stdout's format; --json still works;
// compile's -o still means --out.
func TestOutputFlag(t *testing.T) {
	hist := filepath.Join("testdata", "write-skew.edn")
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantJSON bool
	}{
		{"-o json", []string{"-o", "json"}, exitFail, true},
		{"--output json", []string{"--output", "json"}, exitFail, true},
		{"--json, the old spelling", []string{"--json"}, exitFail, true},
		{"text", []string{"-o", "text"}, exitFail, false},
		{"an unknown format", []string{"-o", "yaml"}, exitUsage, false},
		{"contradiction", []string{"--json", "-o", "text"}, exitUsage, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"check", "--model", "list-append", hist}, tt.args...)
			code, stdout, stderr := runCLI(t, args...)
			if code != tt.wantCode {
				t.Fatalf("exit %d, want %d\n%s\n%s", code, tt.wantCode, stdout, stderr)
			}
			if got := json.Valid([]byte(stdout)) && stdout != ""; got != tt.wantJSON {
				t.Errorf("stdout is JSON: %v, want %v\n%s", got, tt.wantJSON, stdout)
			}
		})
	}
	out := t.TempDir()
	if code, stdout, stderr := runCLI(t, "compile", filepath.Join("..", "..", "examples", "plans", "demo.md"), "-o", out); code != exitOK {
		t.Fatalf("compile -o: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if m, _ := filepath.Glob(filepath.Join(out, "*.star")); len(m) == 0 {
		t.Error("compile -o DIR wrote nothing into DIR")
	}
}

// TestHelpTexts: each command shows examples and lists its exit codes in
// the same words.
func TestHelpTexts(t *testing.T) {
	root := newRootCmd()
	for _, name := range []string{"run", "check", "lint", "compile", "probe", "replay", "reduce", "demo", "export"} {
		c, _, err := root.Find([]string{name})
		if err != nil || c.Name() != name {
			t.Fatalf("no %s command: %v", name, err)
		}
		if c.Example == "" {
			t.Errorf("%s has no examples", name)
		}
		if !strings.Contains(c.Long, "Exit codes: 0 ") || !strings.Contains(c.Long, "64 usage error") {
			t.Errorf("%s's help does not list its exit codes as 'Exit codes: 0 ... 64 usage error':\n%s", name, c.Long)
		}
	}
	run, _, _ := root.Find([]string{"run"})
	if !strings.HasPrefix(run.Use, "run PLAN.md|SCENARIO.star") {
		t.Errorf("run's usage %q does not name plans", run.Use)
	}
}

// TestPlanReproducersOfALocalRun: a plan run with --local and --lib prints
// reproduce commands that carry both (they used to drop --lib, and --local
// came without node names when --nodes named none) and a replay command
// that needs neither (the schedule says the nodes were local, and the
// session keeps the library files the run loaded).
func TestPlanReproducersOfALocalRun(t *testing.T) {
	out := t.TempDir()
	plan := filepath.Join("..", "..", "plans", "testdata", "tenant-isolation.md")
	suite := filepath.Join("..", "..", "examples", "inprocess", "faultline.star")
	lib := "h6=" + filepath.Join("testdata", "cli", "lib")
	code, stdout, stderr := runCLI(t, "run", plan, "--seed", "42", "--out", out, "--suite", suite, "--scenario", "S1",
		"--reruns", "1", "--local", "--lib", lib, "--yes")
	if code != exitFail {
		t.Fatalf("exit %d, want %d (the tenant-isolation arm fails)\n%s\n%s", code, exitFail, stdout, stderr)
	}
	dir := clitest.OnlySession(t, filepath.Join(out, "tenant-isolation"))
	replay := "faultline replay " + dir
	if !strings.Contains(stdout, "replay: "+replay+"\n") {
		t.Errorf("stdout lacks %q:\n%s", "replay: "+replay, stdout)
	}
	absSuite, err := filepath.Abs(suite) // the run records where the suite really is
	if err != nil {
		t.Fatal(err)
	}
	testfile.MustContain(t, filepath.Join(dir, "findings", "report.md"), replay+" --scenario S1_api",
		"faultline run "+plan+" --scenario S1/api --seed 42 --tier smoke --suite "+absSuite+" --lib "+lib+" --local --nodes n1,n2,n3")

	// The reproducer, run as printed, fails the same way.
	text, err := os.ReadFile(filepath.Join(dir, "findings", "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(text), "from the seed alone: ")
	if !ok {
		t.Fatal("the report has no reproducer from the seed")
	}
	line, _, _ := strings.Cut(rest, "\n")
	words := shellWords(t, strings.TrimSpace(line))
	code, stdout, stderr = runCLI(t, append(words[1:], "--out", t.TempDir(), "--yes")...)
	if code != exitFail || !clitest.HasRow(stdout, "S1/api", "FAIL-reproducible") {
		t.Fatalf("%s: exit %d, want %d with S1/api FAIL-reproducible\n%s\n%s", line, code, exitFail, stdout, stderr)
	}
}

// TestRealtimeReproduceOnce: a --realtime run's reproduce command says
// --realtime once (it used to say it twice: once for the flag, once for
// the real-time run).
func TestRealtimeReproduceOnce(t *testing.T) {
	lib := "h6=" + filepath.Join("testdata", "cli", "lib")
	_, stdout, stderr := runCLI(t, "run", filepath.Join("testdata", "cli", "stale.star"), "--realtime", "--seed", "1",
		"--lib", lib, "--out", t.TempDir(), "-o", "json")
	var res scriptResults
	if err := json.Unmarshal([]byte(stdout), &res); err != nil || len(res.Scenarios) != 1 {
		t.Fatalf("-o json: %v\n%s\n%s", err, stdout, stderr)
	}
	if got := res.Scenarios[0].Replay; strings.Count(got, "--realtime") != 1 || !strings.Contains(got, "--lib "+lib) {
		t.Errorf("reproduce command %q: want --realtime once and --lib %s", got, lib)
	}
}
