package probe

import (
	"fmt"
	"slices"
	"strings"

	"github.com/faultline/faultline/nemesis"
	"github.com/faultline/faultline/plans"
)

// capabilityUse is a builtin whose call in a compiled scenario needs
// capabilities of the host.
type capabilityUse struct {
	call    string
	caps    []string
	network bool // a network fault: no host capability in local mode
}

// capabilityUses says which host capabilities a compiled scenario relies on,
// read from the builtins its Starlark calls: the faults' from nemesis'
// registry (Fault.Needs), then the clients'. Network faults need nothing of
// the host in local mode: faultline's own proxy mesh carries them.
var capabilityUses = append(faultUses(),
	capabilityUse{"client.postgres", []string{"postgresql"}, false},
	capabilityUse{"etcd", []string{"etcd-server"}, false},
)

// faultUses lists the registered faults that need host capabilities, by
// their nemesis.* builtin.
func faultUses() []capabilityUse {
	var out []capabilityUse
	for _, f := range nemesis.Faults() {
		if f.Name == "" || len(f.Needs) == 0 {
			continue
		}
		needs := slices.Clone(f.Needs)
		for i, n := range needs {
			if sub, ok := substitutes[f.Name][n]; ok {
				needs[i] = sub
			}
		}
		out = append(out, capabilityUse{"nemesis." + f.Name, needs, f.Network && !slices.Contains(meshCannot, f.Name)})
	}
	return out
}

// substitutes are needs a fault can meet another way, by fault: the
// capability the probe checks instead. nemesis.delay lands with netem or,
// where a node's kernel lacks it, faultline's NFQUEUE agent
// (nemesis/delay.go), so its tc-netem is "delay", which the nodes judge
// as either.
var substitutes = map[string]map[string]string{"delay": {"tc-netem": "delay"}}

// meshCannot are the network faults faultline's proxy mesh does not carry
// for local nodes (nemesis.netem refuses there: the mesh cannot reorder,
// duplicate or corrupt packets), so they keep their needs in local mode
// and the local cluster answers no.
var meshCannot = []string{"netem"}

// Uses maps each compiled unit to the capabilities it uses, for
// Requirements; local says the run's nodes are local (--local), whose
// network faults need no host capability.
func Uses(compiled []plans.CompiledScenario, local bool) map[string][]string {
	uses := map[string][]string{}
	for _, c := range compiled {
		for _, u := range capabilityUses {
			if strings.Contains(c.Source, u.call) && !(local && u.network) {
				uses[c.ID] = append(uses[c.ID], u.caps...)
			}
		}
	}
	return uses
}

// ParseOptions makes Options from the operator's word: assume holds
// CAPABILITY=present|absent, trusted without probing; skip names
// capabilities or scenario IDs to skip.
func ParseOptions(assume, skip []string) (Options, error) {
	o := Options{Skip: skip, Assume: map[string]bool{}}
	for _, a := range assume {
		name, v, ok := strings.Cut(a, "=")
		if !ok || (v != "present" && v != "absent") || name == "" {
			return o, fmt.Errorf("--assume %q: want CAPABILITY=present or CAPABILITY=absent", a)
		}
		o.Assume[name] = v == "present"
	}
	return o, nil
}
