package check

import (
	"strings"
	"testing"

	"github.com/faultline/faultline/history"
)

func TestParseInit(t *testing.T) {
	tests := []struct {
		in   string
		want any
	}{
		{"nil", nil},
		{" null ", nil},
		{"0", int64(0)},
		{"-5", int64(-5)},
		{"+7", int64(7)},
		{"1.5", 1.5},
		{"-.5", -0.5},
		{"1e3", 1000.0},
		{"99999999999999999999", 1e20},
		{"true", true},
		{"false", false},
		{`"s"`, "s"},
		{`"a \"q\" \u00e9"`, `a "q" é`},
		{":kw", history.Keyword("kw")},
		{":timed-out", history.Keyword("timed-out")},
		{"[1 2]", []any{int64(1), int64(2)}},
		{"[1, :a, \"b\"]", []any{int64(1), history.Keyword("a"), "b"}},
		{"[]", []any{}},
		{"#{1 2}", history.Set{int64(1), int64(2)}},
		{"{x:0,y:0}", map[string]any{"x": int64(0), "y": int64(0)}},
		{"{ x : 0 , y : -1 }", map[string]any{"x": int64(0), "y": int64(-1)}},
		{"{:x 0 :y 0}", map[string]any{"x": int64(0), "y": int64(0)}},
		{"{:x 0, :y nil}", map[string]any{"x": int64(0), "y": nil}},
		{`{"x": 0, "y y": [1]}`, map[string]any{"x": int64(0), "y y": []any{int64(1)}}},
		{`{"x" :kw}`, map[string]any{"x": history.Keyword("kw")}},
		{`{"x" 1}`, map[string]any{"x": int64(1)}},
		{"{}", map[string]any{}},
		{"{a:{b:[1 {c:2}]}}", map[string]any{"a": map[string]any{"b": []any{int64(1), map[string]any{"c": int64(2)}}}}},
		// EDN keyword names beyond a bare word, as FormatEDN writes them.
		{"{:$ 0, :a:b 1, :*x 2, :- 3, :é 4}", map[string]any{"$": int64(0), "a:b": int64(1), "*x": int64(2), "-": int64(3), "é": int64(4)}},
		{"[:a# :ns/name :<=]", []any{history.Keyword("a#"), history.Keyword("ns/name"), history.Keyword("<=")}},
		{`{"000":A0}`, map[string]any{"000": history.Keyword("A0")}},
		{`{"x":-1}`, map[string]any{"x": int64(-1)}},
	}
	for _, tt := range tests {
		got, err := ParseInit(tt.in)
		if err != nil {
			t.Errorf("ParseInit(%q): %v", tt.in, err)
			continue
		}
		// Exact types matter (int64 vs float64), so compare the EDN text too.
		if !history.Equal(got, tt.want) || formatValue(got) != formatValue(tt.want) {
			t.Errorf("ParseInit(%q) = %#v, want %#v", tt.in, got, tt.want)
		}
	}
}

func TestParseInitErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", "empty"},
		{"   ", "empty"},
		{"abc", `bare word "abc": quote a string`},
		{"{x 0}", "':' expected after map key x"},
		{"{x:0", "map is not closed"},
		{"{:x 0 :x 1}", `duplicate map key "x"`},
		{"{1: 2}", "map key expected"},
		{"[1 2", "missing closing"},
		{`"abc`, "string is not closed"},
		{`"\q"`, "bad string"},
		{"1 2", `unexpected "2" after the value`},
		{"1x", `bad number "1x"`},
		{"1e999", `bad number "1e999"`},
		{":", "keyword name expected"},
		{":1", "keyword name expected"},
		{"@", `unexpected '@'`},
		{"{x:abc}", `map key "x": offset 3: bare word`},
		// FormatEDN writes these as strings, so a keyword of that name could
		// not be printed back as one.
		{":a/b/c", `keyword name expected after ':', found "a/b/c"`},
		{":a/", `found "a/"`},
		{":a::b", `found "a::b"`},
		{strings.Repeat("[", 100), "nested deeper than 64 levels"},
	}
	for _, tt := range tests {
		_, err := ParseInit(tt.in)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseInit(%q): error %v, want one containing %q", tt.in, err, tt.want)
		}
	}
}

