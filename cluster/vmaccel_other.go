//go:build !linux

package cluster

import (
	"context"
	"runtime"
)

// chooseAccel picks software emulation: KVM is Linux's, and QEMU's
// accelerators on other hosts (hvf, whpx) are neither probed nor used.
func chooseAccel(ctx context.Context, qemu string, img *Image) accelChoice {
	return accelChoice{"tcg", "software emulation: KVM needs a Linux host (this is " + runtime.GOOS + ")"}
}
