package cluster

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// chooseAccel decides between KVM and software emulation (TCG): KVM only
// when a probe guest really booted under it, because /dev/kvm opening is
// not enough (on these machines it is a software hypervisor that cannot
// run a stock kernel). The probe's answer is cached in the image directory
// per host kernel, so it is paid once.
func chooseAccel(ctx context.Context, qemu string, img *Image) accelChoice {
	f, err := os.OpenFile("/dev/kvm", os.O_RDWR, 0)
	if err != nil {
		return accelChoice{"tcg", "software emulation: no usable /dev/kvm (" + err.Error() + ")"}
	}
	f.Close()
	var uts syscall.Utsname
	_ = syscall.Uname(&uts)
	host := utsString(uts.Release[:])
	cache := filepath.Join(img.Dir, "accel-"+host+".json")
	if b, err := os.ReadFile(cache); err == nil {
		var a accelChoice
		if json.Unmarshal(b, &a) == nil && a.Accel != "" {
			return a
		}
	}
	a := probeKVM(ctx, qemu, img)
	if b, err := json.Marshal(a); err == nil {
		_ = writeFile(cache, append(b, '\n'), 0o644) // a cache: failing to write it costs a probe next time
	}
	return a
}

// probeKVM boots the image's kernel and initramfs under KVM with fl.probe=1
// and reports whether the initramfs got to print probeMarker.
func probeKVM(ctx context.Context, qemu string, img *Image) accelChoice {
	dir, err := os.MkdirTemp("", "faultline-kvm-probe-")
	if err != nil {
		return accelChoice{"tcg", "software emulation: KVM probe could not run: " + err.Error()}
	}
	defer os.RemoveAll(dir)
	console := filepath.Join(dir, "console.log")
	pctx, cancel := context.WithTimeout(ctx, kvmProbeTimeout)
	defer cancel()
	start := time.Now()
	cmd := exec.CommandContext(pctx, qemu, "-accel", "kvm", "-cpu", "host", "-m", "128", "-smp", "1",
		"-nodefaults", "-no-user-config", "-display", "none", "-no-reboot", "-serial", "file:"+console,
		"-kernel", img.Kernel, "-initrd", img.Initrd, "-append", "console=ttyS0 fl.probe=1 panic=-1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return accelChoice{"tcg", "software emulation: KVM probe could not start QEMU: " + err.Error()}
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-done:
			return probeVerdict(console, stderr.String(), time.Since(start), false)
		case <-tick.C:
			b, _ := os.ReadFile(console)
			if bytes.Contains(b, []byte(probeMarker)) || strings.Contains(stderr.String(), "internal error") {
				cancel()
				<-done
				return probeVerdict(console, stderr.String(), time.Since(start), false)
			}
		case <-pctx.Done():
			<-done
			return probeVerdict(console, stderr.String(), time.Since(start), true)
		}
	}
}

// utsString turns a NUL-padded utsname field into a string.
func utsString[T int8 | uint8](b []T) string {
	var out []byte
	for _, c := range b {
		if c == 0 {
			break
		}
		out = append(out, byte(c))
	}
	return string(out)
}
