package nemesis

import (
	"testing"
)

const delayChainOut = `1
Chain FAULTLINE-DELAY (1 references)
    pkts      bytes target     prot opt in     out     source               destination
      12      720 NFQUEUE    0    --  *      *       0.0.0.0/0            0.0.0.0/0            NFQUEUE num 64023 bypass
`

func TestParseDelayState(t *testing.T) {
	stats := `stats {"pid":31,"running":true,"seen":12,"delayed":11,"held":1,"mean_delay_ns":100500000,"max_delay_ns":101000000}`
	tests := []struct {
		name     string
		in       string
		ok       bool
		recorded bool
		inEffect bool
	}{
		{"none", "agent none\n", true, false, false},
		{"in effect", "agent 31 alive\n" + stats + "\n" + delayChainOut, true, true, true},
		{"agent dead", "agent 31 dead\n" + stats + "\n" + delayChainOut, true, true, false},
		{"stats of another pid", "agent 32 alive\n" + stats + "\n" + delayChainOut, true, true, false},
		{"no stats yet", "agent 31 alive\nstats none\n" + delayChainOut, true, true, false},
		{"rule gone", "agent 31 alive\n" + stats + "\n1\nChain FAULTLINE-DELAY (1 references)\n", true, true, false},
		{"no jump", "agent 31 alive\n" + stats + "\n0\n" + delayChainOut[2:], true, true, false},
		{"bad agent line", "agent x alive\n", false, false, false},
		{"bad agent state", "agent 31 sleeping\n", false, false, false},
		{"missing stats line", "agent 31 alive\n1\n", false, false, false},
		{"bad stats", "agent 31 alive\nstats {\n1\n", false, false, false},
		{"missing chain", "agent 31 alive\nstats none\n", false, false, false},
		{"empty", "", false, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, err := parseDelayState(tt.in)
			if (err == nil) != tt.ok {
				t.Fatalf("err = %v, want ok %v", err, tt.ok)
			}
			if err != nil {
				return
			}
			if st.Recorded != tt.recorded || st.inEffect() != tt.inEffect {
				t.Errorf("recorded %v in effect %v, want %v %v (%+v)", st.Recorded, st.inEffect(), tt.recorded, tt.inEffect, st)
			}
			if st.Recorded {
				if ev := st.evidence(); ev["agent_pid"] != int64(st.PID) {
					t.Errorf("evidence %v", ev)
				}
			}
		})
	}
	st, _ := parseDelayState("agent 31 alive\n" + stats + "\n" + delayChainOut)
	ev := st.evidence()
	if ev["queued_packets"] != int64(12) || ev["delayed"] != int64(11) || ev["mean_delay_ms"] != 100.5 {
		t.Errorf("evidence %v: want 12 queued, 11 delayed, mean 100.5ms", ev)
	}
}

func TestAgentCanDelay(t *testing.T) {
	yes := map[string]Capability{"n1": {NFQueue: "yes"}, "n2": {NFQueue: "yes"}}
	tests := []struct {
		name          string
		caps          map[string]Capability
		delay, jitter string
		ok            bool
	}{
		{"all have nfqueue", yes, "50ms", "5ms", true},
		{"no jitter", yes, "1s", "", true},
		{"one without", map[string]Capability{"n1": {NFQueue: "yes"}, "n2": {NFQueue: "no"}}, "50ms", "", false},
		{"tc time Go cannot read", yes, "50", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, _, ok := agentCanDelay(tt.caps, []string{"n1", "n2"}, tt.delay, tt.jitter); ok != tt.ok {
				t.Errorf("ok = %v, want %v", ok, tt.ok)
			}
		})
	}
}

func FuzzParseDelayState(f *testing.F) {
	f.Add("agent none\n")
	f.Add("agent 31 alive\nstats {\"pid\":31}\n" + delayChainOut)
	f.Fuzz(func(t *testing.T, s string) {
		st, err := parseDelayState(s)
		if err == nil {
			_ = st.evidence()
			_ = st.inEffect()
		}
	})
}
