package history

import (
	goldenfile "github.com/faultline/faultline/internal/golden"
	"math"
	"path/filepath"
	"reflect"
	"testing"
)

// fixtureOps covers every field and every kind of value the model has.
func fixtureOps() []Op {
	return []Op{
		{Index: 0, Time: 0, Process: 0, Type: Invoke, F: "read"},
		{Index: 1, Time: 1500, Process: 0, Type: OK, F: "read", Value: int64(3), Node: "n1"},
		{Index: 2, Time: 2000, Process: 3, Type: Invoke, F: "cas", Key: "k1", Value: []any{int64(1), int64(2)}, FaultEpoch: 4},
		{Index: 3, Time: 2500, Process: 3, Type: Info, F: "cas", Key: "k1", Value: []any{int64(1), int64(2)},
			Error: Keyword("timed-out"), Node: "n2", FaultEpoch: 4},
		{Index: 4, Time: 3000, Process: NemesisProcess, Type: Info, F: "start-partition",
			Value: map[string]any{"n1": []any{"n2", "n3"}, "n2": []any{"n1"}},
			Extra: map[string]any{"evidence": map[string]any{"drops": int64(12), "ok": true}, "clock-offsets": nil}},
		{Index: 5, Time: 3500, Process: 7, Type: OK, F: "txn",
			Value: []any{[]any{Keyword("append"), int64(5), int64(1)}, []any{Keyword("r"), int64(5), []any{int64(1), int64(2)}}}},
		{Index: 6, Time: 4000, Process: 8, Type: Fail, F: "add", Value: Set{int64(1), "two", 3.5},
			Error: []any{Keyword("duplicate-key"), "etcdserver: \"dup\"\n\ttab \u00e9 \U0001F600 \x01"}},
		{Index: 7, Time: 4500, Process: 9, Type: OK, F: "weird f", Value: []any{1e21, 1e-7, -0.5, 2.0, math.Inf(1), math.NaN()}},
		{Index: 8, Time: 5000, Process: 10, Type: OK, F: "", Value: []any{false, nil, map[string]any{}, []any{}, Set{}},
			Extra: map[string]any{"needs quoting": "x", "debug": Keyword("jepsen.db/setup")}},
	}
}

// equalValues is reflect.DeepEqual except that NaN equals NaN.
func equalValues(a, b any) bool {
	switch a := a.(type) {
	case float64:
		b, ok := b.(float64)
		return ok && (a == b || math.IsNaN(a) && math.IsNaN(b))
	case []any:
		b, ok := b.([]any)
		return ok && equalSlices(a, b)
	case Set:
		b, ok := b.(Set)
		return ok && equalSlices(a, b)
	case map[string]any:
		b, ok := b.(map[string]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for k, v := range a {
			if w, ok := b[k]; !ok || !equalValues(v, w) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(a, b)
}

func equalSlices(a, b []any) bool {
	if len(a) != len(b) || (a == nil) != (b == nil) {
		return false
	}
	for i := range a {
		if !equalValues(a[i], b[i]) {
			return false
		}
	}
	return true
}

func equalOp(a, b Op) bool {
	return a.Index == b.Index && a.Time == b.Time && a.Process == b.Process && a.Type == b.Type &&
		a.F == b.F && a.Node == b.Node && a.FaultEpoch == b.FaultEpoch &&
		equalValues(a.Key, b.Key) && equalValues(a.Value, b.Value) && equalValues(a.Error, b.Error) &&
		(a.Extra == nil) == (b.Extra == nil) && equalValues(a.Extra, b.Extra)
}

// assertSameOps fails the test at the first op that differs.
func assertSameOps(t testing.TB, got, want []Op) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d ops, want %d", len(got), len(want))
	}
	for i := range got {
		if !equalOp(got[i], want[i]) {
			t.Fatalf("op %d differs:\n got %#v\nwant %#v", i, got[i], want[i])
		}
	}
}

// jsonView is what a value becomes after a trip through JSON: keywords are
// strings, sets arrays, non-finite floats strings.
func jsonView(v any) any {
	switch v := v.(type) {
	case Keyword:
		return string(v)
	case float64:
		switch {
		case math.IsNaN(v):
			return "NaN"
		case math.IsInf(v, 1):
			return "+Inf"
		case math.IsInf(v, -1):
			return "-Inf"
		}
		return v
	case Set:
		return jsonView([]any(v))
	case []any:
		out := make([]any, len(v))
		for i := range v {
			out[i] = jsonView(v[i])
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = jsonView(x)
		}
		return out
	}
	return v
}

// jsonViewOps applies jsonView to every value of every op.
func jsonViewOps(ops []Op) []Op {
	out := make([]Op, len(ops))
	for i, op := range ops {
		op.Key, op.Value, op.Error = jsonView(op.Key), jsonView(op.Value), jsonView(op.Error)
		if op.Extra != nil {
			op.Extra = jsonView(op.Extra).(map[string]any)
		}
		out[i] = op
	}
	return out
}

// golden compares got with testdata/name, or rewrites it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", name), got)
}

func posInf() float64 { return math.Inf(1) }
func negInf() float64 { return math.Inf(-1) }
func nan() float64    { return math.NaN() }
