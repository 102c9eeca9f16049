// Package bytesize reads and prints sizes the way faultline's flags and
// builtins take them: digits with an optional K, M or G suffix, powers of
// 1024.
package bytesize

import (
	"fmt"
	"strconv"
	"strings"
)

// Parse reads a positive size such as "512", "64K", "10M" or "2G".
func Parse(s string) (int64, error) {
	mult := int64(1)
	num := s
	if n := len(s); n > 0 {
		switch s[n-1] {
		case 'K', 'k':
			mult, num = 1<<10, s[:n-1]
		case 'M', 'm':
			mult, num = 1<<20, s[:n-1]
		case 'G', 'g':
			mult, num = 1<<30, s[:n-1]
		}
	}
	v, err := strconv.ParseInt(num, 10, 64)
	if err != nil || v <= 0 || v > (1<<62)/mult {
		return 0, fmt.Errorf("size %q: want a positive number of bytes with an optional K, M or G suffix", s)
	}
	return v * mult, nil
}

// Format prints n bytes briefly: "1.5 GiB", "300 MiB", "12 KiB", "7 B".
func Format(n uint64) string {
	switch {
	case n >= 1<<30:
		return strings.TrimSuffix(fmt.Sprintf("%.1f", float64(n)/(1<<30)), ".0") + " GiB"
	case n >= 1<<20:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d B", n)
}
