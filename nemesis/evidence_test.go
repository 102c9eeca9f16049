package nemesis

import (
	"strings"
	"testing"

	"github.com/faultline/faultline/history"
)

func TestEvaluate(t *testing.T) {
	nem := func(typ history.Type, f string, extra map[string]any) history.Op {
		return history.Op{Process: history.NemesisProcess, Type: typ, F: f, Extra: extra}
	}
	cli := func(typ history.Type) history.Op {
		return history.Op{Process: 0, Type: typ, F: "read", Error: "connection refused"}
	}
	// A cas refused by the data (register and etcd mark it fail with no
	// error): an ordinary outcome, never a sign of the fault.
	refused := history.Op{Process: 1, Type: history.Fail, F: "cas"}
	drops := map[string]any{"evidence": map[string]any{"n1": map[string]any{"drops": int64(7)}, "n2": map[string]any{"drops": int64(0)}}, "landed": true}
	paused := map[string]any{"evidence": map[string]any{"n1": map[string]any{"pids": map[string]any{"12": "T", "13": "S"}}}, "landed": false}
	ops := []history.Op{
		cli(history.Fail), // before any fault
		nem(history.Invoke, "start-partition", nil), nem(history.OK, "start-partition", map[string]any{"landed": true}),
		cli(history.Info), cli(history.OK), cli(history.Fail), refused,
		nem(history.Invoke, "stop-partition", nil), nem(history.OK, "stop-partition", drops),
		cli(history.Fail),
		nem(history.Invoke, "pause", nil), nem(history.OK, "pause", paused),
	}
	for i := range ops {
		ops[i].Index, ops[i].Time = int64(i), int64(i)
	}
	tests := []struct {
		decl Decl
		pass bool
		ev   string
	}{
		{Decl{Kind: "iptables_drops", Min: 1}, true, "7 packets dropped (want >= 1): start-partition at T+0s 7"},
		{Decl{Kind: "iptables_drops", Min: 8}, false, "7 packets"},
		{Decl{Kind: "op_errors", Min: 2, DuringFault: true}, true, "2 client ops failed or timed out during faults"},
		{Decl{Kind: "op_errors", Min: 5, DuringFault: false}, false, "4 client ops failed or timed out in the run"},
		{Decl{Kind: "process_state", Min: 1, State: "T"}, true, "1 processes read back in state T"},
		{Decl{Kind: "process_state", Min: 1, State: "gone"}, false, "0 processes"},
		// Plans say "stopped" for a paused process, which /proc reads as T.
		{Decl{Kind: "process_state", Min: 1, State: "stopped"}, true, "1 processes read back in state stopped"},
		{Decl{Kind: "landed"}, false, "1 of 2 faults landed: pause at T+0s: the read-back on the victims after inject did not show the fault in effect"},
	}
	for _, tt := range tests {
		f := Evaluate([]*Decl{&tt.decl}, ops)[0]
		if f.Pass != tt.pass || !strings.HasPrefix(f.Evidence, tt.ev) {
			t.Errorf("%s: pass=%v %q; want pass=%v %q", f.Decl, f.Pass, f.Evidence, tt.pass, tt.ev)
		}
	}
	ws := FaultWindows(ops)
	if len(ws) != 2 || ws[0].Fault != "start-partition" || ws[0].ClientFail != 1 || ws[0].ClientInfo != 1 || ws[0].ClientOK != 1 || ws[0].ClientRefused != 1 ||
		!ws[0].Proven || ws[0].Effect == nil || *ws[0].Effect != 7 ||
		ws[1].Fault != "pause" || ws[1].End != -1 || ws[1].Landed || ws[1].Proven {
		t.Errorf("windows %+v", ws)
	}
	if f := Evaluate([]*Decl{{Kind: "landed"}}, nil)[0]; f.Pass {
		t.Errorf("landed with no faults must fail: %+v", f)
	}
}
