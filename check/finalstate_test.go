package check

import (
	"errors"
	"testing"
)

func TestFinalState(t *testing.T) {
	// The invariant: balance x never negative.
	nonNegative := func(state any) (bool, string, error) {
		m, ok := state.(map[string]any)
		if !ok {
			return false, "", errors.New("not a map")
		}
		n, _ := asInt(m["x"])
		if n < 0 {
			return false, "x is negative", nil
		}
		return true, "", nil
	}
	c, err := FinalState(FinalStateOptions{Predicate: nonNegative, Description: "non_negative"})
	if err != nil {
		t.Fatal(err)
	}
	dump := func(v string) []string {
		return []string{`{:process 9 :type :invoke :f :dump}`, `{:process 9 :type :ok :f :dump :value ` + v + `}`}
	}
	runVerdicts(t, c, []verdictCase{
		{"holds", dump(`{:x 3}`), Valid, 1, "satisfies check.final_state(non_negative"},
		{"violated", dump(`{:x -1}`), Invalid, 1, "violates the invariant: x is negative"},
		{"predicate error", dump(`[1]`), Unknown, 1, "the predicate failed: not a map"},
		{"not quiescent", []string{`{:process 9 :type :invoke :f :dump}`, `{:process 0 :type :invoke :f :write :value 1}`,
			`{:process 0 :type :ok :f :write :value 1}`, `{:process 9 :type :ok :f :dump :value {:x 1}}`}, Unknown, 1, "not taken at quiescence"},
		{"no dump", []string{`{:process 0 :type :invoke :f :write :value 1}`, `{:process 0 :type :ok :f :write :value 1}`}, Unknown, 0, "no ok :dump"},
	})
	if _, err := FinalState(FinalStateOptions{}); err == nil {
		t.Error("FinalState without a predicate: no error")
	}
}

func TestReplicas(t *testing.T) {
	dump := func(p, node, v string) []string {
		return []string{`{:process ` + p + ` :type :invoke :f :dump :node "` + node + `"}`,
			`{:process ` + p + ` :type :ok :f :dump :node "` + node + `" :value ` + v + `}`}
	}
	cat := func(parts ...[]string) []string {
		var out []string
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	runVerdicts(t, Replicas(ReplicasOptions{}), []verdictCase{
		{"equal", cat(dump("0", "n1", `{:x 1 :y 2}`), dump("1", "n2", `{:y 2.0 :x 1}`)), Valid, 2, "2 replicas (n1, n2) hold equal final states"},
		{"diverged", cat(dump("0", "n1", `{:x 1 :y 2}`), dump("1", "n2", `{:x 1 :y 3}`), dump("2", "n3", `{:x 1}`)),
			Invalid, 3, "n1 vs n2: 1 keys differ: y 2/3"},
		{"missing key", cat(dump("0", "n1", `{:x 1 :y 2}`), dump("1", "n3", `{:x 1}`)), Invalid, 2, "y 2/absent"},
		{"last dump per node wins", cat(dump("0", "n1", `[1]`), dump("1", "n2", `[2]`), dump("1", "n2", `[1]`)), Valid, 2, "equal"},
		{"one replica", dump("0", "n1", `[1]`), Unknown, 1, "reconciliation needs two"},
		{"no node", []string{`{:process 0 :type :invoke :f :dump}`, `{:process 0 :type :ok :f :dump :value 1}`}, Unknown, 0, "1 without a node"},
	})
}
