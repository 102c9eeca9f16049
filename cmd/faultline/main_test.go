package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faultline/faultline/internal/testcorpus"
)

// runCLI runs the CLI in-process and returns its exit code, stdout and stderr.
func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	return runCLIInput(t, nil, args...)
}

// runCLIInput runs the CLI in-process with stdin (nil: none) and returns
// its exit code, stdout and stderr.
func runCLIInput(t *testing.T, stdin io.Reader, args ...string) (int, string, string) {
	t.Helper()
	root := newRootCmd()
	var stdout, stderr bytes.Buffer
	root.SetIn(stdin)
	root.SetOut(&stdout)
	root.SetErr(&stderr)
	root.SetArgs(args)
	code := exitOK
	if err := root.Execute(); err != nil {
		code = exitCodeOf(err, &stderr)
	}
	return code, stdout.String(), stderr.String()
}

// exitCodeOf mirrors execute's mapping of errors to exit codes.
func exitCodeOf(err error, stderr *bytes.Buffer) int {
	if ee, ok := err.(*exitError); ok {
		if ee.err != nil {
			stderr.WriteString(ee.err.Error())
		}
		return ee.code
	}
	stderr.WriteString(err.Error())
	return exitUsage
}

func TestCheckCorpusExitCodes(t *testing.T) {
	dir := testcorpus.Dir(t, "porcupine-etcd")
	cases := []struct {
		file string
		want int
	}{
		{"etcd_002.log", exitOK},
		{"etcd_000.log", exitFail},
	}
	for _, c := range cases {
		code, out, errOut := runCLI(t, "check", "--model", "cas-register", filepath.Join(dir, c.file))
		if code != c.want {
			t.Errorf("%s: exit %d, want %d\nstdout: %s\nstderr: %s", c.file, code, c.want, out, errOut)
		}
	}
}

