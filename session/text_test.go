package session

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/faultline/faultline/nemesis"
)

// TestWriteHealReport: a node heal could not reach or left unclean reads
// "NOT healed" with the reason, never "nothing to remove".
func TestWriteHealReport(t *testing.T) {
	unreachable := &nemesis.NodeHealError{Node: "n2", Err: errors.New("dial: no route to host")}
	remain := &nemesis.NodeHealError{Node: "n3", Err: errors.New("faultline rules remain after heal (left 1)")}
	tests := []struct {
		name string
		rep  nemesis.HealReport
		err  error
		want string
	}{
		{"all clean", nemesis.HealReport{"n1": nil, "n2": {"qdisc eth0"}}, nil,
			"n1: nothing to remove\nn2: removed qdisc eth0\n"},
		{"unreachable node", nemesis.HealReport{"n1": nil, "n2": nil}, errors.Join(unreachable),
			"n1: nothing to remove\nn2: NOT healed: dial: no route to host\n"},
		{"node missing from the report", nemesis.HealReport{"n1": nil}, fmt.Errorf("heal: %w", errors.Join(unreachable, remain)),
			"n1: nothing to remove\nn2: NOT healed: dial: no route to host\nn3: NOT healed: faultline rules remain after heal (left 1)\n"},
		{"partly healed", nemesis.HealReport{"n3": {"iptables: chain FAULTLINE"}}, errors.Join(remain),
			"n3: NOT healed: faultline rules remain after heal (left 1) (removed iptables: chain FAULTLINE)\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			WriteHealReport(&b, tt.rep, tt.err)
			if b.String() != tt.want {
				t.Errorf("got\n%s\nwant\n%s", b.String(), tt.want)
			}
		})
	}
}
