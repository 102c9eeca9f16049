package plans

import (
	"fmt"
	"strings"
)

// finalPhase is one row of the final-phase vocabulary: a checker that
// judges the final state, and the final= generator that reads that state
// for the workload models whose clients can produce it.
type finalPhase struct {
	family string   // the checker family that needs the final read
	models []string // workload models the call fits
	fn     string   // the @stdlib//workloads.star function
	call   string   // the final= expression
}

// finalPhases: no-lost-ack judges every acknowledged write against a dump
// of every key, read once the cluster is healed and quiet. final_dump()
// with no key list reads every key the run wrote, which is the only
// correct list when register workloads rotate keys.
var finalPhases = []finalPhase{
	{"no-lost-ack", []string{"register", "cas-register"}, "final_dump", "final_dump()"},
}

// final emits final= for the first row whose checker family the oracle
// names and whose models include the workload's; oracle is the field the
// checkers came from, cited above the argument.
func (c *compiler) final(d *draft, w workloadUse, families []string, oracle *Field, over overrideSet) {
	if _, ok := over.fields["final"]; ok || w.model == nil {
		return
	}
	for _, row := range finalPhases {
		if !contains(families, row.family) {
			continue
		}
		if !contains(row.models, w.model.model) {
			// Without a final read the checker can only say unknown.
			c.diag(Warning, d.u, FieldOracle, oracle.Pos.Line,
				fmt.Sprintf("%s needs a final read of the state, which the compiler can add only for %s workloads, not %s", row.family, strings.Join(row.models, " or "), w.model.model),
				"add a ```starlark final = ... block that reads the final state (a dump op)")
			continue
		}
		d.load(row.fn)
		d.set("final", row.call, cite(FieldOracle, oracle.Pos.Line, oracle.Value),
			fmt.Sprintf("%s needs the final state: one dump of every key written, after the heal", row.family))
		d.record(FieldOracle, oracle.Pos.Line, row.family, "final = "+row.call)
		return
	}
}
