package stdlib_test

import (
	"strings"
	"testing"
)

// Keyed registers: every op names an int key, a key gets at most
// ops_per_key ops (then it retires), and rotation brings in fresh keys.
func TestRegisterKeys(t *testing.T) {
	for _, tt := range []struct {
		expr      string
		fs        string // the functions the workload may draw
		keys, per int
	}{
		{"cas_register(values = 1000, keys = 3, ops_per_key = 10)", "read write cas", 3, 10},
		{"register(keys = 2, ops_per_key = 7)", "read write", 2, 7},
		{"cas_register(keys = 1, ops_per_key = 1)", "read write cas", 1, 1},
	} {
		t.Run(tt.expr, func(t *testing.T) {
			count := map[int64]int{}
			var order []int64 // keys in order of first use
			for _, op := range invocations(t, tt.expr, 7) {
				if !strings.Contains(tt.fs, op.F) {
					t.Fatalf("op %d: unexpected f %q", op.Index, op.F)
				}
				k, ok := op.Key.(int64)
				if !ok {
					t.Fatalf("op %d: key %v (%T), want an int", op.Index, op.Key, op.Key)
				}
				if count[k] == 0 {
					order = append(order, k)
				}
				if count[k]++; count[k] > tt.per {
					t.Fatalf("op %d: key %d has %d ops, want at most %d", op.Index, k, count[k], tt.per)
				}
			}
			if len(order) <= tt.keys {
				t.Errorf("only %d keys used: keys never rotated", len(order))
			}
		})
	}
}

// Without keys every op goes to the one register (key None, or the key given).
func TestRegisterSingleKey(t *testing.T) {
	for expr, want := range map[string]any{"cas_register()": nil, `register(key = "x")`: "x"} {
		for _, op := range invocations(t, expr, 3) {
			if op.Key != want {
				t.Fatalf("%s: op %d key %v, want %v", expr, op.Index, op.Key, want)
			}
		}
	}
}

func TestRegisterKeysArgumentErrors(t *testing.T) {
	for _, tt := range []struct{ expr, want string }{
		{`cas_register(key = "x", keys = 2)`, "not both"},
		{"cas_register(keys = 0)", "keys must be a positive int"},
		{"register(keys = 2, ops_per_key = 0)", "ops_per_key must be a positive int"},
	} {
		_, err := runWorkload(t, tt.expr, 1)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want one containing %q", tt.expr, err, tt.want)
		}
	}
}
