package probe

import (
	"os"
	"reflect"
	"testing"

	"github.com/faultline/faultline/plans"
)

// fixturePlan parses testdata/plan.md; a missing fixture fails the test.
func fixturePlan(t *testing.T) *plans.Plan {
	t.Helper()
	src, err := os.ReadFile("testdata/plan.md")
	if err != nil {
		t.Fatalf("fixture: %v", err)
	}
	p, _ := plans.Parse("testdata/plan.md", src)
	if len(p.EnvRequirements) != 4 {
		t.Fatalf("fixture has %d §6b rows, want 4: %+v", len(p.EnvRequirements), p.EnvRequirements)
	}
	return p
}

func TestRequirements(t *testing.T) {
	p := fixturePlan(t)
	tests := []struct {
		name string
		plan *plans.Plan
		uses map[string][]string
		want []Requirement
	}{
		{name: "nothing", want: nil},
		{
			name: "scenario uses only",
			uses: map[string][]string{"S2": {"tc-netem", "root"}, "S1": {"Root", "Postgres", "", "kafka"}},
			want: []Requirement{
				{Name: "kafka", Capabilities: []string{"kafka"}, UsedBy: []string{"S1"}},
				{Name: "postgresql", Capabilities: []string{"postgresql"}, UsedBy: []string{"S1"}, InstallHint: "apt-get install postgresql"},
				{Name: "root", Capabilities: []string{"root"}, UsedBy: []string{"S1", "S2"}},
				{Name: "tc-netem", Capabilities: []string{"tc-netem"}, UsedBy: []string{"S2"}, InstallHint: "apt-get install iproute2"},
			},
		},
		{
			name: "plan rows absorb the capabilities they name; others are added",
			plan: p,
			uses: map[string][]string{"S2": {"iptables", "etcd-server"}, "S4": {"sshd", "tc-netem", "compose"}, "S1": {"iptables"}},
			want: []Requirement{
				{Name: "etcd-server", Capabilities: []string{"etcd-server"}, VersionFloor: "3.5", UsedBy: []string{"S1", "S2"},
					InstallHint: "`apt-get install etcd-server`", FromPlan: true},
				{Name: "iptables (CAP_NET_ADMIN on the nodes)", Capabilities: []string{"root", "iptables"}, VersionFloor: "any",
					UsedBy: []string{"S1", "S2"}, InstallHint: "preinstalled on Debian", FromPlan: true},
				{Name: "network namespaces + sshd (faultline cluster up)", Capabilities: []string{"netns", "sshd"}, VersionFloor: "Linux 5.10",
					UsedBy: []string{"S1", "S2", "S4"}, InstallHint: "`faultline cluster up --nodes 5` (root)", FromPlan: true},
				{Name: "tenantkv compose stack", VersionFloor: "1.4", UsedBy: []string{"S3/api"},
					InstallHint: "brought up by SUT (`make up`)", BySUT: true, FromPlan: true},
				{Name: "compose", Capabilities: []string{"compose"}, UsedBy: []string{"S4"}, InstallHint: "apt-get install docker-compose-plugin"},
				{Name: "tc-netem", Capabilities: []string{"tc-netem"}, UsedBy: []string{"S4"}, InstallHint: "apt-get install iproute2"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Requirements(tt.plan, tt.uses)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Requirements:\n got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestRequirementsDoesNotAliasPlan(t *testing.T) {
	p := fixturePlan(t)
	before := append([]string(nil), p.EnvRequirements[0].UsedBy...)
	Requirements(p, map[string][]string{"S9": {"etcd-server"}})
	if !reflect.DeepEqual(p.EnvRequirements[0].UsedBy, before) {
		t.Errorf("Requirements changed the plan: UsedBy %v, want %v", p.EnvRequirements[0].UsedBy, before)
	}
}
