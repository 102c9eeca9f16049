package cluster

import (
	"bytes"
	"net/netip"
	"strings"
	"testing"
)

// tableRows reads the cells of a rendered table, header first, whatever
// border symbols the renderer uses.
func tableRows(s string) [][]string {
	var rows [][]string
	for _, line := range strings.Split(s, "\n") {
		cells := strings.FieldsFunc(line, func(r rune) bool { return r == '│' || r == '|' })
		if len(cells) < 2 {
			continue // a border line
		}
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		rows = append(rows, cells)
	}
	return rows
}

func testReport() *StatusReport {
	c, err := Config{Nodes: 3}.withDefaults()
	if err != nil {
		panic(err)
	}
	ap := func(s string) netip.AddrPort { return netip.MustParseAddrPort(s) }
	return &StatusReport{
		Config: c, Recorded: true, Bridge: true,
		Nodes: []NodeStatus{
			{Name: "n1", Namespace: "fl-n1", Addr: ap("10.77.0.11:22"), Netns: true, Link: true, SSHD: true, PID: 4242, Reachable: true},
			{Name: "n2", Namespace: "fl-n2", Addr: ap("10.77.0.12:22"), Netns: true, Link: true},
			{Name: "n3", Namespace: "fl-n3", Addr: ap("10.77.0.13:22")},
		},
	}
}

func TestStatusTable(t *testing.T) {
	var b bytes.Buffer
	if err := testReport().Table(&b); err != nil {
		t.Fatal(err)
	}
	golden(t, "status_table.golden", b.Bytes())
	rows := tableRows(b.String())
	want := [][]string{
		{"node", "address", "netns", "link", "sshd", "ssh"},
		{"n1", "10.77.0.11:22", "fl-n1", "up", "pid 4242", "ok"},
		{"n2", "10.77.0.12:22", "fl-n2", "up", "dead", "unreachable"},
		{"n3", "10.77.0.13:22", "missing", "missing", "dead", "unreachable"},
	}
	if len(rows) != len(want) {
		t.Fatalf("%d rows, want %d:\n%s", len(rows), len(want), b.String())
	}
	for i := range want {
		if strings.Join(rows[i], "|") != strings.Join(want[i], "|") {
			t.Errorf("row %d: %q, want %q", i, rows[i], want[i])
		}
	}
}

func TestStatusSummaryAndHealth(t *testing.T) {
	healthy := testReport()
	for i := range healthy.Nodes {
		healthy.Nodes[i] = healthy.Nodes[0]
	}
	strayed := testReport()
	strayed.Recorded, strayed.Nodes, strayed.Strays = false, nil, []string{"netns fl-n2"}
	none := &StatusReport{Config: healthy.Config}
	tests := []struct {
		name    string
		rep     *StatusReport
		healthy bool
		summary string
	}{
		{"partial", testReport(), false, "cluster fl: 1 of 3 nodes healthy, bridge fl-br up (n2: sshd dead, ssh unreachable; n3: namespace missing, link down, sshd dead, ssh unreachable)"},
		{"healthy", healthy, true, "cluster fl: 3 of 3 nodes healthy, bridge fl-br up"},
		{"strays only", strayed, false, "no cluster in /var/lib/faultline/cluster, but leftovers: netns fl-n2 (run down)"},
		{"nothing", none, false, "no cluster in /var/lib/faultline/cluster"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.rep.Healthy(); got != tt.healthy {
				t.Errorf("Healthy() = %v, want %v", got, tt.healthy)
			}
			if got := tt.rep.Summary(); got != tt.summary {
				t.Errorf("Summary() = %q\nwant        %q", got, tt.summary)
			}
		})
	}
}
