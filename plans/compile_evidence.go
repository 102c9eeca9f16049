package plans

import (
	"fmt"
	"regexp"
	"strings"
)

// evidenceTerm is one row of the landing-evidence vocabulary: a phrase of the
// §7.M "Nemesis + landing evidence" field and the evidence.* call that checks
// it. An empty call is a phrase the compiler recognises but no evidence
// builtin checks yet; it becomes a warning, not a silent drop.
type evidenceTerm struct {
	phrases string
	re      *regexp.Regexp
	call    string
}

// evidenceTerms are matched anywhere in the field; each call is emitted once.
var evidenceTerms = []evidenceTerm{
	{"DROP counter, iptables counters, dropper counters", regexp.MustCompile(`(?i)\bDROP\s+counters?\b|\biptables\b[^.;]{0,40}\bcounters?\b|\bdropper counters?\b`), "evidence.iptables_drops(min = 1)"},
	{"timeouts / errors in the window, RPC timeouts, clients see timeouts", regexp.MustCompile(`(?i)\b(?:timeouts?|errors?)\b[^.;]{0,30}\b(?:in|during) the (?:fault )?window\b|\bRPC timeouts\b|\bsees? timeouts\b`), "evidence.op_errors(during_fault = True)"},
	{"PID is gone, process gone, SIGKILL exit status", regexp.MustCompile(`(?i)\bPID\b[^.;]{0,20}\bgone\b|\bprocess\b[^.;]{0,20}\bgone\b|\bSIGKILL exit\b`), `evidence.process_state(state = "gone")`},
	{"process stopped, heartbeat gap", regexp.MustCompile(`(?i)\bprocess\b[^.;]{0,20}\bstopped\b|\bheartbeat gap\b`), `evidence.process_state(state = "stopped")`},
	{"new leader appears, leader change, re-election", regexp.MustCompile(`(?i)\bnew leader\b|\bleader changes?\b|\bre-?election\b`), ""},
	{"job log shows a restart", regexp.MustCompile(`(?i)\blog shows a restart\b`), ""},
}

// defaultEvidence is the generic landing evidence of spec §5 for a fault when
// the unit has no §7.M landing field, by fault kind: each fault's own, as
// nemesis registers it (faultKinds).
var defaultEvidence = func() map[string]string {
	m := map[string]string{}
	for _, k := range faultKinds {
		if k.evidence != "" {
			m[k.kind] = k.evidence
		}
	}
	return m
}()

// landing maps the landing evidence to landing = [...]: the §7.M field when
// there is one, else the §5 default of each fault the nemesis injects.
func (c *compiler) landing(d *draft, over overrideSet) {
	if _, ok := over.fields["landing"]; ok {
		return
	}
	u := d.u
	if _, block := over.fields["nemesis"]; !d.has("nemesis") && !block {
		// A nemesis from a ```starlark block is a nemesis all the same:
		// the declared evidence applies to it (its faults are unknown
		// here, so there is no §5 default to give).
		return
	}
	f := c.resolveAs(u, u.model().Field(FieldLanding))
	var calls []string
	if f == nil {
		for _, m := range d.mapped {
			if m.Field != FieldFaults {
				continue
			}
			kind := strings.TrimPrefix(m.Starlark[:strings.IndexByte(m.Starlark, '(')], "nemesis.")
			if call := defaultEvidence[kind]; call != "" && !contains(calls, call) {
				calls = append(calls, call)
				d.record(FieldLanding, m.PlanLine, "default for "+kind+" (spec §5)", call)
			}
		}
		if len(calls) > 0 {
			d.set("landing", "["+strings.Join(calls, ", ")+"]", "landing: spec §5 default evidence for the faults above (no §7.M landing field)")
		}
		return
	}
	text := plain(f.Value)
	for _, t := range evidenceTerms {
		m := t.re.FindString(text)
		if m == "" {
			continue
		}
		if t.call == "" {
			c.diag(Warning, u, FieldLanding, f.Pos.Line, fmt.Sprintf("landing evidence %q has no evidence.* builtin; it is not checked", m),
				"rely on the mapped evidence, or add a ```starlark landing = ... block")
			continue
		}
		if !contains(calls, t.call) {
			calls = append(calls, t.call)
			d.record(FieldLanding, f.Pos.Line, m, t.call)
		}
	}
	if len(calls) == 0 {
		c.diag(Warning, u, FieldLanding, f.Pos.Line, fmt.Sprintf("landing evidence %q is not in the vocabulary", oneLine(f.Value)),
			"name DROP counters, timeouts in the window, or the PID gone; or add a ```starlark landing = ... block")
		return
	}
	d.set("landing", "["+strings.Join(calls, ", ")+"]", cite(FieldLanding, f.Pos.Line, f.Value))
}

// asRe is a landing field that defers to another unit's: "as S1/api".
var asRe = regexp.MustCompile(`(?i)^\s*(?:same\s+)?as\s+(S\d+(?:/[\w-]+)?)\s*\.?\s*$`)

// resolveAs follows "as S1/api" to that unit's landing field, keeping the
// referring line for diagnostics; anything else comes back unchanged.
func (c *compiler) resolveAs(u unit, f *Field) *Field {
	if f == nil {
		return nil
	}
	m := asRe.FindStringSubmatch(plain(f.Value))
	if m == nil {
		return f
	}
	var mb *ModelBlock
	for _, a := range u.s.Arms {
		if strings.EqualFold(a.ID, m[1]) {
			mb = a.Model
		}
	}
	if s := c.p.Scenario(strings.ToUpper(m[1])); s != nil {
		mb = s.Model
	}
	target := mb.Field(FieldLanding)
	if target == nil || target == f {
		return f
	}
	out := *target
	out.Pos = f.Pos
	return &out
}

// landingSetRe finds a landing argument in a whole-scenario block.
var landingSetRe = regexp.MustCompile(`(?m)\blanding\s*=`)

// landingDropped is the diagnostic of a unit whose declared landing
// evidence (the §7.M landing field) cannot reach the compiled scenario: a
// ```starlark block replaces the whole scenario and sets no landing of its
// own, so a fault that did nothing would pass as "every fault landed".
// nil when the evidence is attached.
func (c *compiler) landingDropped(u unit, over overrideSet) *Diagnostic {
	f := c.resolveAs(u, u.model().Field(FieldLanding))
	if over.whole == nil || f == nil || landingSetRe.MatchString(over.whole.code) {
		return nil
	}
	var calls []string
	for _, t := range evidenceTerms {
		if t.call != "" && t.re.MatchString(plain(f.Value)) && !contains(calls, t.call) {
			calls = append(calls, t.call)
		}
	}
	want := "landing = [evidence....]"
	if len(calls) > 0 {
		want = "landing = [" + strings.Join(calls, ", ") + "]"
	}
	d := newDiag("landing-dropped", Pos{File: c.p.Pos.File, Line: over.whole.line}, u.id(), FieldLanding,
		fmt.Sprintf("the ```starlark block at line %d replaces the whole scenario and sets no landing, so the declared landing evidence %q (line %d) would not be checked",
			over.whole.line, oneLine(f.Value), f.Pos.Line),
		"add "+want+" to the block's scenario() call, or put only the nemesis in the block (nemesis = ...) so the compiler attaches the declared evidence")
	return &d
}
