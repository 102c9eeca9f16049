package plural

import "testing"

func TestCount(t *testing.T) {
	for _, c := range []struct {
		got, want string
	}{
		{Count(0, "op"), "0 ops"},
		{Count(1, "op"), "1 op"},
		{Count(2, "op"), "2 ops"},
		{Count(-1, "op"), "-1 ops"},
		{CountAs(1, "match", "matches"), "1 match"},
		{CountAs(3, "match", "matches"), "3 matches"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}
