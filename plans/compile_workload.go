package plans

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// workloadModel is one row of the workload vocabulary: the phrase that names
// a model in a Workload field, the stdlib generator it becomes and what the
// oracle mapping needs to know about it.
type workloadModel struct {
	model   string // the plan's name for it
	phrases string // how a plan says it, for the vocabulary doc
	re      *regexp.Regexp
	fn      string // the @stdlib//workloads.star function
	linear  string // model for check.linearizable, "" when not a register
	txn     string // workload for check.transactional, "" when not transactional
}

// workloadModels is read top to bottom; the first row that matches wins, so
// compound names come before the words inside them ("cas-register" before
// "register").
var workloadModels = []workloadModel{
	{"cas-register", "cas-register, compare-and-swap register", regexp.MustCompile(`(?i)\bcas[- ]registers?\b|\bcompare[- ]and[- ]s(?:wap|et) registers?\b`), "cas_register", "cas-register", ""},
	{"list-append", "list-append, append-only lists", regexp.MustCompile(`(?i)\blist[- ]append\b|\bappend[- ]only lists?\b`), "list_append", "", "list-append"},
	{"rw-register", "rw-register, read-write register", regexp.MustCompile(`(?i)\brw[- ]registers?\b|\bread[- ]write registers?\b`), "rw_register", "", "rw-register"},
	{"register", "register, registers", regexp.MustCompile(`(?i)\bregisters?\b`), "register", "register", ""},
	{"bank", "bank, transfers between accounts", regexp.MustCompile(`(?i)\bbank\b|\btransfers? between accounts\b`), "bank", "", ""},
	{"set", "set (as the first word), set workload, adds to a set", regexp.MustCompile(`(?i)^set\b|\bset workload\b|\badds? to a set\b`), "set", "", ""},
	{"counter", "counter, counters, increments", regexp.MustCompile(`(?i)\bcounters?\b|\bincrements\b`), "counter", "", ""},
	{"unique-ids", "unique-ids, unique id generation", regexp.MustCompile(`(?i)\bunique[- ]ids?\b|\bunique id generation\b`), "unique_ids", "", ""},
	{"queue", "queue, enqueue / dequeue", regexp.MustCompile(`(?i)\bqueues?\b|\benqueue\b`), "queue", "", ""},
	// Last: "cas-register per tenant" is a register workload.
	{"tenants", "tenants, multi-tenant, tenant isolation", regexp.MustCompile(`(?i)\bmulti[- ]tenant\b|\btenants?\b`), "tenants", "", ""},
}

// workloadParam is one row of the parameter vocabulary: a phrase with a
// number in it and what it sets.
type workloadParam struct {
	phrase string // for the vocabulary doc
	re     *regexp.Regexp
	target string // "keys", "ops_per_key", "concurrency" or "rate"
	render func(n float64) string
}

// workloadParams: keys become the generator's keys argument, clients the
// scenario's concurrency ("2n" is two per node), a total rate the stagger
// between ops (1/R seconds).
var workloadParams = []workloadParam{
	{"over N keys, N keys", regexp.MustCompile(`(?i)\b(?:over\s+)?(\d+)\s+keys\b`), "keys",
		func(n float64) string { return "keys = " + strconv.Itoa(int(n)) }},
	// A register retires after this many ops (register and cas-register
	// with keys): shorter per-key histories keep the linearizability
	// search small when faults leave many ops with unknown outcome.
	{"N ops per key", regexp.MustCompile(`(?i)\b(\d+)\s+(?:ops|operations)\s+per\s+key\b`), "ops_per_key",
		func(n float64) string { return "ops_per_key = " + strconv.Itoa(int(n)) }},
	{"N clients / writers / workers / threads per node", regexp.MustCompile(`(?i)\b(\d+)\s+(?:clients?|writers?|readers?|workers?|threads?)\s+per\s+node\b`), "concurrency",
		func(n float64) string { return starQuote(strconv.Itoa(int(n)) + "n") }},
	{"N clients / workers / threads (total)", regexp.MustCompile(`(?i)\b(\d+)\s+(?:clients?|workers?|threads?)\b(?:\s+total)?`), "concurrency",
		func(n float64) string { return strconv.Itoa(int(n)) }},
	{"R ops/s (total), R ops per second", regexp.MustCompile(`(?i)\b(\d+(?:\.\d+)?)\s*(?:ops|operations|requests|req|writes|txns)\s*(?:/\s*s(?:ec)?\b|per\s+second\b)`), "rate",
		func(r float64) string { return starQuote(formatDuration(time.Duration(float64(time.Second) / r))) }},
}

// keyArgs names each workload function's parameter for how many keys it
// spreads ops over; a function missing here takes none.
var keyArgs = map[string]string{"register": "keys", "cas_register": "keys", "tenants": "keys",
	"list_append": "key_count", "rw_register": "key_count"}

// opsPerKey lists the workload functions that retire a key after
// ops_per_key ops.
var opsPerKey = map[string]bool{"register": true, "cas_register": true}

// workloadUse is what the workload mapping tells the oracle mapping.
type workloadUse struct {
	model *workloadModel
	keyed bool // ops carry keys ("over 8 keys"): registers are checked per key
}

