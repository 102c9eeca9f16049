package check

import (
	"strings"
	"testing"

	"go.starlark.net/starlark"

	"github.com/faultline/faultline/check"
	"github.com/faultline/faultline/star"
)

// TestModuleCoversRegistry: the Starlark module has one builtin per
// registered checker, named as its Name with "_" for "-" (the name the plan
// compiler writes), plus check.compose and check.stats; it registers itself
// as "check".
func TestModuleCoversRegistry(t *testing.T) {
	members := map[string]bool{}
	for name := range Module.Members {
		members[name] = true
	}
	for _, s := range check.Checkers() {
		b := BuiltinName(s.Name)
		if !members[b] {
			t.Errorf("checker %s has no builtin check.%s", s.Name, b)
		}
		delete(members, b)
	}
	delete(members, "compose")
	delete(members, "stats")
	for name := range members {
		t.Errorf("builtin check.%s builds no registered checker", name)
	}
	if v, ok := star.Modules()["check"]; !ok || v != starlark.Value(Module) {
		t.Errorf(`star.Modules()["check"] = %v, want the check module`, v)
	}
	if got := BuiltinName("read-your-writes"); got != "read_your_writes" || !strings.HasPrefix(Module.Members[got].String(), "<built-in function check.read_your_writes") {
		t.Errorf("BuiltinName(read-your-writes) = %s (%s)", got, Module.Members[got])
	}
}
