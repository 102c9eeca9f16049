package probe

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/faultline/faultline/control"
	"github.com/faultline/faultline/nemesis"
)

// kernels builds the nodes of a fake cluster: name -> boot id, netem,
// nfqueue.
func kernels(rows ...[4]string) map[string]nemesis.Capability {
	out := map[string]nemesis.Capability{}
	for _, r := range rows {
		out[r[0]] = nemesis.Capability{BootID: r[1], Netem: r[2], NFQueue: r[3]}
	}
	return out
}

// TestClusterJudge: what clock faults, netem and delay need of the nodes,
// judged from their boot ids and kernels as the faults themselves refuse.
func TestClusterJudge(t *testing.T) {
	const ctl = "ctl-boot"
	type want struct {
		present Presence
		note    string // a substring of the note; "" wants none
	}
	tests := []struct {
		name               string
		c                  *Cluster
		clock, netem, dela want
	}{
		{"no nodes given", nil,
			want{Unknown, "no nodes given: clock faults need nodes with kernels of their own"}, want{}, want{}},
		{"local nodes", &Cluster{Local: true, Controller: ctl},
			want{No, "local nodes run on the controller's own kernel"},
			want{No, "proxy mesh, which delays, drops and throttles but cannot reorder, duplicate or corrupt"},
			want{Yes, ""}},
		{"VM nodes, each its own kernel with netem", &Cluster{Controller: ctl, Nodes: kernels(
			[4]string{"n1", "b1", "yes", "yes"}, [4]string{"n2", "b2", "yes", "no"}, [4]string{"n3", "b3", "yes", "yes"})},
			want{Yes, ""}, want{Yes, ""}, want{Yes, ""}},
		{"netns nodes on the controller's kernel without netem", &Cluster{Controller: ctl, Nodes: kernels(
			[4]string{"n1", ctl, "no", "yes"}, [4]string{"n2", ctl, "no", "yes"}, [4]string{"n3", ctl, "no", "yes"})},
			want{No, "n1, n2, n3 on the controller's own kernel (boot id ctl-boot)"},
			want{No, "netem: no on n1, n2, n3 (CONFIG_NET_SCH_NETEM) — delay uses faultline's agent (NFQUEUE); reorder/duplicate/corrupt unavailable"},
			want{Yes, ""}},
		{"two nodes on one remote kernel", &Cluster{Controller: ctl, Nodes: kernels(
			[4]string{"n1", "b1", "yes", "yes"}, [4]string{"n2", "b1", "yes", "yes"}, [4]string{"n3", "b3", "yes", "yes"})},
			want{No, "n1, n2 share one kernel (boot id b1), so their clocks cannot differ"}, want{Yes, ""}, want{Yes, ""}},
		{"a node with neither netem nor NFQUEUE", &Cluster{Controller: ctl, Nodes: kernels(
			[4]string{"n1", "b1", "yes", "yes"}, [4]string{"n2", "b2", "no", "no"})},
			want{Yes, ""}, want{No, "delay is unavailable too on n2 (no NFQUEUE for faultline's agent)"},
			want{No, "neither netem nor NFQUEUE (for faultline's delay agent) on n2"}},
		{"netem undecidable", &Cluster{Controller: ctl, Nodes: kernels([4]string{"n1", "b1", "unknown", "no"})},
			want{Yes, ""}, want{Unknown, "cannot tell whether the kernel of n1 has sch_netem"}, want{No, "n1"}},
		{"no boot id read", &Cluster{Controller: ctl, Nodes: kernels([4]string{"n1", "", "yes", "yes"}, [4]string{"n2", "b2", "yes", "yes"})},
			want{Unknown, "no boot id read from n1"}, want{Yes, ""}, want{Yes, ""}},
		{"nodes unreachable", &Cluster{Controller: ctl, Err: errors.New("read the nodes' kernels: n2: connection refused")},
			want{Unknown, "connection refused"}, want{Unknown, "connection refused"}, want{Unknown, "connection refused"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, c := range []struct {
				capability string
				want       want
			}{{"clock", tt.clock}, {"tc-netem", tt.netem}, {"delay", tt.dela}} {
				got, ok := tt.c.judge(c.capability)
				if c.want.present == "" {
					if ok {
						t.Errorf("%s: judged %+v with no nodes; the host decides it", c.capability, got)
					}
					continue
				}
				if !ok || got.present != c.want.present || (c.want.note == "") != (got.note == "") || !strings.Contains(got.note, c.want.note) {
					t.Errorf("%s: %s (%s), want %s with a note containing %q", c.capability, got.present, got.note, c.want.present, c.want.note)
				}
			}
		})
	}
}

// A plan's clock and netem rows are judged from the nodes, the summary
// leads the matrix, and the scenarios they block say why.
func TestCheckWithCluster(t *testing.T) {
	c := &Cluster{Controller: "ctl", Nodes: kernels([4]string{"n1", "ctl", "no", "yes"}, [4]string{"n2", "ctl", "no", "yes"})}
	reqs := Requirements(nil, map[string][]string{"S1": {"clock"}, "S2": {"tc-netem"}, "S3": {"delay"}})
	m := Check(context.Background(), reqs, Options{Cluster: c, Env: (&fakeEnv{}).env()})
	md := m.Markdown()
	for _, s := range []string{
		"Nodes:\n- n1: boot id ctl (the controller's), netem no, nfqueue yes\n",
		"- clock faults: no — n1, n2 on the controller's own kernel",
		"- netem (reorder, duplicate, corrupt): no — netem: no on n1, n2 (CONFIG_NET_SCH_NETEM) — delay uses faultline's agent (NFQUEUE); reorder/duplicate/corrupt unavailable",
		"- delay: yes\n",
		"| clock | no (n1, n2 on the controller's own kernel",
	} {
		if !strings.Contains(md, s) {
			t.Errorf("matrix lacks %q:\n%s", s, md)
		}
	}
	if r := m.Reason("S1"); !strings.Contains(r, "clock faults need nodes with kernels of their own (faultline cluster up --vm)") {
		t.Errorf("S1 reason %q", r)
	}
	if r := m.Reason("S2"); !strings.Contains(r, "reorder/duplicate/corrupt unavailable") {
		t.Errorf("S2 reason %q", r)
	}
	if r := m.Reason("S3"); r != "" {
		t.Errorf("S3 (delay through the agent) is blocked: %q", r)
	}
	if !FromNodes(reqs) || FromNodes(Requirements(nil, map[string][]string{"S1": {"iptables", "root"}})) {
		t.Error("FromNodes: only clock, netem and delay need the nodes read")
	}
}

// ReadCluster on nodes that are this host (the local dialer, as netns and
// local nodes are for the kernel): every node has the controller's boot
// id, so clock faults are refused before anything runs.
func TestReadClusterThisHost(t *testing.T) {
	pool, err := control.NewPool([]control.Node{{Name: "n1"}, {Name: "n2"}}, control.LocalDialer())
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	c := ReadCluster(context.Background(), pool, false)
	if c == nil || c.Err != nil || len(c.Nodes) != 2 {
		t.Fatalf("ReadCluster: %+v", c)
	}
	if c.Controller == "" || c.Nodes["n1"].BootID != c.Controller {
		t.Skipf("no boot id on this host (%+v)", c)
	}
	if got := c.clock(); got.present != No || !strings.Contains(got.note, "n1, n2 on the controller's own kernel") {
		t.Errorf("clock on this host: %+v", got)
	}
	if ReadCluster(context.Background(), nil, false) != nil {
		t.Error("no pool is no cluster")
	}
}
