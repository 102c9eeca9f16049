package history

import (
	"math"
	"testing"
)

func TestEqual(t *testing.T) {
	cases := []struct {
		a, b any
		want bool
	}{
		{nil, nil, true},
		{nil, int64(0), false},
		{int64(1), int64(1), true},
		{int64(1), float64(1), true},
		{float64(1.5), int64(1), false},
		{1, int64(1), true},
		{"a", Keyword("a"), true},
		{Keyword("a"), "a", true},
		{Keyword("a"), Keyword("b"), false},
		{"1", int64(1), false},
		{true, true, true},
		{true, int64(1), false},
		{[]any{int64(1), "x"}, []any{float64(1), Keyword("x")}, true},
		{[]any{int64(1)}, []any{int64(1), int64(2)}, false},
		{Set{int64(1), int64(2)}, Set{int64(2), int64(1)}, true},
		{Set{int64(1)}, []any{int64(1)}, false},
		{map[string]any{"x": int64(0)}, map[string]any{"x": float64(0)}, true},
		{map[string]any{"x": int64(0)}, map[string]any{"y": int64(0)}, false},
		{math.NaN(), math.NaN(), false}, // as in Go and Jepsen: NaN equals nothing
	}
	for _, c := range cases {
		if got := Equal(c.a, c.b); got != c.want {
			t.Errorf("Equal(%#v, %#v) = %v, want %v", c.a, c.b, got, c.want)
		}
		if got := Equal(c.b, c.a); got != c.want {
			t.Errorf("Equal(%#v, %#v) = %v, want %v (not symmetric)", c.b, c.a, got, c.want)
		}
	}
}
