package plans

import (
	"slices"
	"strings"
	"testing"

	"github.com/faultline/faultline/check"
)

// TestVocabularyMatchesCheckerRegistry: the oracle vocabulary and the
// compiler's family-to-call table agree with what each checker registered
// (check.Spec.Plan): every family the compiler maps compiles to a call of
// the checker that claims it, every family a checker claims is in the
// vocabulary and mapped, and no two checkers claim one family.
func TestVocabularyMatchesCheckerRegistry(t *testing.T) {
	claimed := map[string]string{} // family -> checker
	for _, s := range check.Checkers() {
		for _, fam := range s.Plan {
			if other, dup := claimed[fam]; dup {
				t.Errorf("family %s claimed by %s and %s", fam, other, s.Name)
			}
			claimed[fam] = s.Name
		}
	}
	for _, row := range checkerCalls {
		if row.call == "" {
			if name, ok := claimed[row.family]; ok {
				t.Errorf("family %s is %s's, but the compiler maps it to no call", row.family, name)
			}
			continue
		}
		name, ok := claimed[row.family]
		if !ok {
			t.Errorf("family %s compiles to %s, but no registered checker claims it", row.family, row.call)
			continue
		}
		// The Starlark builtin of a checker is its name with "_" for "-".
		if want := "check." + strings.ReplaceAll(name, "-", "_") + "("; !strings.HasPrefix(row.call, want) {
			t.Errorf("family %s compiles to %s, not a call of %s's builtin %s...)", row.family, row.call, name, want)
		}
		delete(claimed, row.family)
	}
	for fam, name := range claimed {
		t.Errorf("%s claims family %s, which the compiler does not map", name, fam)
	}
	for _, s := range check.Checkers() {
		for _, fam := range s.Plan {
			if !slices.ContainsFunc(vocabulary, func(o oracleTerm) bool { return o.checker == fam }) {
				t.Errorf("%s claims family %s, which the vocabulary has no phrasing for", s.Name, fam)
			}
		}
	}
}
