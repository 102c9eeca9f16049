package verdict

import (
	"bytes"
	"testing"
)

func TestMatchLogLine(t *testing.T) {
	tests := []struct {
		line string
		want string
	}{
		{"panic: runtime error: index out of range", "panic"},
		{"2026-07-01 ERROR java.lang.NullPointerException at Foo", "exception"},
		{"HTTP 500: Internal error while committing", "internal error"},
		{"PANIC", "panic"},
		{"unhandled EXCEPTION then panic", "exception"}, // the earliest alarm wins
		{"internal  error", ""},                         // two spaces: not the phrase
		{"pani", ""},
		{"", ""},
		{"level=info msg=\"leader elected\"", ""},
	}
	for _, tt := range tests {
		got, ok := MatchLogLine([]byte(tt.line))
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("MatchLogLine(%q) = %q, %v; want %q", tt.line, got, ok, tt.want)
		}
	}
}

// FuzzMatchLogLine compares MatchLogLine with a plain ASCII-lowered search.
func FuzzMatchLogLine(f *testing.F) {
	for _, s := range []string{"panic:", "xInTeRnAl ErRoR", "Exception", "İnternal error", "\xffpanic"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		got, ok := MatchLogLine(line)
		lower := bytes.Map(func(r rune) rune {
			if 'A' <= r && r <= 'Z' {
				return r + 'a' - 'A'
			}
			return r
		}, line)
		want, at := "", -1
		for _, a := range logAlarms {
			if i := bytes.Index(lower, []byte(a)); i >= 0 && (at < 0 || i < at) {
				want, at = a, i
			}
		}
		if got != want || ok != (want != "") {
			t.Fatalf("MatchLogLine(%q) = %q, %v; want %q", line, got, ok, want)
		}
	})
}
