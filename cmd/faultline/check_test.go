package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// A history the checker cannot use is rejected (exit 3) at the line of the
// op that makes it so, never answered "unknown" (exit 2).
func TestCheckInputErrorsNameTheLine(t *testing.T) {
	cases := []struct {
		name, model, text, want string
	}{
		{"duplicate append", "list-append", `{:process 0 :type :invoke :f :txn :value [[:append :x 1]]}
{:process 0 :type :ok :f :txn :value [[:append :x 1]]}
{:process 1 :type :invoke :f :txn :value [[:append :x 1]]}
{:process 1 :type :ok :f :txn :value [[:append :x 1]]}
`, "h.edn:4: op 3: micro-op 0 [:append :x 1]: value 1 of key :x was already written by op 1"},
		{"unpaired completion", "list-append", `{:process 0 :type :invoke :f :txn :value [[:append :x 1]]}
{:process 0 :type :ok :f :txn :value [[:append :x 1]]}

; a completion nobody invoked
{:process 1 :type :ok :f :txn :value [[:r :x [1]]]}
`, "h.edn:5: pair history: op 2: ok of process 1 has no open invocation"},
		{"not a txn", "rw-register", `[{:process 0 :type :invoke :f :txn :value [[:w :x 1]]}
 {:process 0 :type :ok :f :txn :value [[:w :x 1]]}
 {:process 1 :type :invoke :f :read :value nil}
 {:process 1 :type :ok :f :read :value 1}]
`, "h.edn:3: op 2: process 1 invokes :f read; a rw-register history holds only :f :txn client ops"},
		{"register unpaired", "register", `{:process 0 :type :invoke :f :write :value 1}
{:process 0 :type :ok :f :write :value 1}
{:process 1 :type :ok :f :read :value 1}
`, "h.edn:3: pair invocations with completions: op 2: ok of process 1 has no open invocation"},
		{"counter bad add", "counter", `{:process 0 :type :invoke :f :add :value "x"}
{:process 0 :type :ok :f :add :value "x"}
`, "h.edn:1: op 0: an add takes an integer"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "h.edn"), []byte(c.text), 0o644); err != nil {
				t.Fatal(err)
			}
			t.Chdir(dir)
			code, stdout, stderr := runCLI(t, "check", "--model", c.model, "h.edn")
			if code != exitRejected || !strings.Contains(stdout, c.want) {
				t.Fatalf("exit %d, want %d and %q:\n%s%s", code, exitRejected, c.want, stdout, stderr)
			}
		})
	}
}

// Elle's options reach the checker from the command line: named anomalies
// alone are the whole question (no default model is added), and options that
// do not fit the model are refused as usage errors.
func TestCheckElleOptions(t *testing.T) {
	dir := t.TempDir()
	h := filepath.Join(dir, "g1c.edn")
	// Each txn reads the other's append: a G1c cycle, and nothing else.
	text := `{:process 0 :type :invoke :f :txn :value [[:append :x 1] [:r :y nil]]}
{:process 1 :type :invoke :f :txn :value [[:append :y 1] [:r :x nil]]}
{:process 0 :type :ok :f :txn :value [[:append :x 1] [:r :y [1]]]}
{:process 1 :type :ok :f :txn :value [[:append :y 1] [:r :x [1]]]}
`
	if err := os.WriteFile(h, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		code int
		want string
	}{
		{nil, exitFail, "G1c"},
		{[]string{"--anomalies", "G0"}, exitOK, "valid: no G0 in 2 txns"},
		{[]string{"--anomalies", "G0,G1c", "--cycle-search-timeout", "5s"}, exitFail, "invalid: G1c"},
		{[]string{"--anomalies", "G0", "--consistency-model", "read-committed"}, exitFail, "invalid: G1c"},
		{[]string{"--anomalies", "nope"}, exitUsage, `unknown anomaly "nope"`},
		{[]string{"--wfr-keys"}, exitUsage, "--wfr-keys applies to rw-register"},
	}
	for _, c := range cases {
		args := append([]string{"check", "--model", "list-append", h}, c.args...)
		code, stdout, stderr := runCLI(t, args...)
		if code != c.code || !strings.Contains(stdout+stderr, c.want) {
			t.Errorf("%v: exit %d, want %d and %q:\n%s%s", c.args, code, c.code, c.want, stdout, stderr)
		}
	}
	if code, _, stderr := runCLI(t, "check", "--model", "register", "--anomalies", "G0", h); code != exitUsage || !strings.Contains(stderr, "--anomalies applies to list-append and rw-register") {
		t.Errorf("--anomalies on register: exit %d: %s", code, stderr)
	}
}

