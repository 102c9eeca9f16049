package nemesis

import (
	"strings"
	"testing"

	"github.com/faultline/faultline/history"
	"github.com/faultline/faultline/mesh"
)

// TestPeerTraffic: a partition's evidence on the mesh says how many of the
// system's own connections crossed each cut link before and during the
// fault, and names the fix when its peers never used the mesh.
func TestPeerTraffic(t *testing.T) {
	g := Grudge{"n1": {"n2", "n3"}, "n2": {"n1"}, "n3": {"n1"}} // n1 isolated
	link := func(from, to string) mesh.Link { return mesh.Link{From: from, To: to, Service: "kv"} }
	for _, tc := range []struct {
		name      string
		base, now map[mesh.Link]mesh.Counters
		want      []string
		not       []string
	}{
		{"peers dialled around the mesh",
			map[mesh.Link]mesh.Counters{link(mesh.Client, "n1"): {ConnsAccepted: 50}, link("n1", "n2"): {}, link("n2", "n1"): {}, link("n2", "n3"): {ConnsAccepted: 9}},
			map[mesh.Link]mesh.Counters{link(mesh.Client, "n1"): {ConnsAccepted: 80}, link("n1", "n2"): {}, link("n2", "n1"): {}, link("n2", "n3"): {ConnsAccepted: 12}},
			[]string{"never dialled each other through the mesh", "0 connections on the 2 cut links", "node.addr_of(peer, service, port)"},
			[]string{"client"}},
		{"peers used the cut links",
			map[mesh.Link]mesh.Counters{link("n2", "n1"): {ConnsAccepted: 3}, link("n3", "n1"): {ConnsAccepted: 2}, link("n1", "n3"): {}},
			map[mesh.Link]mesh.Counters{link("n2", "n1"): {ConnsAccepted: 7}, link("n3", "n1"): {ConnsAccepted: 2}, link("n1", "n3"): {}},
			[]string{"n2->n1/kv 3 before, 4 during", "n3->n1/kv 2 before, 0 during", "1 other cut links carried none"},
			[]string{"never dialled", "n2->n3"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := peerTraffic(g, tc.base, tc.now)
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("peerTraffic = %q, want it to contain %q", got, w)
				}
			}
			for _, w := range tc.not {
				if strings.Contains(got, w) {
					t.Errorf("peerTraffic = %q, want no %q", got, w)
				}
			}
		})
	}
	if got := peerTraffic(g, nil, map[mesh.Link]mesh.Counters{link(mesh.Client, "n1"): {}}); got != "" {
		t.Errorf("no cut link in the mesh: %q, want \"\"", got)
	}
}

// TestPeerTrafficInReason: the stop op's peer_traffic reaches the
// window's reason, from a stop and from the final heal.
func TestPeerTrafficInReason(t *testing.T) {
	for _, closing := range []history.Op{
		{Process: history.NemesisProcess, Type: history.OK, F: "stop-partition", Time: 30,
			Extra: map[string]any{"landed": true, "healed": true, "effect": int64(5), "peer_traffic": "the system's own connections on the cut links: n2->n1/kv 3 before, 4 during"}},
		{Process: history.NemesisProcess, Type: history.OK, F: "heal", Time: 30,
			Extra: map[string]any{"held": map[string]any{"start-partition": true}, "healed": map[string]any{"start-partition": true},
				"effect": map[string]any{"start-partition": int64(5)}, "peer_traffic": map[string]any{"start-partition": "the system's own connections on the cut links: n2->n1/kv 3 before, 4 during"}}},
	} {
		ops := []history.Op{
			{Process: history.NemesisProcess, Type: history.Invoke, F: "start-partition", Time: 1},
			{Process: history.NemesisProcess, Type: history.OK, F: "start-partition", Time: 2, Value: map[string]any{"n1": []any{"n2"}}, Extra: map[string]any{"landed": true}},
			{Process: history.NemesisProcess, Type: history.Invoke, F: closing.F, Time: 29},
			closing,
		}
		ws := FaultWindows(ops)
		if len(ws) != 1 || !strings.Contains(ws[0].Reason, "n2->n1/kv 3 before, 4 during") {
			t.Errorf("%s: windows %+v, want the peer traffic in the reason", closing.F, ws)
		}
	}
}
