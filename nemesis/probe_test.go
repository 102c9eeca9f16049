package nemesis

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/faultline/faultline/history"
)

// probeNodes fakes nodes whose faultline rules or qdiscs count what
// crosses them: sys is what the system's own traffic met during the hold,
// and a probe sent from a node adds probed more. It records every probe:
// node -> the probe script's arguments.
type probeNodes struct {
	mu     sync.Mutex
	sys    int64
	probed int64
	extra  int64
	sent   map[string][]string
}

func (p *probeNodes) reply(node, label string, argv []string) (string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := p.sys + p.extra
	switch {
	case strings.HasPrefix(label, "probe: "):
		p.sent[node] = argv[6:]
		p.extra += p.probed
		return "tool ping\n", nil
	case strings.HasPrefix(label, "partition"), label == "read "+PartitionChain, label == "heal: flush "+PartitionChain:
		return fmt.Sprintf("1\nChain %s (1 references)\n    pkts      bytes target     prot opt in     out     source               destination\n"+
			"%8d %10d DROP       all  --  *      *       10.0.0.2             0.0.0.0/0\n", PartitionChain, n, n*60), nil
	case strings.HasPrefix(label, "delay: read back"):
		return "agent none\n", nil // no delay agent: the active fault is the qdisc
	case strings.HasPrefix(label, "verify healed"):
		return "1\n", nil
	case strings.HasSuffix(label, "find the cluster interface"):
		return "addr 10.0.0.1\ndev eth0\nroot qdisc noqueue 0: root refcnt 2\n", nil
	case strings.Contains(label, "tc qdisc tbf"):
		return "eth0 qdisc tbf " + QdiscHandle + " root refcnt 2 rate 1Mbit burst 4Kb lat 400ms\n", nil
	case label == "bandwidth: read the qdisc", label == "bandwidth: remove tbf":
		out := fmt.Sprintf("eth0 qdisc tbf %s root refcnt 2 rate 1Mbit burst 4Kb lat 400ms Sent %d bytes %d pkt (dropped 0, overlimits %d requeues 0)\n",
			QdiscHandle, 1000+n, 10+n, n)
		if label == "bandwidth: remove tbf" {
			out += "left 0\n"
		}
		return out, nil
	}
	return "10.0.0.254\n", nil // the controller's address
}

// A network fault whose rules or qdisc the system's own traffic did not
// cross during the hold is proven by faultline's probe, sent from the
// victim to the cluster's own node addresses only, and the window says so;
// when the system's traffic did cross, no probe is sent and the window
// says the system's traffic proved it.
func TestStopProbesIdleFault(t *testing.T) {
	tests := []struct {
		name        string
		start, stop string
		value       any
		sys, probed int64
		wantSent    map[string][]string
		proven      bool
		reason      string
	}{
		{"partition, idle cut", "start-partition", "stop-partition", map[string]any{"n1": []any{"n2"}}, 0, 3,
			map[string][]string{"n1": {"10.0.0.2"}}, true, "(the system's own traffic: 0; faultline's probe through the faulted links: 3)"},
		{"partition, system traffic on the cut", "start-partition", "stop-partition", map[string]any{"n1": []any{"n2"}}, 7, 3,
			map[string][]string{}, true, "7 packets, bytes or connections dropped on the cut links, held 0s, by the system's own traffic"},
		{"partition, probe met nothing", "start-partition", "stop-partition", map[string]any{"n1": []any{"n2"}}, 0, 0,
			map[string][]string{"n1": {"10.0.0.2"}}, false, "neither the system's traffic nor faultline's probe"},
		{"bandwidth, idle", "start-bandwidth", "stop-bandwidth", map[string]any{"nodes": []any{"n1"}, "rate": "1mbit"}, 0, 4,
			map[string][]string{"n1": {"10.0.0.2", "10.0.0.3"}}, true, "faultline's probe through the faulted links: 4"},
		{"bandwidth, throttled the system", "start-bandwidth", "stop-bandwidth", map[string]any{"nodes": []any{"n1"}, "rate": "1mbit"}, 2, 4,
			map[string][]string{}, true, "by the system's own traffic"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &probeNodes{sys: tt.sys, probed: tt.probed, sent: map[string][]string{}}
			w, err := New(Options{Pool: fakePool(t, p.reply)})
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			inv := history.Op{Process: history.NemesisProcess, Type: history.Invoke, F: tt.start, Value: tt.value}
			c := w.Invoke(ctx, inv)
			c.Process, c.F, c.Time = history.NemesisProcess, tt.start, 0
			sinv := history.Op{Process: history.NemesisProcess, Type: history.Invoke, F: tt.stop, Time: 1}
			s := w.Invoke(ctx, sinv)
			s.Process, s.F, s.Time = history.NemesisProcess, tt.stop, 2
			if len(p.sent) != len(tt.wantSent) {
				t.Fatalf("probes sent %v, want %v", p.sent, tt.wantSent)
			}
			for node, want := range tt.wantSent {
				if got := strings.Join(p.sent[node], " "); got != strings.Join(want, " ") {
					t.Errorf("%s probed %q, want %q (the cluster's own addresses only)", node, got, want)
				}
			}
			ws := FaultWindows([]history.Op{inv, c, sinv, s})
			if len(ws) != 1 || ws[0].Proven != tt.proven || !strings.Contains(ws[0].Reason, tt.reason) {
				t.Fatalf("windows %+v, want proven %v with %q", ws, tt.proven, tt.reason)
			}
		})
	}
}