func TestCheckSeveralFilesJSON(t *testing.T) {
	kv := testcorpus.Dir(t, "porcupine-kv")
	code, out, _ := runCLI(t, "check", "--model", "kv", "--json",
		filepath.Join(kv, "c01-ok.txt"), filepath.Join(kv, "c10-ok.txt"), filepath.Join(kv, "c10-bad.txt"))
	if code != exitFail {
		t.Fatalf("exit %d, want %d", code, exitFail)
	}
	var doc struct {
		Valid string `json:"valid"`
		Files []struct {
			File  string `json:"file"`
			Valid string `json:"valid"`
		} `json:"files"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("--json output is not one JSON document: %v\n%s", err, out)
	}
	if doc.Valid != "invalid" || len(doc.Files) != 3 || doc.Files[0].Valid != "valid" || doc.Files[2].Valid != "invalid" {
		t.Fatalf("doc = %+v", doc)
	}
}

func TestCheckTablePrintedForSeveralFiles(t *testing.T) {
	kv := testcorpus.Dir(t, "porcupine-kv")
	code, out, _ := runCLI(t, "check", "--model", "kv", filepath.Join(kv, "c01-ok.txt"), filepath.Join(kv, "c01-bad.txt"))
	if code != exitFail {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"c01-ok.txt: VALID", "c01-bad.txt: INVALID", "1 valid, 1 invalid"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestCheckRejectsMalformedHistory(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.edn")
	if err := os.WriteFile(bad, []byte("{:process 0, :type :invoke, :f :read, :value nil}\n{:process 0 :type\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ := runCLI(t, "check", "--model", "register", bad)
	if code != exitRejected {
		t.Fatalf("exit %d, want %d; out=%s", code, exitRejected, out)
	}
	if !strings.Contains(out, "opened at 2:1") {
		t.Errorf("message does not name file:line: %s", out)
	}
}

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"check", "x.edn"},                               // no --model
		{"check", "--model", "nope", "x.edn"},            // unknown model
		{"check", "--model", "register"},                 // no file
		{"check", "--model", "register", "--bogus", "x"}, // unknown flag
		{"run"},                                 // no script
		{"run", "x.star", "--tier", "platinum"}, // bad tier
	} {
		if code, _, errOut := runCLI(t, args...); code != exitUsage {
			t.Errorf("%v: exit %d, want %d (%s)", args, code, exitUsage, errOut)
		}
	}
}

func TestRunExamples(t *testing.T) {
	cases := []struct {
		script string
		want   int
	}{
		{"register.star", exitOK},
		{"stale-register.star", exitFail},
	}
	for _, c := range cases {
		t.Run(c.script, func(t *testing.T) {
			out := t.TempDir()
			script := filepath.Join("..", "..", "examples", "scenarios", c.script)
			code, stdout, stderr := runCLI(t, "run", script, "--seed", "42", "--out", out, "--json")
			if code != c.want {
				t.Fatalf("exit %d, want %d\n%s\n%s", code, c.want, stdout, stderr)
			}
			var doc struct {
				SessionDir string `json:"session_dir"`
				Scenarios  []struct {
					Result  string `json:"result"`
					OK      int64  `json:"ok"`
					History string `json:"history"`
				} `json:"scenarios"`
			}
			if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
				t.Fatalf("--json: %v\n%s", err, stdout)
			}
			if len(doc.Scenarios) != 1 || doc.Scenarios[0].OK == 0 {
				t.Fatalf("doc = %+v", doc)
			}
			for _, f := range []string{"session-log.md", "results.json", "logs", "metrics", "findings", doc.Scenarios[0].History} {
				p := f
				if !filepath.IsAbs(p) {
					p = filepath.Join(doc.SessionDir, f)
				}
				if _, err := os.Stat(p); err != nil {
					t.Errorf("session lacks %s: %v", f, err)
				}
			}
		})
	}
}

func TestRunScriptErrorExit3(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "broken.star")
	if err := os.WriteFile(script, []byte("scenario(name = \"x\",\n  client = nope)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, "run", script, "--out", t.TempDir())
	if code != exitRejected || !strings.Contains(stderr, "broken.star:2:") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
}

func TestVersion(t *testing.T) {
	code, out, _ := runCLI(t, "version")
	if code != exitOK || !strings.HasPrefix(out, "faultline ") {
		t.Fatalf("exit %d out %q", code, out)
	}
}

func TestCheckTransactional(t *testing.T) {
	hist := filepath.Join("testdata", "write-skew.edn")
	cases := []struct {
		args []string
		want int
		text string
	}{
		{[]string{"--consistency-model", "serializable"}, exitFail, "G2-item"},
		{[]string{"--consistency-model", "snapshot-isolation"}, exitOK, "VALID"},
		{nil, exitFail, "G2-item"}, // strict-serializable by default
		{[]string{"--consistency-model", "bogus"}, exitUsage, ""},
		{[]string{"--init", "0"}, exitUsage, ""},
	}
	for _, c := range cases {
		args := append([]string{"check", "--model", "list-append"}, c.args...)
		code, out, errOut := runCLI(t, append(args, hist)...)
		if code != c.want || !strings.Contains(out, c.text) {
			t.Errorf("%v: exit %d (want %d), output lacks %q:\n%s%s", c.args, code, c.want, c.text, out, errOut)
		}
	}
	if code, _, _ := runCLI(t, "check", "--model", "register", "--consistency-model", "serializable", hist); code != exitUsage {
		t.Errorf("--consistency-model with a linearizability model: exit %d, want %d", code, exitUsage)
	}
}

func TestCheckOracleModels(t *testing.T) {
	// Each history is EDN, one op map per line; every model gets a passing and a failing one.
	ops := func(lines ...string) string { return strings.Join(lines, "\n") + "\n" }
	cases := []struct {
		model string
		args  []string
		hist  string
		want  int
		text  string
	}{
		{"set", nil, ops(`{:process 0 :type :invoke :f :add :value 1}`, `{:process 0 :type :ok :f :add :value 1}`,
			`{:process 0 :type :invoke :f :read :value nil}`, `{:process 0 :type :ok :f :read :value #{1}}`), exitOK, "1 ok, 0 lost"},
		{"set", nil, ops(`{:process 0 :type :invoke :f :add :value 1}`, `{:process 0 :type :ok :f :add :value 1}`,
			`{:process 0 :type :invoke :f :read :value nil}`, `{:process 0 :type :ok :f :read :value #{}}`), exitFail, "Lost"},
		{"set", nil, ops(`{:process 0 :type :invoke :f :add :value 1}`, `{:process 0 :type :ok :f :add :value 1}`), exitUnknown, "never read"},
		{"set-full", nil, ops(`{:process 0 :type :invoke :f :add :value 1}`, `{:process 0 :type :ok :f :add :value 1}`,
			`{:process 0 :type :invoke :f :read :value nil}`, `{:process 0 :type :ok :f :read :value [1]}`), exitOK, "1 stable"},
		{"counter", nil, ops(`{:process 0 :type :invoke :f :add :value 2}`, `{:process 0 :type :ok :f :add :value 2}`,
			`{:process 0 :type :invoke :f :read :value nil}`, `{:process 0 :type :ok :f :read :value 3}`), exitFail, "outside [2, 2]"},
		{"bank", []string{"--bank-total", "20"}, ops(`{:process 0 :type :invoke :f :read :value nil}`,
			`{:process 0 :type :ok :f :read :value {0 10 1 10}}`), exitOK, "sum to 20"},
		{"bank", []string{"--bank-total", "30"}, ops(`{:process 0 :type :invoke :f :read :value nil}`,
			`{:process 0 :type :ok :f :read :value {0 10 1 10}}`), exitFail, "not 30"},
		{"unique-ids", nil, ops(`{:process 0 :type :invoke :f :generate :value nil}`, `{:process 0 :type :ok :f :generate :value 1}`,
			`{:process 1 :type :invoke :f :generate :value nil}`, `{:process 1 :type :ok :f :generate :value 1}`), exitFail, "1 duplicated"},
		{"queue", nil, ops(`{:process 0 :type :invoke :f :enqueue :value 1}`, `{:process 0 :type :ok :f :enqueue :value 1}`,
			`{:process 0 :type :invoke :f :dequeue :value nil}`, `{:process 0 :type :ok :f :dequeue :value 1}`), exitOK, "every one from the queue"},
		{"total-queue", nil, ops(`{:process 0 :type :invoke :f :enqueue :value 1}`, `{:process 0 :type :ok :f :enqueue :value 1}`,
			`{:process 0 :type :invoke :f :drain :value nil}`, `{:process 0 :type :ok :f :drain :value []}`), exitFail, "1 lost"},
		{"set", []string{"--bank-total", "5"}, ops(`{:process 0 :type :invoke :f :add :value 1}`), exitUsage, ""},
		{"queue", []string{"--init", "0"}, ops(`{:process 0 :type :invoke :f :add :value 1}`), exitUsage, ""},
	}
	dir := t.TempDir()
	for i, c := range cases {
		file := filepath.Join(dir, fmt.Sprintf("%s-%d.edn", c.model, i))
		if err := os.WriteFile(file, []byte(c.hist), 0o644); err != nil {
			t.Fatal(err)
		}
		args := append(append([]string{"check", "--model", c.model}, c.args...), file)
		code, out, errOut := runCLI(t, args...)
		if code != c.want || !strings.Contains(out, c.text) {
			t.Errorf("%s %v: exit %d (want %d), output lacks %q:\n%s%s", c.model, c.args, code, c.want, c.text, out, errOut)
		}
	}
}
