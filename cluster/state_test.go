package cluster

import (
	"testing"
	"time"
)

func TestStateSummary(t *testing.T) {
	st := newState(defaultConfig(t, 3))
	st.Elapsed = 312 * time.Millisecond
	tests := []struct {
		action   Action
		repaired []string
		want     string
	}{
		{Created, nil, "cluster fl created: 3 nodes up in 312 ms (bridge fl-br, host 10.77.0.1); nodes file /var/lib/faultline/cluster/nodes, ssh -F /var/lib/faultline/cluster/ssh_config n1"},
		{Repaired, []string{"n2", "removed netns fl-n4"}, "cluster fl repaired (n2, removed netns fl-n4): 3 nodes up in 312 ms; nodes file /var/lib/faultline/cluster/nodes"},
		{Unchanged, nil, "cluster fl already up: 3 nodes, nothing to do (312 ms); nodes file /var/lib/faultline/cluster/nodes"},
	}
	for _, tt := range tests {
		st.Action, st.Repaired = tt.action, tt.repaired
		if got := st.Summary(); got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.action, got, tt.want)
		}
	}
	if st.Nodes[2].Name != "n3" || st.Nodes[2].Namespace != "fl-n3" || st.Nodes[2].Addr.String() != "10.77.0.13:22" || st.Nodes[2].Dir != "/var/lib/faultline/cluster/n3" {
		t.Errorf("node 3: %+v", st.Nodes[2])
	}
}
