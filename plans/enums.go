package plans

import "strings"

// Category is a claim category of §1b (spec §1.3).
type Category string

// The claim categories. Gating depends on them, so an unknown one is an error.
const (
	Safety      Category = "safety"
	Liveness    Category = "liveness"
	Durability  Category = "durability"
	Performance Category = "performance-SLO"
	Operational Category = "operational"
	Idempotency Category = "idempotency"
	Isolation   Category = "isolation" // consistency anomalies (G2-item, serializability)
	Ordering    Category = "ordering"
	Membership  Category = "membership"
	Boundary    Category = "boundary" // tenancy, authz, namespace, routing, cross-API access
	Fairness    Category = "fairness" // per-group performance
)

// Categories lists every category in spec order.
var Categories = []Category{Safety, Liveness, Durability, Performance, Operational,
	Idempotency, Isolation, Ordering, Membership, Boundary, Fairness}

// Serious reports whether a claim of this category makes §7.M mandatory.
func (c Category) Serious() bool {
	switch c {
	case Safety, Durability, Idempotency, Isolation, Ordering, Membership:
		return true
	}
	return false
}

// Surface reports whether a claim of this category makes §7.M.S mandatory.
func (c Category) Surface() bool { return c == Boundary || c == Fairness }

// categoryAliases maps the spellings seen in plans to a category. The boundary
// aliases are the concepts the spec says "boundary" subsumes.
var categoryAliases = map[string]Category{
	"safety": Safety, "liveness": Liveness, "durability": Durability,
	"performance-slo": Performance, "performance": Performance, "performance slo": Performance,
	"perf": Performance, "slo": Performance, "operational": Operational,
	"idempotency": Idempotency, "isolation": Isolation, "ordering": Ordering,
	"membership": Membership, "boundary": Boundary, "tenancy": Boundary, "authz": Boundary,
	"namespace": Boundary, "routing": Boundary, "fairness": Fairness,
}

// parseCategories reads a §1b Category cell such as "durability / safety" or
// "`performance` (inferred)". It returns the known categories (deduplicated, in
// order) and the words it could not place.
func parseCategories(cell string) (cats []Category, unknown []string) {
	cell = dropParens(plain(cell))
	// Split on every separator; "performance / SLO" then yields one category twice.
	parts := strings.FieldsFunc(cell, func(r rune) bool {
		return r == '/' || r == ',' || r == '+' || r == '&' || r == ';' || r == '|'
	})
	for _, part := range parts {
		for _, word := range splitAnd(part) {
			key := strings.ToLower(strings.Join(strings.Fields(word), " "))
			if key == "" {
				continue
			}
			c, ok := categoryAliases[key]
			if !ok {
				unknown = append(unknown, word)
				continue
			}
			if !containsCat(cats, c) {
				cats = append(cats, c)
			}
		}
	}
	return cats, unknown
}

func containsCat(cs []Category, c Category) bool {
	for _, x := range cs {
		if x == c {
			return true
		}
	}
	return false
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

// Tier is a budget tier.
type Tier string

// The three budget tiers, weakest first.
const (
	Smoke     Tier = "smoke"
	Hardening Tier = "hardening"
	Release   Tier = "release"
)

// Tiers lists the tiers weakest first.
var Tiers = []Tier{Smoke, Hardening, Release}

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
