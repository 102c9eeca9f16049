package cluster

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"time"
)

// probeTimeout bounds the KVM probe. A guest that KVM can run reaches the
// initramfs in a few seconds; on hosts whose /dev/kvm is a software
// hypervisor the guest stops with "KVM internal error" or crawls.
const kvmProbeTimeout = 20 * time.Second

// probeMarker is what the initramfs prints when booted with fl.probe=1.
const probeMarker = "FAULTLINE-PROBE-OK"

// accelChoice is the accelerator VMs use and why, as cluster.json and
// status report it.
type accelChoice struct {
	Accel  string `json:"accel"` // "kvm" or "tcg"
	Reason string `json:"reason"`
}

// probeVerdict reads the probe's console and QEMU's stderr.
func probeVerdict(console, stderr string, took time.Duration, timedOut bool) accelChoice {
	b, _ := os.ReadFile(console)
	if bytes.Contains(b, []byte(probeMarker)) {
		return accelChoice{"kvm", fmt.Sprintf("KVM: a probe guest booted under it in %.1fs", took.Seconds())}
	}
	why := firstLineOf(stderr)
	switch {
	case strings.Contains(stderr, "internal error"):
		why = "KVM internal error: " + why
	case timedOut:
		why = fmt.Sprintf("no boot within %s", kvmProbeTimeout)
	case why == "":
		why = "QEMU exited before the guest's initramfs ran"
	}
	return accelChoice{"tcg", "software emulation: /dev/kvm is there but a probe guest did not boot under it (" + why + ")"}
}

func firstLineOf(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}
