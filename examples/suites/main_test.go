// Package suites_test runs the example suites for systems faultline has no
// Go client for (Redis, MariaDB Galera), end to end through the faultline
// binary against real servers. They take minutes, so they live here, where
// go test runs them beside cmd/faultline's tests rather than after them.
package suites_test

import (
	"testing"

	"github.com/faultline/faultline/internal/clitest"
)

func TestMain(m *testing.M) { clitest.Main(m) }
