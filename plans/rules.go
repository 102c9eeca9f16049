package plans

// Rule is one check Parse or Lint makes. Its severity is fixed: an error
// halts the run, a warning is reported and the run goes on.
type Rule struct {
	Name     string
	Severity Severity
	Doc      string
}

// Rules lists every check, errors first. The halt rule of spec §1.4 is
// oracle-missing, oracle-unchecked, exit-missing and exit-undecidable.
var Rules = []Rule{
	{"oracle-missing", Error, "a scenario or arm has no Oracle, or only a placeholder (TBD)"},
	{"oracle-unchecked", Error, "the Oracle names no checker or precise predicate a machine can decide (\"logs look fine\")"},
	{"exit-missing", Error, "a scenario or arm has no Exit criteria, or only a placeholder"},
	{"exit-undecidable", Error, "the Exit criteria state no condition a machine can decide"},
	{"claims-missing", Error, "§1b is absent or declares no claim"},
	{"scenarios-missing", Error, "the plan declares no scenario"},
	{"scenario-id", Error, "a scenario heading has no S<n> id"},
	{"id-duplicate", Error, "a claim, scenario or arm id is declared twice"},
	{"category-unknown", Error, "a claim has no category, or one outside the §1.3 enum, so gating cannot be decided"},
	{"falsifies-missing", Error, "a scenario names no claim in Falsifies if it FAILs"},
	{"claim-unknown", Error, "Falsifies if it FAILs names a claim §1b does not declare"},
	{"field-required", Error, "Workload or Faults is missing: the executor cannot generate load or schedule faults"},
	{"budget-missing", Error, "a Smoke, Hardening or Release budget is missing (the release tier may use the not-provided disclosure)"},
	{"budget-unbounded", Error, "a smoke or hardening budget states neither a duration nor an op count, so the run has no end"},
	{"model-required", Error, "a scenario falsifying a safety, durability, idempotency, isolation, ordering or membership claim has no §7.M block"},
	{"surface-required", Error, "a scenario falsifying a boundary or fairness claim has no §7.M.S block"},
	{"fence-unclosed", Error, "a code fence never closes, so the rest of the file is read as code"},
	{"arm-id", Error, "Scenario arms names an arm of another scenario"},
	{"duration-nonpositive", Error, "a fault hold, interval or restart delay, or a budget duration, is zero or negative"},
	{"landing-dropped", Error, "a ```starlark block replaces the whole scenario and sets no landing, so the declared landing evidence would not be checked"},
	{"faults-unknown", Error, "a Faults clause names no fault the compiler reads, or a fault with no target: the run would start without it"},
	{"target-outside", Error, "a Target test file is absolute or outside the repository, so run --author would refuse to write it"},
	{"fault-params", Error, "a fault's parameters are ones it refuses (a clock rate outside 0.9 to 1.1, a strobe period under 100ms, a percentage over 100, netem with nothing to do)"},

	{"title", Warning, "the H1 is not `# Test Plan: <slug>`; a slug was derived"},
	{"header", Warning, "a header field is missing or outside its enum"},
	{"section-missing", Warning, "§4, §6b, §7b, §7c or §7d is absent or empty"},
	{"field-recommended", Warning, "Closes, Technique or Observability required is missing"},
	{"field-duplicate", Warning, "a field or block is given twice"},
	{"field-typo", Warning, "an unknown field label is close to a known one"},
	{"orphan", Warning, "a scenario field or §7.M block outside any scenario"},
	{"table-row", Warning, "a table row the parser cannot use"},
	{"name-style", Warning, "a scenario name is missing or not snake_case"},
	{"oracle-vague-clause", Warning, "a checkable oracle also carries a vague clause that nothing will check"},
	{"oracle-weak", Warning, "a serious scenario's only oracle is a final-state invariant (weak oracle 1)"},
	{"exit-no-fail", Warning, "the Exit criteria state no FAIL condition"},
	{"model-incomplete", Warning, "a §7.M block misses fields; the scenario cannot back a hardening claim"},
	{"model-unknown", Warning, "Model under test is not one of the §1.5 models"},
	{"checker-unrecognized", Warning, "the §7.M Checker names no known checker and gives no \"no checker\" justification"},
	{"landing-weak", Warning, "landing evidence is the injector's own success, which proves nothing"},
	{"model-na-missing", Warning, "an ungated scenario lacks the `§7.M: not applicable` line"},
	{"surface-incomplete", Warning, "a §7.M.S block misses fields"},
	{"arms-needed", Warning, "a §7.M.S scenario spans more than 3 surfaces or categories but declares no arms"},
	{"arm-unlisted", Warning, "an arm section is not named in Scenario arms"},
	{"arm-undefined", Warning, "an arm named in Scenario arms has no section and inherits every field"},
	{"hardening-not-provided", Warning, "the hardening tier is not provided, so the scenario can reach PASS-smoke at most"},
	{"release-disclosure", Warning, "the Release budget is a placeholder, or its disclosure lacks a reason or Revisit when"},
	{"hardening-not-stronger", Warning, "the hardening budget is not strictly stronger than smoke on every dimension"},
	{"budget-floor", Warning, "a hardening budget is below the executor's floors (10k ops for history checks, 3 seeds for statistical claims)"},
	{"ref-unknown", Warning, "a reference to a hypothesis, claim or scenario that does not exist"},
	{"claim-uncovered", Warning, "no scenario falsifies a claim and §7c does not say why"},
}

// ruleSeverity indexes Rules by name.
var ruleSeverity = func() map[string]Severity {
	m := make(map[string]Severity, len(Rules))
	for _, r := range Rules {
		m[r.Name] = r.Severity
	}
	return m
}()

// newDiag builds a diagnostic of a registered rule.
func newDiag(rule string, pos Pos, unit, field, msg, fix string) Diagnostic {
	sev, ok := ruleSeverity[rule]
	if !ok {
		sev = Error // an unregistered rule is a bug; never let it pass silently
	}
	return Diagnostic{Pos: pos, Severity: sev, Rule: rule, Scenario: unit, Field: field, Msg: msg, Fix: fix}
}
