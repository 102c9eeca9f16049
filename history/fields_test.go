package history

import (
	"strconv"
	"testing"
)

func TestParseDecimal(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0", 0, true},
		{"-0", 0, true},
		{"+42", 42, true},
		{"-7", -7, true},
		{"9223372036854775807", 9223372036854775807, true},
		{"-9223372036854775808", -9223372036854775808, true},
		{"9223372036854775808", 0, false},
		{"-9223372036854775809", 0, false},
		{"99999999999999999999", 0, false},
		{"", 0, false},
		{"-", 0, false},
		{"1.5", 0, false},
		{"12a", 0, false},
	}
	for _, tt := range tests {
		got, ok := parseDecimal([]byte(tt.in))
		if got != tt.want || ok != tt.ok {
			t.Errorf("parseDecimal(%q) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestInternerIsBounded(t *testing.T) {
	var in interner
	for i := range maxInterned + 10 {
		in.intern([]byte(strconv.Itoa(i)))
	}
	if len(in) != maxInterned {
		t.Errorf("interner holds %d strings, want at most %d", len(in), maxInterned)
	}
	if s := in.intern([]byte("7")); s != "7" {
		t.Errorf("intern(7) = %q", s)
	}
	var none *interner
	if s := none.intern([]byte("x")); s != "x" {
		t.Errorf("nil interner: intern(x) = %q", s)
	}
}
