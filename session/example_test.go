package session_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/faultline/faultline/session"
)

// registerScript is a scenario over faultline's in-process register: it
// runs in simulated time, so a seed reproduces it exactly.
const registerScript = `load("@stdlib//workloads.star", "cas_register")

scenario(
    name = "register",
    client = client.register(),
    workload = gen.stagger("2ms", cas_register(values = 5)),
    checker = check.compose([check.linearizable(model = "cas-register"), check.stats()]),
    concurrency = 3,
    budgets = {"smoke": budget(duration = "5s", min_ops = 200)},
)
`

// A script runs from Go as `faultline run` runs it: the session directory
// is written, and the result is results.json as a value.
func ExampleRunScript() {
	dir, err := os.MkdirTemp("", "session-example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	script := filepath.Join(dir, "register.star")
	if err := os.WriteFile(script, []byte(registerScript), 0o644); err != nil {
		fmt.Println(err)
		return
	}
	res, err := session.RunScript(context.Background(), session.Options{
		Path: script, Seed: 42, Out: filepath.Join(dir, "sessions"), Reruns: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, u := range res.Units {
		fmt.Println(u.ID, u.Decision.Verdict)
	}
	fmt.Println("session:", res.Results.SessionVerdict, "exit", res.Results.ExitCode)
	// Output:
	// register PASS-smoke
	// session: DONE exit 0
}
