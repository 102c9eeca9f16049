package check

import (
	"strings"
	"testing"

	"github.com/faultline/faultline/internal/testhist"
)

func TestStats(t *testing.T) {
	tests := []struct {
		name     string
		h        []string
		want     Validity
		consumed Consumed
		summary  string
	}{
		{"every function succeeded", []string{
			"0 :invoke :read nil", "0 :ok :read 1", "1 :invoke :write 1", "1 :ok :write 1",
			"0 :invoke :read nil", "0 :fail :read :timed-out", "1 :invoke :write 2", "1 :info :write :timed-out",
		}, Valid, Consumed{Ops: 4}, "4 completions: read 1 ok/1 fail/0 info; write 1 ok/0 fail/1 info"},
		{"cas never succeeded", []string{
			"0 :invoke :read nil", "0 :ok :read 1", "1 :invoke :cas [1 2]", "1 :fail :cas [1 2]",
			"1 :invoke :cas [1 2]", "1 :info :cas :timed-out",
		}, Valid, Consumed{Ops: 3}, "3 completions: cas 0 ok/1 fail/1 info; read 1 ok/0 fail/0 info; no successful cas"},
		{"nemesis and open invocations are not counted", []string{
			":nemesis :info :start nil", ":nemesis :info :start nil",
			"0 :invoke :read nil", "0 :ok :read 1", "1 :invoke :write 3",
		}, Valid, Consumed{Ops: 1}, "1 completions: read 1 ok/0 fail/0 info"},
		{"no operations", []string{":nemesis :info :start nil", "0 :invoke :read nil"}, Unknown, Consumed{}, "nothing to check: no operations"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := run(t, Stats(), testhist.JepsenLog(t, tt.h...))
			if res.Valid != tt.want || res.Consumed != tt.consumed || !strings.HasPrefix(res.Summary, tt.summary) {
				t.Fatalf("got %s %+v %q, want %s %+v %q", res.Valid, res.Consumed, res.Summary, tt.want, tt.consumed, tt.summary)
			}
			if res.Checker != "stats" || len(res.BlindSpots) == 0 {
				t.Errorf("checker %q, blind spots %v", res.Checker, res.BlindSpots)
			}
			if strings.Contains(res.Summary, "no successful") && !strings.Contains(res.Explanation, "never completed ok") {
				t.Errorf("explanation: %s", res.Explanation)
			}
		})
	}
}

func TestStatsDetailsAndKeys(t *testing.T) {
	h := testhist.EDN(t,
		`{:process 0, :type :invoke, :f :put, :key "a", :value 1}`,
		`{:process 0, :type :ok, :f :put, :key "a", :value 1}`,
		`{:process 0, :type :invoke, :f :put, :key :b, :value 1}`,
		`{:process 0, :type :fail, :f :put, :key :b, :value 1}`,
	)
	res := run(t, Stats(), h)
	if res.Consumed != (Consumed{Ops: 2, Keys: 2}) {
		t.Errorf("consumed %+v", res.Consumed)
	}
	put, _ := res.Details["by_f"].(map[string]any)["put"].(map[string]any)
	if put["ok"] != 1 || put["fail"] != 1 || put["info"] != 0 {
		t.Errorf("by_f %v", res.Details["by_f"])
	}
}
