package vmnodes_test

import (
	"testing"

	"github.com/faultline/faultline/cluster"
	"github.com/faultline/faultline/internal/testcluster"
)

// vmConfig is this package's VM cluster; the packages are those of every
// VM test (one cached image): Debian's etcd-server, and curl for the
// stdlib etcd recipe's health checks.
var vmConfig = cluster.Config{Nodes: 3, StateDir: "/var/lib/faultline-test-vmetcd/cluster",
	Subnet: "10.90.2.0/24", Prefix: "fvme", VM: true, Packages: []string{"curl", "etcd-server"}}

// TestVMNodes boots one cluster of 3 Debian VMs (a minute under software
// emulation) and runs each end-to-end check on it in turn.
func TestVMNodes(t *testing.T) {
	st := testcluster.Up(t, vmConfig, "qemu-system-x86_64", "qemu-img", "debootstrap", "busybox", "mkfs.ext4", "cpio", "depmod", "xz", "zstd")
	t.Logf("%s", st.Summary())
	t.Run("EtcdPlan", func(t *testing.T) { runEtcdPlan(t, st) })
	t.Run("EtcdLeaseUnderClockFaults", func(t *testing.T) { leaseUnderClockFaults(t, st) })
	t.Run("HealAfterKilledController", func(t *testing.T) { healAfterKilledController(t, st) })
}
