package history

import (
	"math"
	"reflect"
	"testing"
)

func TestJSONValueRoundTrip(t *testing.T) {
	cases := []struct {
		name string
		in   any
		text string
		back any // what reading text gives back
	}{
		{"int stays int64", int64(1) << 62, `4611686018427387904`, int64(1) << 62},
		{"float keeps its fraction", 2.0, `2.0`, 2.0},
		{"infinity", math.Inf(-1), `"-Inf"`, "-Inf"},
		{"keyword is a string", Keyword("k"), `"k"`, "k"},
		{"set is an array", Set{int64(1), "a"}, `[1,"a"]`, []any{int64(1), "a"}},
		{"nested grudge", map[string]any{"n2": []any{"n1"}, "n1": []any{"n2", "n3"}},
			`{"n1":["n2","n3"],"n2":["n1"]}`, map[string]any{"n2": []any{"n1"}, "n1": []any{"n2", "n3"}}},
		{"nil", nil, `null`, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := AppendJSONValue(nil, c.in)
			if err != nil || string(got) != c.text {
				t.Fatalf("AppendJSONValue = %s, %v; want %s", got, err, c.text)
			}
			back, err := ParseJSONValue(got)
			if err != nil || !reflect.DeepEqual(back, c.back) {
				t.Fatalf("ParseJSONValue(%s) = %#v, %v; want %#v", got, back, err, c.back)
			}
		})
	}
}

func TestJSONValueErrors(t *testing.T) {
	if _, err := AppendJSONValue(nil, struct{}{}); err == nil {
		t.Error("AppendJSONValue accepted a value outside the generic model")
	}
	for _, bad := range []string{``, `1 2`, `{"a":}`, `[1,`, `tru`} {
		if _, err := ParseJSONValue([]byte(bad)); err == nil {
			t.Errorf("ParseJSONValue(%q) succeeded", bad)
		}
	}
}

// FuzzParseJSONValue: the value reader never panics, and what it accepts
// encodes and reads back unchanged.
func FuzzParseJSONValue(f *testing.F) {
	for _, s := range []string{`1`, `-2.5e3`, `"a\u00e9\n"`, `{"a":[1,{"b":null}],"c":true}`, `[1,`, `"NaN"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := ParseJSONValue(data)
		if err != nil {
			return
		}
		text, err := AppendJSONValue(nil, v)
		if err != nil {
			t.Fatalf("%q read as %#v, which cannot be written: %v", data, v, err)
		}
		back, err := ParseJSONValue(text)
		if err != nil || !reflect.DeepEqual(back, v) {
			t.Fatalf("%q -> %#v -> %s -> %#v, %v", data, v, text, back, err)
		}
	})
}
