// Package integration gates tests that need real prerequisites (root, sshd,
// iptables, etcd, PostgreSQL). Outside CI a missing prerequisite skips the
// test with the reason; with FAULTLINE_REQUIRE_INTEGRATION=1 (set by .ci/run)
// it fails the test, so CI can never go green by skipping.
package integration

import (
	"os"
	"os/exec"
	"testing"
)

// EnvRequire is the variable that turns missing prerequisites into failures.
const EnvRequire = "FAULTLINE_REQUIRE_INTEGRATION"

// Required reports whether missing prerequisites must fail tests.
func Required() bool { return os.Getenv(EnvRequire) == "1" }

// Need stops the test when ok is false: a failure when integration is
// required, a skip naming what is missing otherwise.
func Need(t testing.TB, ok bool, what string) {
	t.Helper()
	if ok {
		return
	}
	if Required() {
		t.Fatalf("integration prerequisite missing: %s (%s=1)", what, EnvRequire)
	}
	t.Skipf("integration prerequisite missing: %s (set %s=1 to make this a failure)", what, EnvRequire)
}

// NeedRoot requires the test to run as root.
func NeedRoot(t testing.TB) {
	t.Helper()
	Need(t, os.Geteuid() == 0, "root privileges")
}

// NeedCommand requires an executable on PATH (or at an absolute path) and
// returns its path.
func NeedCommand(t testing.TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	Need(t, err == nil, "command "+name)
	return p
}
