package main

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"olympos.io/encoding/edn"

	"github.com/faultline/faultline/history"
	"github.com/faultline/faultline/internal/golden"
)

// exportHistory is a small history as a run records it, with nemesis ops,
// nested values, quotes and newlines, and keys that cannot be EDN keywords.
var exportHistory = filepath.Join("testdata", "export", "history.jsonl")

// exportSession builds a session directory whose artifacts/ holds a copy of
// exportHistory under each of ids.
func exportSession(t *testing.T, ids ...string) string {
	t.Helper()
	data, err := os.ReadFile(exportHistory)
	if err != nil {
		t.Fatal(err)
	}
	session := t.TempDir()
	for _, id := range ids {
		dir := filepath.Join(session, "artifacts", id)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "history.jsonl"), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return session
}

// TestExportCommand exports the same history named every way the command
// accepts and checks the output against the golden EDN.
func TestExportCommand(t *testing.T) {
	one := exportSession(t, "S1")
	two := exportSession(t, "S1", "group_S2")
	data, err := os.ReadFile(exportHistory)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		args  []string
		stdin string
	}{
		{"history file", []string{exportHistory}, ""},
		{"history file, explicit formats", []string{exportHistory, "--format", "edn", "--from", "jsonl"}, ""},
		{"artifact directory", []string{filepath.Join(one, "artifacts", "S1")}, ""},
		{"session with one scenario", []string{one}, ""},
		{"session and --scenario", []string{two, "--scenario", "S1"}, ""},
		{"session and a scenario ID with a slash", []string{two, "--scenario", "group/S2"}, ""},
		{"stdin", []string{"-"}, string(data)},
	}
	var first string
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCLIInput(t, strings.NewReader(tt.stdin), append([]string{"export"}, tt.args...)...)
			if code != exitOK {
				t.Fatalf("exit %d, want 0\nstderr: %s", code, stderr)
			}
			if first == "" {
				first = stdout
				golden.Check(t, filepath.Join("testdata", "export", "history.golden.edn"), []byte(stdout))
			} else if stdout != first {
				t.Errorf("output differs from the history file's export:\n%s", stdout)
			}
		})
	}
}

// TestExportToFile checks -o: the file holds the export, stdout is empty,
// and the export reads back as the recorded ops in Jepsen's conventions.
func TestExportToFile(t *testing.T) {
	out := filepath.Join(t.TempDir(), "history.edn")
	code, stdout, stderr := runCLIInput(t, nil, "export", exportHistory, "--out", out)
	if code != exitOK || stdout != "" || !strings.Contains(stderr, "exported 12 ops") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	orig, err := history.ReadFile(exportHistory, history.JSONL)
	if err != nil {
		t.Fatal(err)
	}
	back, err := history.ReadFile(out, history.Auto)
	if err != nil {
		t.Fatal(err)
	}
	if back.Format != history.EDN {
		t.Errorf("output read as %s, want edn", back.Format)
	}
	want := history.JepsenOps(orig.Ops)
	if len(back.Ops) != len(want) {
		t.Fatalf("read back %d ops, want %d", len(back.Ops), len(want))
	}
	for i := range want {
		if !reflect.DeepEqual(back.Ops[i], want[i]) {
			t.Errorf("op %d:\n got %#v\nwant %#v", i, back.Ops[i], want[i])
		}
	}
	if fi, err := os.Stat(out); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("output mode: %v %v", fi, err)
	}
}

// TestExportReadByGoEDN decodes the command's output with an independent EDN
// reader and checks what Jepsen tools depend on: nemesis ops as Jepsen writes
// them, keywords as keywords, and keys that cannot be keywords as strings.
func TestExportReadByGoEDN(t *testing.T) {
	code, stdout, stderr := runCLIInput(t, nil, "export", exportHistory)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	type kw = edn.Keyword
	type m = map[any]any
	var ops []m
	dec := edn.NewDecoder(strings.NewReader(stdout))
	for {
		var op m
		err := dec.Decode(&op)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("go-edn rejects op %d: %v", len(ops), err)
		}
		ops = append(ops, op)
	}
	if len(ops) != 12 {
		t.Fatalf("decoded %d ops, want 12", len(ops))
	}
	partition := m{kw("n1"): []any{"n2", "n3"}, kw("n2"): []any{"n1"}, kw("n3"): []any{"n1"}}
	checks := []struct {
		op   int
		key  any
		want any
	}{
		{0, kw("type"), kw("invoke")},
		{0, kw("process"), int64(0)},
		{0, kw("f"), kw("write")},
		{0, kw("value"), "say \"hi\"\nthen leave"},
		{0, kw("node"), "n1"},
		{2, kw("type"), kw("info")}, // the nemesis invocation, as Jepsen writes it
		{2, kw("process"), kw("nemesis")},
		{2, kw("f"), kw("start-partition")},
		{2, kw("value"), partition},
		{3, kw("type"), kw("info")},
		{3, kw("evidence"), m{"dropped packets": int64(12), "1st drop": int64(2050000), "rules/n1/out": []any{"DROP"}}},
		{4, kw("value"), []any{[]any{"append", int64(5), int64(1)}, []any{"r", int64(5), nil}}},
		{4, kw("fault_epoch"), int64(1)},
		{7, kw("type"), kw("info")},
		{7, kw("error"), "timed out after 5s"},
		{8, kw("type"), kw("info")},
		{8, kw("f"), kw("stop-partition")},
		{8, kw("value"), nil},
		{10, kw("f"), "read all"},
		{11, kw("value"), m{kw("k1"): int64(2), "k 2": nil, "2": []any{1.5, -0.25, true}}},
	}
	for _, c := range checks {
		got, ok := ops[c.op][c.key]
		if !ok || !reflect.DeepEqual(got, c.want) {
			t.Errorf("op %d %v = %#v (present %v), want %#v", c.op, c.key, got, ok, c.want)
		}
	}
	for i, op := range ops {
		if v, ok := op[kw("index")]; !ok || v != int64(i) {
			t.Errorf("op %d :index = %#v", i, v)
		}
	}
}