// workload maps the Workload field: a model from the table (or the §7.M
// model when the field names none), then keys, clients and rate.
func (c *compiler) workload(d *draft, over overrideSet) workloadUse {
	u := d.u
	f := u.field(FieldWorkload)
	if _, ok := over.fields["workload"]; ok {
		return workloadUse{model: c.modelFromPlan(u, f)}
	}
	if f == nil {
		c.diag(Error, u, FieldWorkload, 0, "no Workload field to compile",
			"add a Workload naming one of: "+modelNames()+", or a ```starlark workload = ... block")
		d.set("workload", "None", "UNMAPPED: no Workload field")
		return workloadUse{}
	}
	m := c.modelFromPlan(u, f)
	if m == nil {
		c.diag(Error, u, FieldWorkload, f.Pos.Line, fmt.Sprintf("workload %q names no known model", oneLine(f.Value)),
			"name one of: "+modelNames()+"; or add a ```starlark workload = ... block")
		d.set("workload", "None", cite(FieldWorkload, f.Pos.Line, f.Value), "UNMAPPED: no workload model named")
		return workloadUse{}
	}
	d.load(m.fn)
	text := plain(f.Value)
	var args []string
	keyed := false
	expr := ""
	for _, p := range workloadParams {
		mm := p.re.FindStringSubmatch(text)
		if mm == nil {
			continue
		}
		n, err := strconv.ParseFloat(mm[1], 64)
		if err != nil || n <= 0 {
			continue
		}
		switch p.target {
		case "keys":
			arg, ok := keyArgs[m.fn]
			if !ok {
				c.diag(Warning, u, FieldWorkload, f.Pos.Line, fmt.Sprintf("%q: the %s workload takes no number of keys, so it is ignored", mm[0], m.model),
					"drop it, or write the workload in a ```starlark block")
				continue
			}
			keyed = keyed || arg == "keys"
			rendered := arg + " = " + strconv.Itoa(int(n))
			args = append(args, rendered)
			d.record(FieldWorkload, f.Pos.Line, mm[0], rendered)
			continue
		case "ops_per_key":
			if !opsPerKey[m.fn] {
				c.diag(Warning, u, FieldWorkload, f.Pos.Line, fmt.Sprintf("%q: the %s workload does not retire keys after a number of ops, so it is ignored", mm[0], m.model),
					"drop it, or write the workload in a ```starlark block")
				continue
			}
			args = append(args, p.render(n))
		case "concurrency":
			if !d.has("concurrency") {
				d.set("concurrency", p.render(n), cite(FieldWorkload, f.Pos.Line, mm[0]))
				d.record(FieldWorkload, f.Pos.Line, mm[0], "concurrency = "+p.render(n))
			}
			continue
		case "rate":
			expr = p.render(n)
		}
		d.record(FieldWorkload, f.Pos.Line, mm[0], p.render(n))
	}
	if m.model == "tenants" {
		if names, line := adversarialTenants(u); len(names) >= 2 {
			arg := "tenants = " + starList(names)
			args = append([]string{arg}, args...)
			d.record(FieldAdversarial, line, strings.Join(names, ", "), arg)
		}
	}
	call := m.fn + "(" + strings.Join(args, ", ") + ")"
	if expr != "" {
		call = "gen.stagger(" + expr + ", " + call + ")"
	}
	d.record(FieldWorkload, f.Pos.Line, f.Value, call)
	d.set("workload", call, cite(FieldWorkload, f.Pos.Line, f.Value))
	return workloadUse{model: m, keyed: keyed}
}

// modelFromPlan finds the model in the Workload text, else in §7.M.
func (c *compiler) modelFromPlan(u unit, f *Field) *workloadModel {
	if f != nil {
		if m := matchModel(plain(f.Value)); m != nil {
			return m
		}
	}
	if mb := u.model(); mb != nil && mb.Model != "" {
		for i := range workloadModels {
			if workloadModels[i].model == mb.Model {
				return &workloadModels[i]
			}
		}
	}
	return nil
}

func matchModel(text string) *workloadModel {
	for i := range workloadModels {
		if workloadModels[i].re.MatchString(text) {
			return &workloadModels[i]
		}
	}
	return nil
}

func modelNames() string {
	names := make([]string, len(workloadModels))
	for i, m := range workloadModels {
		names[i] = m.model
	}
	return strings.Join(names, ", ")
}

func (d *draft) has(name string) bool {
	for _, k := range d.kwargs {
		if k.name == name {
			return true
		}
	}
	return false
}

// formatDuration writes d in the largest whole unit ("2m", "30s", "5ms"), the
// form the budget and stagger builtins read.
func formatDuration(d time.Duration) string {
	for _, u := range []struct {
		d    time.Duration
		name string
	}{{time.Hour, "h"}, {time.Minute, "m"}, {time.Second, "s"}, {time.Millisecond, "ms"}} {
		if d >= u.d && d%u.d == 0 {
			return strconv.FormatInt(int64(d/u.d), 10) + u.name
		}
	}
	return d.String()
}

// backtickRe finds the `code spans` of a field.
var backtickRe = regexp.MustCompile("`([^`\n]+)`")

// adversarialTenants reads the tenant names of the §7.M.S "Adversarial
// inputs" ("`acme` vs `acme-corp`; `Acme` vs `acme`"): its code spans, in
// order, without repeats. A name holding the key separator "/" cannot be a
// tenant of the tenants workload (its keys are "<tenant>/<n>") and is left
// out. The field's line is returned for the mapping record.
func adversarialTenants(u unit) ([]string, int) {
	f := u.s.Surface.Field(FieldAdversarial)
	if f == nil {
		return nil, 0
	}
	var names []string
	for _, m := range backtickRe.FindAllStringSubmatch(f.Value, -1) {
		if n := m[1]; !strings.Contains(n, "/") && !contains(names, n) {
			names = append(names, n)
		}
	}
	return names, f.Pos.Line
}
