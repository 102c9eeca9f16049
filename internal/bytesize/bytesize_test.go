package bytesize

import "testing"

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"512", 512, true}, {"64K", 64 << 10, true}, {"10m", 10 << 20, true}, {"2G", 2 << 30, true},
		{"", 0, false}, {"0", 0, false}, {"-1G", 0, false}, {"1.5G", 0, false}, {"G", 0, false}, {"1T", 0, false},
		{"9999999999G", 0, false},
	} {
		got, err := Parse(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("Parse(%q) = %d, %v; want %d, ok=%t", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

func TestFormat(t *testing.T) {
	for n, want := range map[uint64]string{7: "7 B", 12 << 10: "12 KiB", 300 << 20: "300 MiB", 3 << 29: "1.5 GiB", 4 << 30: "4 GiB"} {
		if got := Format(n); got != want {
			t.Errorf("Format(%d) = %q, want %q", n, got, want)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"10", "4K", "1G", "", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if n, err := Parse(s); err == nil && n <= 0 {
			t.Fatalf("Parse(%q) = %d", s, n)
		}
	})
}
