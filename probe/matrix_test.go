package probe

import (
	"context"
	"reflect"
	"testing"
	"testing/fstest"
)

// fixtureMatrix checks the fixture plan plus scenario uses on a fake host:
// iptables present (nf_tables), netns but no sshd, not root, netem undecidable.
func fixtureMatrix(t *testing.T) Matrix {
	t.Helper()
	reqs := Requirements(fixturePlan(t), map[string][]string{
		"S1": {"iptables", "etcd-server"}, "S4": {"tc-netem", "toxiproxy"}, "S5": {"docker"},
	})
	f := &fakeEnv{euid: 1000, cmds: map[string]string{
		"iptables": "iptables v1.8.9 (nf_tables)", "etcd": "etcd Version: 3.5.9", "ip": "ip utility, iproute2-6.1.0",
		"tc": "tc utility, iproute2-6.1.0", "docker": "Docker version 24.0.5, build ced0996",
	}, fs: fstest.MapFS{"proc/self/ns/net": {}}}
	return Check(context.Background(), reqs, Options{
		Env:    f.env(),
		Assume: map[string]bool{"toxiproxy": false},
		Said:   map[string]bool{"etcd-server": false},
		Skip:   []string{"S5"},
	})
}

func TestMarkdownGolden(t *testing.T) {
	golden(t, "matrix.golden.md", fixtureMatrix(t).Markdown())
}

func TestMarkdownEscapesCells(t *testing.T) {
	m := Matrix{Rows: []Row{{Requirement: Requirement{Name: "a|b\nc"}, Present: Yes}}}
	want := "| Requirement | Present? | Version | Source |\n|---|---|---|---|\n| a\\|b c | yes | - | - |\n"
	if got := m.Markdown(); got != want {
		t.Errorf("Markdown = %q, want %q", got, want)
	}
}

func TestMissing(t *testing.T) {
	m := fixtureMatrix(t)
	tests := []struct {
		id     string
		want   []string
		reason string
	}{
		{id: "S1", want: []string{"iptables (CAP_NET_ADMIN on the nodes)", "network namespaces + sshd (faultline cluster up)"},
			reason: "environment lacks iptables (CAP_NET_ADMIN on the nodes) (euid 1000, needs root), " +
				"network namespaces + sshd (faultline cluster up) (sshd not on PATH)"},
		{id: "S2", want: []string{"network namespaces + sshd (faultline cluster up)"},
			reason: "environment lacks network namespaces + sshd (faultline cluster up) (sshd not on PATH)"},
		{id: "S1/arm", want: []string{"iptables (CAP_NET_ADMIN on the nodes)", "network namespaces + sshd (faultline cluster up)"},
			reason: "environment lacks iptables (CAP_NET_ADMIN on the nodes) (euid 1000, needs root), " +
				"network namespaces + sshd (faultline cluster up) (sshd not on PATH)"},
		{id: "S3/api", want: nil}, // brought up by the SUT
		{id: "S3", want: nil},     // the row names only the arm
		{id: "S4", want: []string{"tc-netem", "toxiproxy"},
			reason: "environment lacks tc-netem (cannot tell whether the kernel has sch_netem), toxiproxy (the operator says it is absent)"},
		{id: "S5", want: []string{"docker"}, reason: "environment lacks docker (skipped by the operator)"},
		{id: "S10", want: nil}, // "S1" must not match "S10"
	}
	for _, tt := range tests {
		if got := m.Missing(tt.id); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Missing(%s) = %q, want %q", tt.id, got, tt.want)
		}
		if got := m.Reason(tt.id); got != tt.reason {
			t.Errorf("Reason(%s) = %q, want %q", tt.id, got, tt.reason)
		}
	}
}
