// Package clitest runs the faultline binary for end-to-end tests outside
// the CLI's own package, and reads what its runs print and record. Suites
// that take minutes live in packages of their own, so go test runs them
// beside the CLI's tests rather than after them.
package clitest

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

var (
	buildOnce sync.Once
	binary    string
	buildErr  error
)

// Binary builds the faultline command once per test binary and returns its
// path.
func Binary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "faultline-clitest-")
		if err != nil {
			buildErr = err
			return
		}
		binary = filepath.Join(dir, "faultline")
		out, err := exec.Command("go", "build", "-o", binary, "github.com/faultline/faultline/cmd/faultline").CombinedOutput()
		if err != nil {
			buildErr = errors.New("go build: " + err.Error() + "\n" + string(out))
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binary
}

// Main is a package's TestMain: it runs the tests, then removes the
// binary Binary built.
func Main(m *testing.M) {
	code := m.Run()
	if binary != "" {
		os.RemoveAll(filepath.Dir(binary))
	}
	os.Exit(code)
}

// Run runs faultline with args and returns its exit code, stdout and
// stderr.
func Run(t testing.TB, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(Binary(t), args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, stdout.String(), stderr.String()
	case errors.As(err, &ee):
		return ee.ExitCode(), stdout.String(), stderr.String()
	}
	t.Fatalf("faultline %s: %v", strings.Join(args, " "), err)
	return 0, "", ""
}

// HasRow reports whether the verdict table in out has a row for scenario
// with verdict.
func HasRow(out, scenario, verdict string) bool {
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, " "+scenario+" ") && strings.Contains(line, " "+verdict+" ") {
			return true
		}
	}
	return false
}

// OnlySession returns the one session directory under dir, failing t when
// there is not exactly one.
func OnlySession(t testing.TB, dir string) string {
	t.Helper()
	sessions, _ := filepath.Glob(filepath.Join(dir, "*"))
	if len(sessions) != 1 {
		t.Fatalf("want one session dir under %s, got %v", dir, sessions)
	}
	return sessions[0]
}

// NemesisOps reads a history.jsonl and says, per nemesis op, how its last
// completion ended: "landed", "not landed", or its type when not ok.
func NemesisOps(t testing.TB, path string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, line := range strings.Split(string(data), "\n") {
		var op struct {
			Process any    `json:"process"`
			Type    string `json:"type"`
			F       string `json:"f"`
			Landed  *bool  `json:"landed"`
		}
		if json.Unmarshal([]byte(line), &op) != nil || op.Process != "nemesis" || op.Type == "invoke" {
			continue
		}
		switch {
		case op.Type != "ok":
			out[op.F] = op.Type
		case op.Landed != nil && *op.Landed:
			out[op.F] = "landed"
		default:
			out[op.F] = "not landed"
		}
	}
	return out
}
