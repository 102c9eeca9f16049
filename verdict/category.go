package verdict

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// ClaimCategory is a claim's category from the plan's §1b table (§1.3). The
// categories of the claims a scenario falsifies decide which gates apply.
type ClaimCategory string

// The eleven categories, spelled as the plan spells them.
const (
	Safety      ClaimCategory = "safety"
	Liveness    ClaimCategory = "liveness"
	Durability  ClaimCategory = "durability"
	Performance ClaimCategory = "performance-SLO" // the plan may write "performance"
	Operational ClaimCategory = "operational"
	Idempotency ClaimCategory = "idempotency"
	Isolation   ClaimCategory = "isolation" // consistency anomalies: G2-item, serializability
	Ordering    ClaimCategory = "ordering"
	Membership  ClaimCategory = "membership"
	Boundary    ClaimCategory = "boundary" // tenancy, authz, namespace, routing, cross-API access
	Fairness    ClaimCategory = "fairness" // per-group performance
)

// categories lists the eleven in the spec's order; ParseCategories searches it.
var categories = []ClaimCategory{
	Safety, Liveness, Durability, Performance, Operational, Idempotency,
	Isolation, Ordering, Membership, Boundary, Fairness,
}

// categoryAliases maps every spelling plan prose uses, lower-cased with single
// spaces, to its category. The boundary aliases are the concepts the spec says
// "boundary" subsumes.
var categoryAliases = map[string]ClaimCategory{
	"safety": Safety, "liveness": Liveness, "durability": Durability,
	"performance-slo": Performance, "performance": Performance, "performance slo": Performance,
	"perf": Performance, "slo": Performance, "operational": Operational,
	"idempotency": Idempotency, "isolation": Isolation, "ordering": Ordering,
	"membership": Membership, "boundary": Boundary, "tenancy": Boundary, "authz": Boundary,
	"namespace": Boundary, "routing": Boundary, "fairness": Fairness,
}

// LookupCategory reads one category word of plan prose, accepting the aliases
// real plans write ("perf", "SLO", "tenancy", "authz", ...). Matching ignores
// case and runs of white space. It is looser than ParseCategories, which reads
// a cell of canonical names, because a plan linter must place every word a
// human wrote and name the ones it cannot.
func LookupCategory(word string) (ClaimCategory, bool) {
	c, ok := categoryAliases[strings.ToLower(strings.Join(strings.Fields(word), " "))]
	return c, ok
}

// ParseCategories reads one Category cell of the §1b table. A cell may combine
// categories with "/" ("safety/durability"); "performance" is an alias of
// "performance-SLO". Matching ignores case and surrounding spaces; repeats are
// kept once. An empty cell or an unknown name is an error naming the token.
func ParseCategories(cell string) ([]ClaimCategory, error) {
	if strings.TrimSpace(cell) == "" {
		return nil, errors.New("empty claim category")
	}
	var out []ClaimCategory
	for _, tok := range strings.Split(cell, "/") {
		c, ok := parseCategory(strings.TrimSpace(tok))
		if !ok {
			return nil, fmt.Errorf("claim category %q: want one of %s (combine with /)", tok, CategoryNames())
		}
		if !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out, nil
}

func parseCategory(s string) (ClaimCategory, bool) {
	if strings.EqualFold(s, "performance") {
		return Performance, true
	}
	for _, c := range categories {
		if strings.EqualFold(s, string(c)) {
			return c, true
		}
	}
	return "", false
}

// CategoryNames lists the eleven canonical names in the spec's order, comma
// separated, for messages that tell an author what to write.
func CategoryNames() string {
	names := make([]string, len(categories))
	for i, c := range categories {
		names[i] = string(c)
	}
	return strings.Join(names, ", ")
}

// Serious reports whether a claim of category c makes a scenario SERIOUS
// (§1.3); see the function Serious.
func (c ClaimCategory) Serious() bool {
	switch c {
	case Safety, Durability, Idempotency, Isolation, Ordering, Membership:
		return true
	}
	return false
}

// Surface reports whether a claim of category c makes a scenario a SURFACE
// scenario (§1.3); see the function Surface.
func (c ClaimCategory) Surface() bool { return c == Boundary || c == Fairness }

// containsAny reports whether have holds any of want.
func containsAny[T comparable](have []T, want ...T) bool {
	for _, h := range have {
		if slices.Contains(want, h) {
			return true
		}
	}
	return false
}

// Serious reports whether any of cs makes a scenario SERIOUS (§1.3): safety,
// durability, idempotency, isolation, ordering or membership. A serious
// scenario must fill §7.M, and only its checker can earn PASS-hardening.
func Serious(cs []ClaimCategory) bool { return slices.ContainsFunc(cs, ClaimCategory.Serious) }

// Surface reports whether any of cs makes a scenario a SURFACE scenario (§1.3):
// boundary or fairness, which must fill §7.M.S and may split into arms.
func Surface(cs []ClaimCategory) bool { return slices.ContainsFunc(cs, ClaimCategory.Surface) }
