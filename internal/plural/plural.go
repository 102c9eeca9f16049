// Package plural spells counts in explanations and reports: "1 op",
// "3 ops". It is the one place a count meets its noun.
package plural

import "strconv"

// Count is n with noun, plural by an added s: "1 op", "2 ops".
func Count(n int, noun string) string {
	return CountAs(n, noun, noun+"s")
}

// CountAs is n with one or many, for nouns whose plural is not an added s:
// "1 match", "2 matches".
func CountAs(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
