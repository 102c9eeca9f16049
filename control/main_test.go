package control

import (
	"testing"

	"github.com/faultline/faultline/internal/testdaemon"
)

// TestMain lets the test binary double as the daemon that start_daemon,
// stop_daemon, signal and await_port are tested with.
func TestMain(m *testing.M) { testdaemon.Main(m) }
