package plans

import (
	"slices"
	"strings"

	"github.com/faultline/faultline/verdict"
)

// parseCategories reads a §1b Category cell such as "durability / safety" or
// "`performance` (inferred)". It returns the known categories (deduplicated, in
// order) and the words it could not place; verdict owns the words themselves.
func parseCategories(cell string) (cats []verdict.ClaimCategory, unknown []string) {
	cell = dropParens(plain(cell))
	// Split on every separator; "performance / SLO" then yields one category twice.
	parts := strings.FieldsFunc(cell, func(r rune) bool {
		return r == '/' || r == ',' || r == '+' || r == '&' || r == ';' || r == '|'
	})
	for _, part := range parts {
		for _, word := range splitAnd(part) {
			if strings.TrimSpace(word) == "" {
				continue
			}
			c, ok := verdict.LookupCategory(word)
			if !ok {
				unknown = append(unknown, word)
				continue
			}
			if !slices.Contains(cats, c) {
				cats = append(cats, c)
			}
		}
	}
	return cats, unknown
}

// splitAnd splits "safety and durability" into its words.
func splitAnd(s string) []string {
	fields := strings.Fields(s)
	var out []string
	start := 0
	for i, f := range fields {
		if strings.EqualFold(f, "and") {
			out = append(out, strings.Join(fields[start:i], " "))
			start = i + 1
		}
	}
	return append(out, strings.Join(fields[start:], " "))
}

// dropParens removes parenthesised asides: "safety (inferred)" -> "safety ".
func dropParens(s string) string {
	var b strings.Builder
	depth := 0
	for _, r := range s {
		switch {
		case r == '(':
			depth++
		case r == ')' && depth > 0:
			depth--
		case depth == 0:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Models lists the "Model under test" values of §7.M; other(<name>) is also valid.
var Models = []string{"register", "map", "queue", "log", "lock", "lease", "session",
	"membership-table", "counter", "ledger"}

// normModel normalises a "Model under test" value: "`register` (per key)" ->
// "register", "other(bank)" -> "other(bank)". It returns "" when the value
// names no known model.
func normModel(v string) string {
	v = strings.ToLower(strings.TrimSpace(plain(v)))
	if strings.Contains(v, "|") { // template residue "register | map | ..."
		return ""
	}
	if strings.HasPrefix(v, "other") {
		rest := strings.TrimSpace(v[len("other"):])
		if strings.HasPrefix(rest, "(") {
			if end := strings.IndexByte(rest, ')'); end > 1 {
				return "other(" + strings.TrimSpace(rest[1:end]) + ")"
			}
		}
		return ""
	}
	word := v
	if i := strings.IndexFunc(v, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r == '-' || r == ' ')
	}); i >= 0 {
		word = v[:i]
	}
	word = strings.TrimSpace(word)
	word = strings.ReplaceAll(word, " ", "-")
	for _, m := range Models {
		if word == m {
			return m
		}
	}
	return ""
}
