package session

import (
	"strings"
	"testing"

	"github.com/faultline/faultline/check"
	"github.com/faultline/faultline/verdict"
)

func TestCompareAnomalies(t *testing.T) {
	for _, tt := range []struct {
		name     string
		was, now []string
		want     anomalyMatch
	}{
		{"none found", []string{"linearizable key=1"}, nil, matchNone},
		{"new", nil, []string{"G1c"}, matchNew},
		{"same key", []string{"linearizable key=1"}, []string{"linearizable key=1"}, matchSame},
		{"one of several", []string{"G1c", "G-single"}, []string{"G-single"}, matchSame},
		{"other key", []string{"linearizable key=1"}, []string{"linearizable key=2"}, matchSameClass},
		{"other anomaly", []string{"G1c"}, []string{"G-single"}, matchDifferent},
		{"other checker", []string{"linearizable key=1"}, []string{"no-lost-ack"}, matchDifferent},
	} {
		if got := compareAnomalies(tt.was, tt.now); got != tt.want {
			t.Errorf("%s: compareAnomalies(%q, %q) = %d, want %d", tt.name, tt.was, tt.now, got, tt.want)
		}
	}
}

// A re-run that finds a violation again is told apart from the original's
// by its anomalies: the same one is "invalid again"; another one is "a
// violation again, a different one" and counted as such.
func TestRerunLine(t *testing.T) {
	lin := func(key string) check.Result {
		return check.Result{Checker: "linearizable", Valid: check.Invalid, Summary: "not linearizable on key " + key,
			Details: map[string]any{"failing_key": key}}
	}
	elle := func(types ...string) check.Result {
		return check.Result{Checker: "transactional", Valid: check.Invalid, Summary: "invalid: " + strings.Join(types, ", "),
			Details: map[string]any{"anomaly_types": types}}
	}
	compose := func(children ...check.Result) check.Result {
		return check.Result{Checker: "compose", Valid: check.Invalid, Summary: "invalid: one child invalid", Children: children}
	}
	for _, tt := range []struct {
		name        string
		orig, rerun check.Result
		want        string
		different   int
	}{
		{"same violation", lin("1"), lin("1"), "artifacts/S1-rerun1: invalid again: not linearizable on key 1", 0},
		{"same anomaly, other key", lin("1"), lin("2"), "invalid again, the same anomaly on other keys (linearizable key=2; the original: linearizable key=1)", 0},
		{"different anomaly", elle("G1c"), elle("G-single"), "a violation again, a different one (G-single; the original: G1c): invalid: G-single", 1},
		{"different checker under compose", compose(lin("1"), check.Result{Checker: "stats", Valid: check.Valid}),
			compose(check.Result{Checker: "linearizable", Valid: check.Valid}, check.Result{Checker: "no-lost-ack", Valid: check.Invalid, Summary: "2 acked writes lost"}),
			"a violation again, a different one (no-lost-ack; the original: linearizable key=1): 2 acked writes lost", 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var r verdict.Reruns
			got := rerunLine("S1-rerun1", check.Signature(tt.orig), tt.rerun, &r)
			if !strings.Contains(got, tt.want) || r.Different != tt.different {
				t.Errorf("got %q (different %d), want %q (different %d)", got, r.Different, tt.want, tt.different)
			}
		})
	}
}

// A replay names each run by its verdict and finding, never by the
// checker's name alone.
func TestRunVerdict(t *testing.T) {
	for _, tt := range []struct {
		r    check.Result
		want string
	}{
		{check.Result{Checker: "linearizable", Valid: check.Invalid, Summary: "not linearizable on key 1", Details: map[string]any{"failing_key": "1"}},
			"invalid: not linearizable on key 1 (anomalies: linearizable key=1)"},
		{check.Result{Checker: "compose", Valid: check.Invalid, Summary: "invalid: linearizable invalid, stats valid", Children: []check.Result{
			{Checker: "linearizable", Valid: check.Invalid, Summary: "not linearizable: op #3"}, {Checker: "stats", Valid: check.Valid}}},
			"invalid: not linearizable: op #3 (anomalies: linearizable)"},
		{check.Result{Checker: "linearizable", Valid: check.Valid, Summary: "linearizable over 40 ops"}, "valid: linearizable over 40 ops"},
		{check.Result{Checker: "linearizable", Valid: check.Unknown, Summary: "unknown: timed out"}, "unknown: timed out"},
		{check.Result{}, "not checked"},
	} {
		if got := runVerdict(tt.r); got != tt.want {
			t.Errorf("runVerdict = %q, want %q", got, tt.want)
		}
	}
}
