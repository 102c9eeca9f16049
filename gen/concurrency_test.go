package gen

import "testing"

func TestParseConcurrency(t *testing.T) {
	cases := []struct {
		in    string
		nodes int
		want  int
		err   bool
	}{
		{"5", 3, 5, false},
		{" 7 ", 0, 7, false},
		{"2n", 3, 6, false},
		{"n", 5, 5, false},
		{"1n", 2, 2, false},
		{"0", 3, 0, true},
		{"-1", 3, 0, true},
		{"2n", 0, 0, true},
		{"0n", 3, 0, true},
		{"xn", 3, 0, true},
		{"n2", 3, 0, true},
		{"", 3, 0, true},
		{"99999999999999999999", 3, 0, true},
		{"65537", 1, 0, true},
		{"40000n", 2, 0, true},
	}
	for _, c := range cases {
		got, err := ParseConcurrency(c.in, c.nodes)
		if (err != nil) != c.err || got != c.want {
			t.Errorf("ParseConcurrency(%q, %d) = %d, %v; want %d, error %v", c.in, c.nodes, got, err, c.want, c.err)
		}
	}
}

func FuzzParseConcurrency(f *testing.F) {
	for _, s := range []string{"5", "2n", "n", "0", "-3n", " 4 ", "1e3", "9223372036854775807n"} {
		f.Add(s, 3)
	}
	f.Fuzz(func(t *testing.T, s string, nodes int) {
		n, err := ParseConcurrency(s, nodes)
		if err == nil && (n < 1 || n > MaxConcurrency) {
			t.Fatalf("ParseConcurrency(%q, %d) = %d without error", s, nodes, n)
		}
	})
}
