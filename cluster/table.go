package cluster

import (
	"fmt"
	"io"
	"strconv"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
)

// Table renders one row per node: address, namespace, link, sshd PID (host
// view) and SSH reachability, for `faultline cluster status`.
func (s *StatusReport) Table(w io.Writer) error {
	if s.Config.VM {
		return s.vmTable(w)
	}
	t := tablewriter.NewTable(w, tablewriter.WithHeaderAutoFormat(tw.Off))
	t.Header("node", "address", "netns", "link", "sshd", "ssh")
	for _, n := range s.Nodes {
		sshd := "dead"
		if n.SSHD {
			sshd = "pid " + strconv.Itoa(n.PID)
		}
		ssh := "unreachable"
		if n.Reachable {
			ssh = "ok"
		}
		if err := t.Append(n.Name, n.Addr.String(), yesNo(n.Netns, n.Namespace), yesNo(n.Link, "up"), sshd, ssh); err != nil {
			return fmt.Errorf("render status table: %w", err)
		}
	}
	if err := t.Render(); err != nil {
		return fmt.Errorf("render status table: %w", err)
	}
	return nil
}

// yesNo shows what is present, or "missing".
func yesNo(ok bool, what string) string {
	if ok {
		return what
	}
	return "missing"
}

// vmTable is Table for VM nodes: tap, QEMU PID, SSH, and what Up measured
// per node (speed loop, clock offset after the boot sync), then the
// accelerator and why.
func (s *StatusReport) vmTable(w io.Writer) error {
	t := tablewriter.NewTable(w, tablewriter.WithHeaderAutoFormat(tw.Off))
	t.Header("node", "address", "tap", "qemu", "ssh", "slowdown", "clock after boot")
	for k, n := range s.Nodes {
		qemu := "dead"
		if n.SSHD {
			qemu = "pid " + strconv.Itoa(n.PID)
		}
		ssh := "unreachable"
		if n.Reachable {
			ssh = "ok"
		}
		slow, clock := "?", "?"
		if s.VM != nil && k < len(s.VM.Nodes) {
			v := s.VM.Nodes[k]
			slow = fmt.Sprintf("%.1fx", v.Slowdown)
			clock = fmt.Sprintf("%+.1f ms ±%.1f", v.ClockOffsetMS, v.ClockBoundMS)
		}
		if err := t.Append(n.Name, n.Addr.String(), yesNo(n.Link, n.Namespace), qemu, ssh, slow, clock); err != nil {
			return fmt.Errorf("render status table: %w", err)
		}
	}
	if err := t.Render(); err != nil {
		return fmt.Errorf("render status table: %w", err)
	}
	if v := s.VM; v != nil {
		fmt.Fprintf(w, "kernel %s (%s), %d MB per node, image %s\naccelerator %s: %s\nslowdown %.1fx (a CPU-bound shell loop: %.0f ms on the host), boot %.1fs\n",
			v.KernelRelease, v.KernelPackage, v.MemoryMB, v.Image, v.Accel, v.AccelReason, v.Slowdown, v.HostLoopMS, v.BootSec)
	}
	return nil
}
