package verdict

import (
	"slices"
	"strings"
	"testing"
)

func TestParseCategories(t *testing.T) {
	tests := []struct {
		cell    string
		want    []ClaimCategory
		wantErr string
	}{
		{"safety", []ClaimCategory{Safety}, ""},
		{"safety/durability", []ClaimCategory{Safety, Durability}, ""},
		{" Safety / Liveness ", []ClaimCategory{Safety, Liveness}, ""},
		{"performance", []ClaimCategory{Performance}, ""},
		{"performance-SLO", []ClaimCategory{Performance}, ""},
		{"performance-slo/performance", []ClaimCategory{Performance}, ""},
		{"boundary/fairness/isolation", []ClaimCategory{Boundary, Fairness, Isolation}, ""},
		{"operational/idempotency/ordering/membership", []ClaimCategory{Operational, Idempotency, Ordering, Membership}, ""},
		{"", nil, "empty claim category"},
		{"  ", nil, "empty claim category"},
		{"safety/", nil, `claim category ""`},
		{"safety/correctness", nil, `claim category "correctness"`},
		{"safety,durability", nil, `"safety,durability"`},
	}
	for _, tt := range tests {
		got, err := ParseCategories(tt.cell)
		switch {
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("ParseCategories(%q) error %v, want one containing %q", tt.cell, err, tt.wantErr)
		case tt.wantErr == "" && err != nil:
			t.Errorf("ParseCategories(%q): %v", tt.cell, err)
		case !slices.Equal(got, tt.want):
			t.Errorf("ParseCategories(%q) = %v, want %v", tt.cell, got, tt.want)
		}
	}
}

// TestSeriousAndSurface pins the §1.3 gating sets.
func TestSeriousAndSurface(t *testing.T) {
	serious := []ClaimCategory{Safety, Durability, Idempotency, Isolation, Ordering, Membership}
	surface := []ClaimCategory{Boundary, Fairness}
	for _, c := range categories {
		if got := Serious([]ClaimCategory{c}); got != slices.Contains(serious, c) {
			t.Errorf("Serious(%s) = %v", c, got)
		}
		if got := Surface([]ClaimCategory{c}); got != slices.Contains(surface, c) {
			t.Errorf("Surface(%s) = %v", c, got)
		}
	}
	if !Serious([]ClaimCategory{Liveness, Durability}) || Serious(nil) || Surface(nil) {
		t.Error("a combined cell is serious when any part is; nothing is neither")
	}
}

// FuzzParseCategories: no panic; success yields known, distinct categories
// that read back to themselves.
func FuzzParseCategories(f *testing.F) {
	for _, s := range []string{"safety", "safety/durability", "performance", " Boundary / FAIRNESS ", "", "/", "x/y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, cell string) {
		got, err := ParseCategories(cell)
		if err != nil {
			return
		}
		if len(got) == 0 {
			t.Fatal("success with no category")
		}
		names := make([]string, len(got))
		for i, c := range got {
			if !slices.Contains(categories, c) {
				t.Fatalf("unknown category %q", c)
			}
			if slices.Contains(got[:i], c) {
				t.Fatalf("repeated category %q", c)
			}
			names[i] = string(c)
		}
		again, err := ParseCategories(strings.Join(names, "/"))
		if err != nil || !slices.Equal(again, got) {
			t.Fatalf("round trip %v -> %v, %v", got, again, err)
		}
	})
}

func TestLookupCategory(t *testing.T) {
	tests := []struct {
		word string
		want ClaimCategory
		ok   bool
	}{
		{"safety", Safety, true},
		{" Durability ", Durability, true},
		{"performance-SLO", Performance, true},
		{"Performance   SLO", Performance, true},
		{"perf", Performance, true},
		{"SLO", Performance, true},
		{"tenancy", Boundary, true},
		{"authz", Boundary, true},
		{"namespace", Boundary, true},
		{"routing", Boundary, true},
		{"fairness", Fairness, true},
		{"correctness", "", false},
		{"safety/durability", "", false}, // one word only: splitting is the caller's
		{"", "", false},
	}
	for _, tt := range tests {
		got, ok := LookupCategory(tt.word)
		if got != tt.want || ok != tt.ok {
			t.Errorf("LookupCategory(%q) = %q, %v; want %q, %v", tt.word, got, ok, tt.want, tt.ok)
		}
	}
	for _, c := range categories {
		if got, ok := LookupCategory(string(c)); !ok || got != c {
			t.Errorf("LookupCategory(%q) = %q, %v: every canonical name must read back", c, got, ok)
		}
	}
}

// TestCategoryMethods pins the per-category predicates to the slice forms the
// decision tree uses, so the two cannot drift.
func TestCategoryMethods(t *testing.T) {
	for _, c := range categories {
		if c.Serious() != Serious([]ClaimCategory{c}) || c.Surface() != Surface([]ClaimCategory{c}) {
			t.Errorf("%s: methods (%v, %v) disagree with Serious/Surface", c, c.Serious(), c.Surface())
		}
	}
	if ClaimCategory("correctness").Serious() || ClaimCategory("correctness").Surface() {
		t.Error("an unknown category gates nothing")
	}
}

func TestCategoryNames(t *testing.T) {
	want := "safety, liveness, durability, performance-SLO, operational, idempotency, isolation, ordering, membership, boundary, fairness"
	if got := CategoryNames(); got != want {
		t.Errorf("CategoryNames() = %q, want %q", got, want)
	}
}

// FuzzLookupCategory: no panic; a hit is a known category whose canonical
// name reads back to itself.
func FuzzLookupCategory(f *testing.F) {
	for _, s := range []string{"safety", "Performance  SLO", "tenancy", "", " ", "perf/slo"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, word string) {
		c, ok := LookupCategory(word)
		if !ok {
			if c != "" {
				t.Fatalf("miss returned %q", c)
			}
			return
		}
		if !slices.Contains(categories, c) {
			t.Fatalf("unknown category %q", c)
		}
		if again, ok := LookupCategory(string(c)); !ok || again != c {
			t.Fatalf("canonical %q reads back as %q, %v", c, again, ok)
		}
	})
}
