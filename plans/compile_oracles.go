package plans

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// This file maps the oracles of spec §4 whose checker takes bounds from the
// text (SLO, fairness) and says what the others need from the workload.

// sloLatencyRe reads "p99 < 200ms", "p99 latency under 200 ms", "p99.9 ≤ 1 s".
var sloLatencyRe = regexp.MustCompile(`(?i)\bp(\d{1,2}(?:\.\d+)?|999)\b[^.;\n]{0,50}?(?:≤|<=|<|\bunder\b|\bbelow\b|\bwithin\b|\bat most\b)\s*~?\s*` + durRe)

// sloLatencyAfterRe reads the bound-first form: "≤ 20 ms p99".
var sloLatencyAfterRe = regexp.MustCompile(`(?i)(?:≤|<=|<|\bunder\b|\bbelow\b|\bat most\b)\s*` + durRe + `\s+p(\d{1,2}(?:\.\d+)?|999)\b`)

// sloErrorRe reads an error-rate bound: "error rate < 1%", "error rate == 0".
var sloErrorRe = regexp.MustCompile(`(?i)\berror[- ]rate\b[^.;\n]{0,30}?(?:≤|<=|<|==|=|\bunder\b|\bbelow\b|\bat most\b)\s*(\d+(?:\.\d+)?)\s*(%)?`)

// sloSuccessRe reads a success-rate or availability floor: "availability ≥ 99.9%".
var sloSuccessRe = regexp.MustCompile(`(?i)\b(?:availability|success[- ]rate)\b[^.;\n]{0,30}?(?:≥|>=|>|\bat least\b|\babove\b)\s*(\d+(?:\.\d+)?)\s*%`)

// sloThroughputRe finds a throughput bound, which check.slo does not judge.
var sloThroughputRe = regexp.MustCompile(`(?i)\b(?:throughput|goodput)\b[^.;\n]{0,50}?(?:≥|>=|>|\bat least\b|\babove\b|≤|<=|<)\s*\d`)

// sloWindowRe reads a window: "over 10 s windows", "per 1 min window".
var sloWindowRe = regexp.MustCompile(`(?i)\b(?:per|over|in)\s+(?:each\s+)?` + durRe + `\s+windows?\b`)

var (
	writesRe = regexp.MustCompile(`(?i)\b(?:puts?|writes?)\b`)
	readsRe  = regexp.MustCompile(`(?i)\b(?:gets?|reads?)\b`)
)

// sloPercentiles are the percentiles check.slo bounds, by the plan's name.
var sloPercentiles = map[string]string{"50": "p50", "99": "p99", "99.9": "p999", "999": "p999"}

// sloArgs fills check.slo from the oracle's bounds: latency percentiles, the
// error rate (or a success floor), a window, and the functions judged when the
// oracle names only writes or only reads. A bound the checker cannot judge
// (p95, a throughput floor) leaves the call unmapped with the reason, rather
// than checking less than the plan says.
func sloArgs(call, oracle string) (string, string) {
	t := plain(oracle)
	var args []string
	seen := map[string]bool{}
	add := func(pct, n, unit string) string {
		name, ok := sloPercentiles[pct]
		if !ok {
			return fmt.Sprintf(" (check.slo bounds p50, p99 and p99.9, not p%s)", pct)
		}
		d, ok := parseDur(n, unit)
		if !ok {
			return fmt.Sprintf(" (the p%s bound %s%s is not a positive duration)", pct, n, unit)
		}
		if !seen[name] {
			seen[name] = true
			args = append(args, fmt.Sprintf("%s = %s", name, starQuote(formatDuration(d))))
		}
		return ""
	}
	for _, m := range sloLatencyRe.FindAllStringSubmatch(t, -1) {
		if why := add(m[1], m[2], m[3]); why != "" {
			return "", why
		}
	}
	for _, m := range sloLatencyAfterRe.FindAllStringSubmatch(t, -1) {
		if why := add(m[3], m[1], m[2]); why != "" {
			return "", why
		}
	}
	if m := sloErrorRe.FindStringSubmatch(t); m != nil {
		v, _ := strconv.ParseFloat(m[1], 64)
		if m[2] == "%" {
			v /= 100
		}
		if v > 1 {
			return "", fmt.Sprintf(" (error rate %s is above 1: write it as a percentage)", m[1])
		}
		args = append(args, "error_rate = "+strconv.FormatFloat(v, 'g', -1, 64))
	} else if m := sloSuccessRe.FindStringSubmatch(t); m != nil {
		v, _ := strconv.ParseFloat(m[1], 64)
		if v > 100 {
			return "", fmt.Sprintf(" (%s%% is above 100%%)", m[1])
		}
		args = append(args, "error_rate = "+strconv.FormatFloat((100-v)/100, 'g', 6, 64))
	}
	if sloThroughputRe.MatchString(t) {
		return "", " (check.slo bounds latency percentiles and the error rate, not throughput)"
	}
	if len(args) == 0 {
		return "", ` (no bound: write "p99 < 200ms" or "error rate < 1%")`
	}
	if m := sloWindowRe.FindStringSubmatch(t); m != nil {
		if d, ok := parseDur(m[1], m[2]); ok {
			args = append(args, "window = "+starQuote(formatDuration(d)))
		}
	}
	if fs := judgedFunctions(t); fs != "" {
		args = append(args, fs)
	}
	return fmt.Sprintf(call, strings.Join(args, ", ")), ""
}

