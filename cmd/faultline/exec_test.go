package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faultline/faultline/history"
	"github.com/faultline/faultline/internal/integration"
)

// execSuite is a scenario whose client is testdata/exec/register.sh, run
// per op by client.exec on the worker's node; %q are the script and the
// directory of its state.
const execSuite = `load("@stdlib//workloads.star", "cas_register")

scenario(
    name = "exec-register",
    client = client.exec(argv = ["sh", %q, %q], timeout = "5s"),
    workload = gen.stagger("5ms", cas_register(values = 3)),
    checker = check.compose([check.linearizable(model = "cas-register"), check.stats()]),
    concurrency = 3,
    budgets = {"smoke": budget(duration = "5s", min_ops = 30)},
)
`

// TestExecClientSuite runs a client.exec suite on local nodes through the
// CLI against a register kept in a file by a shell script: reads answer a
// bare JSON value (ok), writes print nothing (ok), a cas on the wrong value
// exits 1 (fail, with the script's error), and every fifth write exits 3
// after it was applied (info). The history must show all three, with the
// script's errors, and the checker must find the register linearizable:
// each info write may have taken effect, and did.
func TestExecClientSuite(t *testing.T) {
	integration.NeedCommand(t, "jq")
	integration.NeedCommand(t, "flock")
	dir := t.TempDir()
	state := filepath.Join(dir, "state")
	if err := os.Mkdir(state, 0o755); err != nil {
		t.Fatal(err)
	}
	sh, err := filepath.Abs(filepath.Join("testdata", "exec", "register.sh"))
	if err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(dir, "exec.star")
	if err := os.WriteFile(script, []byte(fmt.Sprintf(execSuite, sh, state)), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI(t, "run", script, "--local", "--seed", "3", "--out", filepath.Join(dir, "out"), "-o", "json")
	var res scriptResults
	if err := json.Unmarshal([]byte(stdout), &res); err != nil || len(res.Scenarios) != 1 {
		t.Fatalf("exit %d, -o json: %v\n%s\n%s", code, err, stdout, stderr)
	}
	var verdict struct {
		Headline string `json:"headline"`
	}
	_ = json.Unmarshal([]byte(stdout), &verdict)
	if res.Scenarios[0].Result != "valid" {
		t.Fatalf("exit %d, result %s: want a valid run of a linearizable register\n%s\n%s", code, res.Scenarios[0].Result, stdout, stderr)
	}
	// Valid, yet not a PASS: the suite has no db whose logs faultline could
	// grep for swallowed errors (red flag RF7), so the session is
	// INCONCLUSIVE, exit 2, and says why.
	if code != exitUnknown || !strings.Contains(verdict.Headline, "RF7") {
		t.Fatalf("exit %d, headline %q: want %d for RF7 alone", code, verdict.Headline, exitUnknown)
	}
	h, err := history.ReadFile(res.Scenarios[0].History, history.JSONL)
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	var failErr, infoErr string
	for _, op := range h.Ops {
		if op.IsNemesis() || op.Type == history.Invoke {
			continue
		}
		kind := string(op.Type) + " " + op.F
		count[kind]++
		switch {
		case op.Type == history.Fail && failErr == "":
			failErr = fmt.Sprint(op.Error)
		case op.Type == history.Info && infoErr == "":
			infoErr = fmt.Sprint(op.Error)
		}
		if op.Type == history.OK && op.F == "read" && op.Value != nil {
			if _, ok := op.Value.(int64); !ok {
				t.Errorf("a read's value %v is a %T, want an integer from the script's JSON", op.Value, op.Value)
			}
		}
	}
	for _, want := range []string{"ok read", "ok write", "ok cas", "fail cas", "info write"} {
		if count[want] == 0 {
			t.Errorf("no %q completion in the history (%v)", want, count)
		}
	}
	for kind := range count {
		if kind == "fail read" || kind == "fail write" || kind == "info read" || kind == "info cas" {
			t.Errorf("unexpected %q completions (%v): the script never answers so", kind, count)
		}
	}
	if !strings.HasPrefix(failErr, "cas: the register is ") {
		t.Errorf("a failed cas's error is %q, want the script's own", failErr)
	}
	if !strings.Contains(infoErr, "exit 3") || !strings.Contains(infoErr, "acknowledgement lost") {
		t.Errorf("an info write's error is %q, want the exit status and the script's stderr", infoErr)
	}
}
