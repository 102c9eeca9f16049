package check

import (
	"encoding/json"
	"slices"
	"testing"
)

func TestSignature(t *testing.T) {
	lin := Result{Checker: "linearizable", Valid: Invalid, Details: map[string]any{"failing_key": int64(36)}}
	txn := Result{Checker: "transactional", Valid: Invalid, Details: map[string]any{"anomaly_types": []string{"G1c", "G-single"}}}
	tests := []struct {
		name string
		r    Result
		want []string
	}{
		{"valid", Result{Checker: "linearizable", Valid: Valid}, nil},
		{"unknown", Result{Checker: "linearizable", Valid: Unknown}, nil},
		{"linearizable", lin, []string{"linearizable key=36"}},
		{"txn", txn, []string{"G-single", "G1c"}},
		{"set", Result{Checker: "set", Valid: Invalid}, []string{"set"}},
		{"compose", Result{Checker: "compose", Valid: Invalid, Children: []Result{lin, {Checker: "stats", Valid: Valid}, txn}},
			[]string{"G-single", "G1c", "linearizable key=36"}},
	}
	for _, tt := range tests {
		if got := Signature(tt.r); !slices.Equal(got, tt.want) {
			t.Errorf("%s: Signature = %q, want %q", tt.name, got, tt.want)
		}
		// The same after a trip through checker.json.
		data, err := json.Marshal(tt.r)
		if err != nil {
			t.Fatal(err)
		}
		var back Result
		if err := json.Unmarshal(data, &back); err != nil {
			t.Fatal(err)
		}
		if got := Signature(back); !slices.Equal(got, tt.want) {
			t.Errorf("%s from JSON: Signature = %q, want %q", tt.name, got, tt.want)
		}
	}
}