// judgedFunctions narrows an SLO to writes or reads when the oracle names only
// one kind ("PUT p99 ≤ 20 ms"): judging every op would dilute the bound.
func judgedFunctions(t string) string {
	w, r := writesRe.MatchString(t), readsRe.MatchString(t)
	switch {
	case w && !r:
		return `f = ["write", "put", "cas"]`
	case r && !w:
		return `f = ["read", "get"]`
	}
	return ""
}

// The fairness formulas of spec §4.2 #14, each with its threshold.
var (
	fairRatioRe  = regexp.MustCompile(`(?i)\bworst_group_p(\d+)\s*/\s*aggregate_p(\d+)\s*(?:<=|≤|<)\s*(\d+(?:\.\d+)?)`)
	fairTputRe   = regexp.MustCompile(`(?i)\bmin_group_throughput\s*(?:>=|≥|>)\s*(\d+(?:\.\d+)?)`)
	fairErrorRe  = regexp.MustCompile(`(?i)\berror_rate_by_group\s*(?:==|=|<=|≤|<)\s*(\d+(?:\.\d+)?)\s*(%)?`)
	fairSpreadRe = regexp.MustCompile(`(?i)\brepeat_spread\s*(?:<=|≤|<)\s*(\d+(?:\.\d+)?)\s*(%)?`)
	fairGroupRe  = regexp.MustCompile(`(?i)\b(?:per|by|each|across)[- ](tenant|shard|region|group|user|client|partition|account|namespace|queue)s?\b`)
	groupFieldRe = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)
)

// fairnessArgs fills check.fairness from the formulas the oracle states. The
// group field is the §7.M.S "Group dimension" (group), else the "per tenant"
// of the oracle; without either the checker groups by key.
func fairnessArgs(call, oracle, group string) (string, string) {
	t := plain(oracle)
	var args []string
	if group == "" {
		if m := fairGroupRe.FindStringSubmatch(t); m != nil {
			group = strings.ToLower(m[1])
		}
	}
	if group != "" {
		args = append(args, "group = "+starQuote(group))
	}
	if m := fairRatioRe.FindStringSubmatch(t); m != nil {
		if m[1] != "99" || m[2] != "99" {
			return "", fmt.Sprintf(" (check.fairness bounds worst_group_p99 / aggregate_p99, not p%s / p%s)", m[1], m[2])
		}
		v, _ := strconv.ParseFloat(m[3], 64)
		if v <= 0 {
			return "", " (the p99 ratio bound must be positive)"
		}
		args = append(args, "max_p99_ratio = "+m[3])
	}
	if m := fairTputRe.FindStringSubmatch(t); m != nil {
		v, _ := strconv.ParseFloat(m[1], 64)
		if v <= 0 {
			return "", " (the min_group_throughput bound must be positive)"
		}
		args = append(args, "min_throughput = "+m[1])
	}
	if m := fairErrorRe.FindStringSubmatch(t); m != nil {
		v, _ := strconv.ParseFloat(m[1], 64)
		if m[2] == "%" {
			v /= 100
		}
		if v > 1 {
			return "", fmt.Sprintf(" (error_rate_by_group %s is above 1: write it as a percentage)", m[1])
		}
		args = append(args, "max_error_rate = "+strconv.FormatFloat(v, 'g', -1, 64))
	}
	if m := fairSpreadRe.FindStringSubmatch(t); m != nil {
		v, _ := strconv.ParseFloat(m[1], 64)
		if m[2] == "%" {
			v /= 100
		}
		if v <= 0 {
			return "", " (the repeat_spread bound must be positive)"
		}
		args = append(args, `repeat = "repeat"`, "max_spread = "+strconv.FormatFloat(v, 'g', -1, 64))
	}
	if len(args) == 0 || len(args) == 1 && group != "" {
		return "", " (no threshold: write worst_group_p99 / aggregate_p99 <= t, min_group_throughput >= t, error_rate_by_group == 0 or repeat_spread <= t)"
	}
	return fmt.Sprintf(call, strings.Join(args, ", ")), ""
}

