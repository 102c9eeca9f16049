package plans

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/faultline/faultline/interp"
)

// clockNetemClauses are Faults clauses naming clock and netem faults and
// the call each compiles to.
var clockNetemClauses = []struct{ text, want string }{
	// Clock: the mode from the words, the offset, period or rate from the
	// numbers, the builtin's defaults for the rest, one node by default.
	{"clock skew", `nemesis.clock(nodes = "one", mode = "skew", rate = 1.05, repeat = False)`},
	{"clock bump +30s on the leader at T+10s for 20s", `nemesis.clock(nodes = "primaries", mode = "bump", delta = "30s", start = "10s", hold = "20s", repeat = False)`},
	{"clock skew of 500ms on a minority", `nemesis.clock(nodes = "minority", mode = "bump", delta = "500ms", repeat = False)`},
	{"clock jump back 5s on one node", `nemesis.clock(nodes = "one", mode = "bump", delta = "-5s", repeat = False)`},
	{"clock bump -2 s", `nemesis.clock(nodes = "one", mode = "bump", delta = "-2s", repeat = False)`},
	{"clock jump", `nemesis.clock(nodes = "one", mode = "bump", delta = "30s", repeat = False)`},
	{"clock strobe", `nemesis.clock(nodes = "one", mode = "strobe", delta = "30s", period = "1s", repeat = False)`},
	{"clock strobe of 200ms with period 500ms on all nodes every 2 min", `nemesis.clock(nodes = "all", mode = "strobe", delta = "200ms", period = "500ms", interval = "2m")`},
	{"strobing clock, 1s by a 3s period", `nemesis.clock(nodes = "one", mode = "strobe", delta = "1s", period = "3s", repeat = False)`},
	{"time drift at rate 1.1", `nemesis.clock(nodes = "one", mode = "skew", rate = 1.1, repeat = False)`},
	{"clock runs 5% slow on the leader for 1 min", `nemesis.clock(nodes = "primaries", mode = "skew", rate = 0.95, hold = "1m", repeat = False)`},
	{"clock drift", `nemesis.clock(nodes = "one", mode = "skew", rate = 1.05, repeat = False)`},
	{"clock reset on all nodes", `nemesis.clock(nodes = "all", mode = "reset", repeat = False)`},
	// Netem: what only netem does, each parameter where the clause names
	// it, every node by default.
	{"packet reordering", `nemesis.netem(nodes = "all", delay = "50ms", reorder = 0.25, repeat = False)`},
	{"reorder 10% of packets with delay 20ms on the leader", `nemesis.netem(nodes = "primaries", delay = "20ms", reorder = 0.1, repeat = False)`},
	{"duplicate packets 5%", `nemesis.netem(nodes = "all", duplicate = 0.05, repeat = False)`},
	{"packet duplication on a minority for 30s", `nemesis.netem(nodes = "minority", duplicate = 0.1, hold = "30s", repeat = False)`},
	{"corrupt packets", `nemesis.netem(nodes = "all", corrupt = 0.01, repeat = False)`},
	{"2% packet corruption on one node", `nemesis.netem(nodes = "one", corrupt = 0.02, repeat = False)`},
	{"jitter", `nemesis.netem(nodes = "all", delay = "50ms", jitter = "10ms", repeat = False)`},
	{"latency of 100ms ± 20ms on one node", `nemesis.netem(nodes = "one", delay = "100ms", jitter = "20ms", repeat = False)`},
	{"rate limit 1mbit", `nemesis.netem(nodes = "all", rate = "1mbit", repeat = False)`},
	{"10 Mbit/s rate limit on the leader", `nemesis.netem(nodes = "primaries", rate = "10mbit", repeat = False)`},
	{"500 ms latency for 20 s at T+30s (tc netem)", `nemesis.netem(nodes = "all", delay = "500ms", start = "30s", hold = "20s", repeat = False)`},
	{"packet loss 10% and 5% duplicate packets on one node", `nemesis.netem(nodes = "one", loss = 0.1, duplicate = 0.05, repeat = False)`},
	{"netem delay 50ms jitter 5ms, reorder 25%, duplicate 1%, corrupt 0.1%, loss 2%, rate 512kbit",
		`nemesis.netem(nodes = "all", delay = "50ms", jitter = "5ms", loss = 0.02, reorder = 0.25, duplicate = 0.01, corrupt = 0.001, rate = "512kbit", repeat = False)`},
	// Plain packet loss stays the loss fault.
	{"packet loss 30%", `nemesis.loss(nodes = "all", probability = 0.3, repeat = False)`},
}

func TestCompileClockNetemFaults(t *testing.T) {
	for _, tt := range clockNetemClauses {
		t.Run(tt.text, func(t *testing.T) {
			c, ds := compileUnit(t, unitPlan{faults: tt.text})
			wantIn(t, c, "nemesis = "+tt.want+",")
			if ds = withoutBeyondTier(ds); len(ds) != 0 {
				t.Errorf("unexpected diagnostics:\n%s", diagStrings(ds))
			}
		})
	}
}

// Every clock and netem clause compiles to a scenario that loads: the
// arguments are the builtins' and the values pass the nemesis' own checks.
func TestClockNetemPlansLoad(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "faultline.star"), []byte(loadSuite), 0o644); err != nil {
		t.Fatal(err)
	}
	for i, tt := range clockNetemClauses {
		c, _ := compileUnit(t, unitPlan{faults: tt.text})
		file := filepath.Join(dir, strings.TrimSuffix(c.File, ".star")+string(rune('a'+i%26))+".star")
		if err := os.WriteFile(file, []byte(c.Source), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := interp.Load(context.Background(), file, interp.LoadOptions{Seed: 1}); err != nil {
			t.Errorf("%q: the compiled scenario does not load: %v\n%s", tt.text, err, c.Source)
		}
	}
}

// A clock or netem clause whose parameters the fault would refuse is a
// lint error at the Faults line, saying what is wrong.
func TestLintFaultParams(t *testing.T) {
	tests := []struct{ faults, msg string }{
		{"time drift at rate 2", "want the clock's speed from 0.9 to 1.1"},
		{"clock strobe with period 50ms", "a period of at least 100ms"},
		{"clock bump 0s on one node", "delta must not be 0"},
		{"duplicate packets 150%", "netem duplicate: 1.5, want a probability from 0 to 1"},
		{"tc netem on one node", "give at least one of delay"},
		{"packet reordering 25% with delay 50ms and rate limit 3 parsecs", ""}, // a rate it cannot read is the default: no error
	}
	for _, tt := range tests {
		t.Run(tt.faults, func(t *testing.T) {
			var got []Diagnostic
			for _, d := range lintSource(unitPlan{faults: tt.faults}.source()) {
				if d.Rule == "fault-params" {
					got = append(got, d)
				}
			}
			if tt.msg == "" {
				if len(got) != 0 {
					t.Fatalf("want no fault-params diagnostic, got:\n%s", diagStrings(got))
				}
				return
			}
			if len(got) != 1 {
				t.Fatalf("want one fault-params diagnostic, got:\n%s", diagStrings(got))
			}
			d := got[0]
			if d.Severity != Error || d.Pos.File != "mini.md" || d.Pos.Line != 8 || d.Field != FieldFaults || !strings.Contains(d.Msg, tt.msg) || d.Fix == "" {
				t.Errorf("got %s at %s, want an error at line 8 containing %q", d, d.Pos, tt.msg)
			}
		})
	}
}
