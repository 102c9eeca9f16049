package check

import (
	"testing"
)

func TestFairness(t *testing.T) {
	zero := 0.0
	c, err := Fairness(FairnessOptions{Group: "tenant", MaxP99Ratio: 2, MinThroughput: 50, MaxErrorRate: &zero})
	if err != nil {
		t.Fatal(err)
	}
	cat := func(parts ...[]string) []string {
		var out []string
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	a := func(lat int64, typ string) []string { return series(0, 10, "read", 0, lat, typ, `:tenant "a"`) }
	b := func(lat int64, typ string) []string { return series(1, 10, "read", 0, lat, typ, `:tenant "b"`) }
	runVerdicts(t, c, []verdictCase{
		{"fair", cat(a(5, "ok"), b(6, "ok")), Valid, 20, "2 groups: worst p99 b is 1.00x aggregate"},
		{"one slow tenant", cat(series(0, 100, "read", 0, 1, "ok", `:tenant "a"`), series(1, 100, "read", 0, 1, "ok", `:tenant "b"`),
			series(2, 1, "read", 0, 90, "ok", `:tenant "c"`)), Invalid, 201, "group c: p99 90ms is 90.00x the aggregate p99 1ms"},
		{"errors in one group", cat(a(5, "ok"), b(5, "fail")), Invalid, 20, "group b: error rate 1.0000 > 0"},
		{"one group", a(5, "ok"), Unknown, 10, "needs two groups"},
		{"no group", series(0, 2, "read", 0, 5, "ok", ""), Unknown, 0, "2 ungrouped"},
		{"no times", []string{`{:process 0 :type :invoke :f :read :tenant 1}`, `{:process 0 :type :ok :f :read :tenant 1}`}, Unknown, 1, "carry no times"},
	})
	byKey, _ := Fairness(FairnessOptions{MinThroughput: 150})
	runVerdicts(t, byKey, []verdictCase{
		{"slow shard by key", cat(series(0, 10, "read", 0, 5, "ok", ":key :x"), series(1, 2, "read", 0, 5, "ok", ":key :y")),
			Invalid, 12, "group y: throughput 21.05 ok ops/s < 150 over 95ms"},
	})
	rep, _ := Fairness(FairnessOptions{Group: "tenant", Repeat: "run", MaxSpread: 0.5})
	runVerdicts(t, rep, []verdictCase{
		{"repeats disagree", cat(series(0, 5, "read", 0, 5, "ok", `:tenant "a" :run 1`), series(1, 5, "read", 0, 20, "ok", `:tenant "b" :run 2`)),
			Invalid, 10, "repeat p99 spread 3.00 > 0.5"},
		{"one repeat", cat(series(0, 5, "read", 0, 5, "ok", `:tenant "a" :run 1`), series(1, 5, "read", 0, 5, "ok", `:tenant "b" :run 1`)),
			Unknown, 10, "needs two repeats"},
	})
	for _, o := range []FairnessOptions{{}, {MaxSpread: 1}, {MaxErrorRate: new(-1.0)}} {
		if _, err := Fairness(o); err == nil {
			t.Errorf("Fairness(%+v): no error", o)
		}
	}
	if got := c.(fairness).String(); got != `check.fairness(group="tenant", max_p99_ratio=2, min_throughput=50, max_error_rate=0)` {
		t.Errorf("String() = %s", got)
	}
}