// group is the unit's fairness group field: the first word of the §7.M.S
// "Group dimension" ("tenant id" → "tenant"), or "".
func (c *compiler) group(u unit) string {
	f := u.s.Surface.Field(FieldGroup)
	if f == nil {
		return ""
	}
	return strings.ToLower(groupFieldRe.FindString(plain(f.Value)))
}

// thresholds is the unit's §7.M.S "Fairness thresholds" text, where a plan
// may state the formulas instead of in the Oracle.
func (c *compiler) thresholds(u unit) string {
	if f := u.s.Surface.Field(FieldThresholds); f != nil {
		return plain(f.Value)
	}
	return ""
}

// clauseSplitRe cuts an oracle into clauses: a comparison belongs to the
// checker named in its own clause.
var clauseSplitRe = regexp.MustCompile(`(?i)[;,()]|\band\b|\bplus\b`)

// coveredClauses reports whether every phrase of the generic family fam
// (predicate, zero-count) in text sits in a clause that names one of the
// mapped families: "cross_tenant_reads == 0" is the bound of the boundary
// checker, "p99 < 200ms" of the SLO; "linearizable, dup_count == 0" leaves
// the predicate to the author.
func coveredClauses(text, fam string, mapped []string) bool {
	t := strings.TrimSpace(plain(text))
	g := vocabTerm(fam)
	if g == nil || len(mapped) == 0 {
		return false
	}
	spans := g.re.FindAllStringIndex(t, -1)
	if len(spans) == 0 {
		return false
	}
	cuts := clauseSplitRe.FindAllStringIndex(t, -1)
	for _, sp := range spans {
		lo, hi := 0, len(t)
		for _, c := range cuts {
			if c[1] <= sp[0] {
				lo = c[1]
			} else if c[0] >= sp[1] {
				hi = c[0]
				break
			}
		}
		clause := t[lo:hi]
		lower := strings.ToLower(clause)
		covered := false
		for _, m := range mapped {
			if v := vocabTerm(m); v != nil && v.matches(clause, lower) {
				covered = true
				break
			}
		}
		if !covered {
			return false
		}
	}
	return true
}

// vocabTerm is the vocabulary row of a checker family.
func vocabTerm(family string) *oracleTerm {
	for i := range vocabulary {
		if vocabulary[i].checker == family {
			return &vocabulary[i]
		}
	}
	return nil
}

// checkerNeed is what a checker family needs the history to hold, and the
// workload models whose generators produce it.
type checkerNeed struct {
	family string
	models []string // nil: no stdlib workload does; the author's block must
	what   string
	block  string // the ```starlark argument that supplies it
}

var checkerNeeds = []checkerNeed{
	{"boundary", []string{"tenants"}, "ops that carry a tenant (op field \"tenant\", keys \"<tenant>/...\")", "workload"},
	{"mutual-exclusion", nil, "acquire and release ops on named locks", "workload"},
	{"prefix-order", nil, "produce ops (append, enqueue, ...) and consumer reads that return the log as a list", "workload"},
	{"replay-equivalence", nil, "a :replay op (the state rebuilt from a snapshot) and a :dump of the live state", "final"},
}

// needs warns, at the Oracle's line, when a mapped checker needs ops the
// compiled workload does not issue: the run would end with the checker
// saying unknown, so the author learns it now. An author's own workload (or
// final) block is trusted to supply them.
func (c *compiler) needs(d *draft, w workloadUse, mapped []string, f *Field, over overrideSet) {
	for _, n := range checkerNeeds {
		if !contains(mapped, n.family) {
			continue
		}
		if _, ok := over.fields[n.block]; ok {
			continue
		}
		if _, ok := over.fields["workload"]; ok && n.block == "workload" {
			continue
		}
		if w.model == nil {
			continue // no workload was mapped: already an error
		}
		if contains(n.models, w.model.model) {
			continue
		}
		fix := "add a ```starlark " + n.block + " = ... block that issues them"
		if len(n.models) > 0 {
			fix = "use the " + strings.Join(n.models, " or ") + " workload, or a ```starlark " + n.block + " = ... block that issues them"
		}
		c.diag(Warning, d.u, FieldOracle, f.Pos.Line,
			fmt.Sprintf("%s needs %s; the %s workload issues none, so its verdict will be unknown", n.family, n.what, w.model.model), fix)
	}
}
