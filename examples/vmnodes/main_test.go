// Package vmnodes_test runs example plans end to end through the faultline
// binary on VM nodes (faultline cluster up --vm: Debian VMs with their own
// kernels). A run there takes minutes under software emulation, so it lives
// in a package of its own, which go test runs beside the others.
package vmnodes_test

import (
	"testing"

	"github.com/faultline/faultline/internal/clitest"
)

func TestMain(m *testing.M) { clitest.Main(m) }
