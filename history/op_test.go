package history

import "testing"

func TestOutcome(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Type
		ok   bool
	}{{"ok", OK, true}, {"fail", Fail, true}, {"info", Info, true}, {"invoke", "", false}, {"", "", false}, {"OK", "", false}} {
		if got, ok := Outcome(tc.in); got != tc.want || ok != tc.ok {
			t.Errorf("Outcome(%q) = %q, %t; want %q, %t", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}