// FuzzParseInit: the parser never panics, and whatever it accepts prints in a
// form it reads back as an equal value.
func FuzzParseInit(f *testing.F) {
	for _, s := range []string{"nil", "0", "-1.5e3", `"s\n"`, ":kw", "[1 [2] #{3}]", "{x:0,y:0}", "{:x 0 :y 0}", `{"a b": :c}`, "{a:{b:1}}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseInit(s)
		if err != nil {
			return
		}
		text := formatValue(v)
		back, err := ParseInit(text)
		if err != nil {
			t.Fatalf("ParseInit(%q) = %s, which does not parse back: %v", s, text, err)
		}
		if !history.Equal(v, back) || formatValue(back) != text {
			t.Fatalf("round trip of %q: %s became %s", s, text, formatValue(back))
		}
		if hashValue(v) != hashValue(back) {
			t.Fatalf("equal values %s hash differently", text)
		}
	})
}

// TestParseInitReadsFormatValue: every map key and keyword FormatEDN writes
// as a keyword reads back as the same value (issue 16: {"$":0} printed as
// {:$ 0}, which the parser refused).
func TestParseInitReadsFormatValue(t *testing.T) {
	values := []any{
		map[string]any{"$": int64(0)},
		map[string]any{"a#": int64(0), "a:b": nil, "*x": true, "-": "s", ".": 1.5, "+": int64(1), "-a": int64(2)},
		map[string]any{"é": history.Keyword("ü"), "ns/n": history.Keyword("ns/n")},
		[]any{history.Keyword("$"), history.Keyword("%&"), history.Keyword("a/b/c"), history.Keyword("1x")},
		history.Set{history.Keyword("<>"), history.Keyword("=")},
	}
	for _, v := range values {
		text := formatValue(v)
		back, err := ParseInit(text)
		if err != nil {
			t.Errorf("FormatEDN(%#v) = %s, which ParseInit refuses: %v", v, text, err)
			continue
		}
		if !history.Equal(v, back) || formatValue(back) != text {
			t.Errorf("round trip of %s gave %s", text, formatValue(back))
		}
	}
}

func TestFormatValue(t *testing.T) {
	tests := []struct {
		v    any
		want string
	}{
		{nil, "nil"},
		{true, "true"},
		{int64(-3), "-3"},
		{3, "3"},
		{2.5, "2.5"},
		{"a\"b", `"a\"b"`},
		{history.Keyword("read"), ":read"},
		{history.Keyword("has space"), `"has space"`},
		{[]any{int64(1), nil, "x"}, `[1 nil "x"]`},
		{history.Set{int64(1)}, "#{1}"},
		{map[string]any{"y": int64(2), "x": int64(1), "a b": nil}, `{"a b" nil, :x 1, :y 2}`},
		{struct{}{}, `"{}"`},
	}
	for _, tt := range tests {
		if got := formatValue(tt.v); got != tt.want {
			t.Errorf("formatValue(%#v) = %s, want %s", tt.v, got, tt.want)
		}
	}
}

// TestHashAgreesWithEqual: porcupine's cache needs equal states to hash alike.
func TestHashAgreesWithEqual(t *testing.T) {
	pairs := [][2]any{
		{int64(1), 1.0},
		{int64(1), 1},
		{int64(-7), -7.0},
		{"x", history.Keyword("x")},
		{[]any{int64(1), "a"}, []any{1.0, history.Keyword("a")}},
		{history.Set{int64(1), int64(2), int64(2)}, history.Set{int64(2), int64(1), int64(1)}},
		{map[string]any{"x": int64(0), "y": []any{int64(1)}}, map[string]any{"y": []any{1.0}, "x": 0.0}},
		{nil, nil},
	}
	for _, p := range pairs {
		if !history.Equal(p[0], p[1]) {
			t.Fatalf("test pair %v is not equal", p)
		}
		if hashValue(p[0]) != hashValue(p[1]) {
			t.Errorf("%s and %s are equal but hash differently", formatValue(p[0]), formatValue(p[1]))
		}
	}
	if hashValue(int64(1)) == hashValue(int64(2)) || hashValue("a") == hashValue("b") || hashValue(1.5) == hashValue(2.5) {
		t.Error("distinct scalars collide")
	}
}
