package ref

import (
	"testing"

	"github.com/faultline/faultline/internal/golden"
)

// TestReference holds docs/starlark.md to what the registrations and the
// stdlib's source generate; -update rewrites it.
func TestReference(t *testing.T) {
	got, err := Markdown()
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "../../docs/starlark.md", got)
}