func TestExportRejects(t *testing.T) {
	empty := t.TempDir()
	two := exportSession(t, "S1", "S2")
	missingDir := filepath.Join(t.TempDir(), "no", "such", "dir", "out.edn")
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"missing file", []string{"export", filepath.Join(empty, "nope.jsonl")}, exitRejected, "nope.jsonl: no such file or directory"},
		{"malformed JSONL names file:line", []string{"export", filepath.Join("testdata", "export", "malformed.jsonl")}, exitRejected,
			filepath.Join("testdata", "export", "malformed.jsonl") + ":2:"},
		{"malformed JSONL on stdin", []string{"export", "-", "--from", "jsonl"}, exitRejected, "stdin:1:"},
		{"directory without a history", []string{"export", empty}, exitRejected, "neither a history.jsonl"},
		{"unknown scenario", []string{"export", two, "--scenario", "S9"}, exitRejected, "no artifacts/S9/history.jsonl (have: S1, S2)"},
		{"several scenarios", []string{"export", two}, exitUsage, "name one with --scenario"},
		{"--scenario on a file", []string{"export", exportHistory, "--scenario", "S1"}, exitUsage, "needs a session directory"},
		{"unknown output format", []string{"export", exportHistory, "-o", "json"}, exitUsage, "the only export format is edn"},
		{"unknown input format", []string{"export", exportHistory, "--from", "csv"}, exitUsage, "unknown history format"},
		{"no arguments", []string{"export"}, exitUsage, "want exactly one"},
		{"output directory missing", []string{"export", exportHistory, "--out", missingDir}, exitRejected, "create output"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCLIInput(t, strings.NewReader("{\"process\":0,\"type\":\n"), tt.args...)
			if code != tt.code || !strings.Contains(stderr, tt.stderr) {
				t.Fatalf("exit %d, want %d; stderr %q lacks %q", code, tt.code, stderr, tt.stderr)
			}
			if stdout != "" {
				t.Errorf("a rejected export wrote to stdout: %q", stdout)
			}
		})
	}
	if _, err := os.Stat(filepath.Dir(missingDir)); err == nil {
		t.Error("a failed export created the output directory")
	}
}

// TestExportTornLastLine: a run killed mid-write leaves a torn last line;
// export warns, leaves it out and exports the rest.
func TestExportTornLastLine(t *testing.T) {
	torn := filepath.Join(t.TempDir(), "history.jsonl")
	data := `{"index":0,"time":0,"process":0,"type":"invoke","f":"read","value":null}` + "\n" + `{"index":1,"time":5,"process":0,"ty`
	if err := os.WriteFile(torn, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLIInput(t, nil, "export", torn)
	want := "{:index 0, :time 0, :type :invoke, :process 0, :f :read, :value nil}\n"
	if code != exitOK || stdout != want || !strings.Contains(stderr, "the last line was incomplete") {
		t.Fatalf("exit %d\nstdout %q, want %q\nstderr %q", code, stdout, want, stderr)
	}
}

// TestExportFailedWriteLeavesNoFile: when the export cannot be put in place
// (here -o names a directory), nothing is left behind, neither a temporary
// file nor a partial output.
func TestExportFailedWriteLeavesNoFile(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "history.edn")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLIInput(t, nil, "export", exportHistory, "--out", out)
	if code != exitRejected || !strings.Contains(stderr, "output") {
		t.Fatalf("exit %d, want %d; stderr %q", code, exitRejected, stderr)
	}
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) != 1 || !entries[0].IsDir() {
		t.Errorf("directory holds %v (%v), want only the history.edn directory", entries, err)
	}
}
