package nemesis

import (
	"testing"

	"github.com/faultline/faultline/nemesis"
)

// TestModuleMatchesRegistry: every fault builtin the module offers is a
// fault registered in package nemesis under the same name, and every
// registered fault with a name has its builtin.
func TestModuleMatchesRegistry(t *testing.T) {
	notFaults := map[string]bool{"compose": true, "heal": true, "fault": true} // fault defines one
	for name := range Module.Members {
		if notFaults[name] {
			continue
		}
		if _, ok := nemesis.Lookup(name); !ok {
			t.Errorf("nemesis.%s is offered but no fault of that name is registered", name)
		}
	}
	for _, f := range nemesis.Faults() {
		if f.Name == "" {
			continue
		}
		if _, ok := Module.Members[f.Name]; !ok {
			t.Errorf("fault %s (%s) is registered but the module offers no nemesis.%s", f.Name, f.Inject, f.Name)
		}
	}
}
