package evidence

import "github.com/faultline/faultline/star"

// The reference of the "evidence" module (docs/starlark.md); parameter
// names and defaults follow UnpackArgs (minArg).

func init() {
	star.Describe("evidence", "Landing evidence: the signals a scenario requires to see, judged from the recorded history after the run.",
		"Give one, or a list, as scenario(landing = ...); a run that does not show them did not test what it claims.")
	minP := star.Param{Name: "min", Default: "1", Doc: "how many must be seen (not negative)"}
	star.Document("evidence",
		star.FuncDoc{Name: "landed", Summary: "Every fault op was read back as in effect, and there was at least one.", Returns: "an evidence value"},
		star.FuncDoc{Name: "iptables_drops", Summary: "Packets counted by faultline's DROP rules.", Params: []star.Param{minP}, Returns: "an evidence value"},
		star.FuncDoc{Name: "op_errors", Summary: "Client ops that failed or timed out (during a fault).",
			Params: []star.Param{minP, {Name: "during_fault", Default: "True", Doc: "count only ops while a fault was in effect"}}, Returns: "an evidence value"},
		star.FuncDoc{Name: "process_state", Summary: "Processes read back from /proc in state.",
			Params: []star.Param{minP, {Name: "state", Default: `"T"`, Doc: `the /proc state letter ("T" stopped), or "gone" for killed`}}, Returns: "an evidence value"},
	)
	star.DocumentType(star.TypeDoc{Name: "evidence", Summary: "A landing-evidence declaration, for scenario(landing = ...).", From: "every evidence.* builtin"})
}
