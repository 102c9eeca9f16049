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
