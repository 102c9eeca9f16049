package star

import (
	"strings"
	"testing"
	"time"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"

	"github.com/faultline/faultline/history"
)

func eval(t *testing.T, expr string) starlark.Value {
	t.Helper()
	v, err := starlark.EvalOptions(&syntax.FileOptions{Set: true}, &starlark.Thread{}, "t", expr, nil)
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	return v
}

func TestToGoAndBack(t *testing.T) {
	cases := []struct {
		expr string
		want any
	}{
		{"None", nil},
		{"True", true},
		{"3", int64(3)},
		{"1.5", 1.5},
		{`"s"`, "s"},
		{"[1, [2, None]]", []any{int64(1), []any{int64(2), nil}}},
		{"(1, 2)", []any{int64(1), int64(2)}},
		{"[]", []any{}},
		{`{"x": 0, "y": [1]}`, map[string]any{"x": int64(0), "y": []any{int64(1)}}},
		{"set([1, 2])", history.Set{int64(1), int64(2)}},
	}
	for _, c := range cases {
		got, err := ToGo(eval(t, c.expr))
		if err != nil {
			t.Fatalf("%s: %v", c.expr, err)
		}
		if !history.Equal(got, c.want) {
			t.Errorf("ToGo(%s) = %#v, want %#v", c.expr, got, c.want)
		}
		back, err := FromGo(got)
		if err != nil {
			t.Fatalf("FromGo(%#v): %v", got, err)
		}
		again, err := ToGo(back)
		if err != nil || !history.Equal(again, c.want) {
			t.Errorf("round trip of %s gave %#v (%v)", c.expr, again, err)
		}
	}
}

func TestToGoErrors(t *testing.T) {
	for expr, want := range map[string]string{
		"{1: 2}":         "only string keys",
		"1 << 70":        "does not fit",
		"lambda: 1":      "cannot use a function",
		`{"k": {1: 2}}`:  `dict key "k"`,
		"[1, lambda: 1]": "element 1",
	} {
		_, err := ToGo(eval(t, expr))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ToGo(%s) err = %v, want %q", expr, err, want)
		}
	}
	if _, err := FromGo(struct{}{}); err == nil {
		t.Error("FromGo accepted a struct")
	}
	if v, err := FromGo(history.Keyword("k")); err != nil || v != starlark.String("k") {
		t.Errorf("FromGo(keyword) = %v, %v", v, err)
	}
}

func TestDuration(t *testing.T) {
	cases := []struct {
		expr    string
		want    time.Duration
		wantErr string
	}{
		{`"30s"`, 30 * time.Second, ""},
		{`"250ms"`, 250 * time.Millisecond, ""},
		{"2", 2 * time.Second, ""},
		{"0.5", 500 * time.Millisecond, ""},
		{`"soon"`, 0, "bad duration"},
		{`"-1s"`, 0, "negative"},
		{"-1", 0, "bad duration"},
		{"[]", 0, "want a duration"},
	}
	for _, c := range cases {
		var d Duration
		err := d.Unpack(eval(t, c.expr))
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("%s: err = %v, want %q", c.expr, err, c.wantErr)
			}
			continue
		}
		if err != nil || time.Duration(d) != c.want {
			t.Errorf("%s = %v (%v), want %v", c.expr, time.Duration(d), err, c.want)
		}
	}
}
