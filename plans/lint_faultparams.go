package plans

import "strings"

// faultParams reports every Faults clause whose fault would refuse the
// parameters it states (a clock rate of 2, duplicate packets 150%, netem
// with nothing to do): the scenario could not load, so the plan must not
// pass lint and fail later at run time. The compiler reads the clauses
// the same way (faultKind.params).
func (l *linter) faultParams(u unit) {
	f := u.field(FieldFaults)
	if f == nil {
		return
	}
	for _, clause := range strings.Split(plain(f.Value), ";") {
		clause = strings.TrimSpace(clause)
		k := matchFaultKind(clause)
		if k == nil || faultCount.MatchString(clause) {
			continue
		}
		spec := targetOf(k, clause)
		if spec == "" {
			spec = "one" // the compiler warns of the missing target; the parameters are judged all the same
		}
		if _, prob := k.params(clause, spec); prob != nil && prob.sev == Error {
			l.report("fault-params", f.Pos, u.id(), FieldFaults, prob.msg, prob.fix)
		}
	}
}

// faultsUnknown rejects every Faults clause the compiler would drop: text
// that names no fault of the vocabulary, a schedule with no fault before it,
// a fault with no target. Left to the compiler, the run would start without
// the fault and only the verdict would say too few faults landed. A unit
// whose nemesis (or whole scenario) a ```starlark block gives is exempt:
// its Faults field describes that block.
func (l *linter) faultsUnknown(u unit) {
	f := u.field(FieldFaults)
	if f == nil {
		return
	}
	over := l.blocks.overrides(u)
	if _, ok := over.fields["nemesis"]; ok || over.whole != nil {
		return
	}
	for _, fc := range readFaultClauses(f.Value) {
		switch {
		case fc.class == clauseUnknown:
			l.report("faults-unknown", f.Pos, u.id(), FieldFaults, unknownFaultMsg(fc), unknownFaultFix())
		case fc.class == clauseFault && targetOf(fc.kind, fc.text) == "":
			l.report("faults-unknown", f.Pos, u.id(), FieldFaults, noTargetMsg(fc), noTargetFix())
		}
	}
}
