package nemesis

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"
)

func TestParseClockSpec(t *testing.T) {
	for _, tc := range []struct {
		name string
		v    any
		want clockSpec
		err  string
	}{
		{"bump", map[string]any{"nodes": "one", "mode": "bump", "delta": "30s"}, clockSpec{nodes: "one", mode: "bump", delta: 30 * time.Second}, ""},
		{"bump back", map[string]any{"mode": "bump", "delta": "-2s"}, clockSpec{nodes: "one", mode: "bump", delta: -2 * time.Second}, ""},
		{"bump zero", map[string]any{"mode": "bump", "delta": "0s"}, clockSpec{}, "must not be 0"},
		{"bump bad delta", map[string]any{"mode": "bump", "delta": "30"}, clockSpec{}, `delta "30"`},
		{"strobe", map[string]any{"mode": "strobe", "delta": "2s", "period": "1s"}, clockSpec{nodes: "one", mode: "strobe", delta: 2 * time.Second, period: time.Second}, ""},
		{"strobe too fast", map[string]any{"mode": "strobe", "delta": "2s", "period": "10ms"}, clockSpec{}, "at least 100ms"},
		{"skew", map[string]any{"mode": "skew", "rate": 1.05}, clockSpec{nodes: "one", mode: "skew", rate: 1.05}, ""},
		{"skew out of range", map[string]any{"mode": "skew", "rate": 2.0}, clockSpec{}, "0.9 to 1.1"},
		{"skew of 1", map[string]any{"mode": "skew", "rate": int64(1)}, clockSpec{}, "not 1"},
		{"reset", map[string]any{"mode": "reset", "nodes": []any{"n2"}}, clockSpec{mode: "reset"}, ""},
		{"unknown mode", map[string]any{"mode": "warp"}, clockSpec{}, `mode "warp"`},
		{"not a dict", "n1", clockSpec{}, "want {nodes"},
	} {
		got, err := parseClockSpec(tc.v)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: err %v, want %q", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if got.mode != tc.want.mode || got.delta != tc.want.delta || got.period != tc.want.period || got.rate != tc.want.rate {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

// TestClockHealScriptsParse: the node-side scripts are valid sh.
func TestClockHealScriptsParse(t *testing.T) {
	for name, script := range map[string]string{"stop": stopClockScript, "strobe": strobeScript, "note": clockNoteScript} {
		if err := shParses(script); err != nil {
			t.Errorf("%s script: %v", name, err)
		}
	}
}

// shParses runs sh -n on script.
func shParses(script string) error {
	out, err := exec.Command("sh", "-n", "-c", script).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%w: %s", err, out)
	}
	return nil
}

func TestNetemArgs(t *testing.T) {
	for _, tc := range []struct {
		name string
		v    map[string]any
		want string
		err  string
	}{
		{"full set", map[string]any{"delay": "10ms", "jitter": "2ms", "loss": 0.1, "reorder": 0.25, "duplicate": 0.01, "corrupt": 0.05, "rate": "1mbit"},
			"delay 10ms 2ms loss 10% reorder 25% duplicate 1% corrupt 5% rate 1mbit", ""},
		{"duplicate only", map[string]any{"duplicate": 0.2}, "duplicate 20%", ""},
		{"reorder without delay", map[string]any{"reorder": 0.5}, "", "needs a delay"},
		{"jitter without delay", map[string]any{"jitter": "5ms"}, "", "without a delay"},
		{"bad probability", map[string]any{"corrupt": 1.5}, "", "from 0 to 1"},
		{"bad time", map[string]any{"delay": "10"}, "", "times such as"},
		{"bad rate", map[string]any{"rate": "fast"}, "", "tc rate"},
		{"nothing", map[string]any{"loss": 0.0}, "", "at least one"},
	} {
		args, err := netemArgs(tc.v)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: %v, %v; want error %q", tc.name, args, err, tc.err)
			}
			continue
		}
		if err != nil || strings.Join(args, " ") != tc.want {
			t.Errorf("%s: %q, %v; want %q", tc.name, strings.Join(args, " "), err, tc.want)
		}
	}
}