// rw-register's version-order options and initial state reach the checker
// from the command line, and are refused where they do not fit.
func TestCheckElleRegisterOptions(t *testing.T) {
	dir := t.TempDir()
	h := filepath.Join(dir, "stale.edn")
	// Process 0 writes x = 1; then process 1 reads x = 0, which nobody wrote.
	text := `{:process 0 :type :invoke :f :txn :value [[:w :x 1]]}
{:process 0 :type :ok :f :txn :value [[:w :x 1]]}
{:process 1 :type :invoke :f :txn :value [[:r :x nil]]}
{:process 1 :type :ok :f :txn :value [[:r :x 0]]}
`
	if err := os.WriteFile(h, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		code int
		want string
	}{
		// 0 may have been there before the history: nothing to order.
		{[]string{"--consistency-model", "serializable"}, exitUnknown, "empty-transaction-graph"},
		// Given the initial state 0, the read is of it, and 0 < 1: fine
		// for serializable, a stale read for strict-serializable.
		{[]string{"--init", "0"}, exitFail, "G-single-item-realtime"},
		{[]string{"--init", "0", "--consistency-model", "serializable"}, exitOK, "valid"},
		// Given nil, 0 is garbage.
		{[]string{"--init", "nil", "--consistency-model", "PL-1"}, exitFail, "garbage-read"},
		{[]string{"--init", "{x:0}", "--linearizable-keys"}, exitFail, "cyclic-versions"},
		{[]string{"--init", "0", "--sequential-keys", "--consistency-model", "serializable"}, exitOK, "valid"},
		{[]string{"--transaction-order", "1:1,3:2", "--consistency-model", "serializable"}, exitUnknown, "empty-transaction-graph"},
		{[]string{"--transaction-order", "1"}, exitUsage, `--transaction-order: "1" is not INDEX:POS`},
		{[]string{"--transaction-order", "1:1,1:2"}, exitUsage, "index 1 given twice"},
	}
	for _, c := range cases {
		args := append([]string{"check", "--model", "rw-register", h}, c.args...)
		code, stdout, stderr := runCLI(t, args...)
		if code != c.code || !strings.Contains(stdout+stderr, c.want) {
			t.Errorf("%v: exit %d, want %d and %q:\n%s%s", c.args, code, c.code, c.want, stdout, stderr)
		}
	}
	for _, flag := range [][]string{{"--sequential-keys"}, {"--linearizable-keys"}, {"--transaction-order", "1:1"}} {
		args := append([]string{"check", "--model", "list-append", h}, flag...)
		if code, _, stderr := runCLI(t, args...); code != exitUsage || !strings.Contains(stderr, flag[0]) {
			t.Errorf("%v on list-append: exit %d: %s", flag, code, stderr)
		}
	}
	// list-append's only initial state is the empty one.
	if code, _, stderr := runCLI(t, "check", "--model", "list-append", "--init", "0", h); code != exitUsage || !strings.Contains(stderr, "can only start empty") {
		t.Errorf("--init 0 on list-append: exit %d: %s", code, stderr)
	}
	if code, _, stderr := runCLI(t, "check", "--model", "register", "--sequential-keys", h); code != exitUsage || !strings.Contains(stderr, "--sequential-keys") {
		t.Errorf("--sequential-keys on register: exit %d: %s", code, stderr)
	}
}

// TestCheckMemoryBudget: --memory bounds the heap a search may grow to; a
// search that needs more is unknown (exit 2) saying so, and the other files
// of the same check keep their answers. A bad size is a usage error.
func TestCheckMemoryBudget(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for p := 0; p < 40; p++ {
		fmt.Fprintf(&b, "{:process %d, :type :invoke, :f :write, :value %d}\n", p, p+1)
	}
	for p := 0; p < 40; p++ {
		fmt.Fprintf(&b, "{:process %d, :type :info, :f :write, :value %d}\n", p, p+1)
	}
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&b, "{:process %d, :type :invoke, :f :read, :value nil}\n{:process %d, :type :ok, :f :read, :value %d}\n", 100+i, 100+i, 40-i)
	}
	b.WriteString("{:process 200, :type :invoke, :f :read, :value nil}\n{:process 200, :type :ok, :f :read, :value 99}\n")
	hard := filepath.Join(dir, "hard.edn")
	easy := filepath.Join(dir, "easy.edn")
	if err := os.WriteFile(hard, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(easy, []byte("{:process 0, :type :invoke, :f :write, :value 1}\n{:process 0, :type :ok, :f :write, :value 1}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var m runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m)
	budget := fmt.Sprintf("%dM", m.HeapAlloc>>20+64)
	code, stdout, stderr := runCLI(t, "check", "--model", "register", "--timeout", "0", "--memory", budget, easy, hard)
	if code != exitUnknown || !strings.Contains(stdout, "memory budget") || !strings.Contains(stdout, "valid") {
		t.Fatalf("exit %d, want 2 with easy valid and hard stopped at the memory budget\n%s\n%s", code, stdout, stderr)
	}
	if code, _, stderr := runCLI(t, "check", "--model", "register", "--memory", "lots", easy); code != exitUsage || !strings.Contains(stderr, "--memory") {
		t.Errorf("--memory lots: exit %d, want %d naming the flag\n%s", code, exitUsage, stderr)
	}
}

// A history that holds no client op asks nothing, so it proves nothing:
// faultline check answers unknown (exit 2) and says the history holds no
// ops, in every format and for every model (the register models answered
// VALID, exit 0).
func TestCheckEmptyHistoryIsUnknown(t *testing.T) {
	files := map[string]string{
		"empty.jsonl":    "",
		"empty.edn":      "",
		"vector.edn":     "[]\n",
		"nemesis.edn":    "{:process :nemesis :type :info :f :start-partition :value nil}\n{:process :nemesis :type :info :f :start-partition :value :majority}\n",
		"comments.edn":   "; nothing was recorded\n",
		"blank.jsonl":    "\n\n",
		"jepsen.log":     "",
		"only-nem.jsonl": `{"process":"nemesis","type":"info","f":"kill","value":null}` + "\n",
	}
	dir := t.TempDir()
	t.Chdir(dir)
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, model := range []string{"register", "cas-register", "kv", "list-append", "set", "bank"} {
		for name := range files {
			t.Run(model+"/"+name, func(t *testing.T) {
				code, stdout, stderr := runCLI(t, "check", "--model", model, name)
				if code != exitUnknown || !strings.Contains(stdout, "UNKNOWN") || !strings.Contains(stdout, "the history holds no") {
					t.Fatalf("exit %d, want %d and 'the history holds no ops':\n%s%s", code, exitUnknown, stdout, stderr)
				}
			})
		}
	}
}
