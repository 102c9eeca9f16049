package plans

import (
	"fmt"
	"maps"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// faultParams is what a fault's own clause says beyond its target and its
// schedule: the percentages, times, modes and rates of a loss, netem or
// clock fault. A fault kind with none (partition, kill, pause) needs
// nothing here.
type faultParams struct {
	// target is the spec a clause naming no target gets ("" would warn):
	// a network condition hits every node, a clock fault one node (the
	// point is nodes that disagree).
	target string
	// read returns the builtin's arguments the clause states, as Go values
	// (strings and float64, as the nemesis' Validate takes them), with
	// documented defaults for the ones it leaves out; a problem is a clause
	// that cannot become the fault.
	read func(clause string) (map[string]any, *problem)
	// order is the order the arguments are written in.
	order []string
	// doc lists the parameters for docs/plan-vocabulary.md.
	doc []paramDoc
}

// paramDoc is one parameter row of the vocabulary doc.
type paramDoc struct{ arg, phrases, def string }

// problem is a fault clause that cannot compile as written.
type problem struct {
	sev      Severity
	msg, fix string
}

// faultParamsOf holds the kinds whose clauses carry parameters.
var faultParamsOf = map[string]faultParams{
	"loss": {target: "all", read: lossParams, order: []string{"probability"},
		doc: []paramDoc{{"probability", "packet loss 30%, 25% packet loss", "none: a percentage is required"}}},
	"netem": {target: "all", read: netemParams, order: []string{"delay", "jitter", "loss", "reorder", "duplicate", "corrupt", "rate"},
		doc: []paramDoc{
			{"delay", "delay 50ms, 500 ms latency, latency of 20ms ± 5ms", "none; `\"50ms\"` when reordering or jitter is asked without one (netem reorders by letting some packets skip the delay)"},
			{"jitter", "jitter 10ms, 10ms jitter, 50ms ± 10ms", "`\"10ms\"` when jitter is named without a time"},
			{"loss", "loss 5%, 5% packet loss", "none: loss needs a percentage"},
			{"reorder", "packet reordering, reorder 25%, 25% of packets reordered", "0.25"},
			{"duplicate", "duplicate packets 5%, packet duplication", "0.1"},
			{"corrupt", "corrupt packets 1%, packet corruption", "0.01"},
			{"rate", "rate limit 1mbit, rate 512kbit, 10 Mbit/s rate limit (Mbps is megabits)", "`\"1mbit\"` when a rate limit is named without a rate"},
		}},
	"clock": {target: "one", read: clockParams, order: []string{"mode", "delta", "period", "rate"},
		doc: []paramDoc{
			{"mode", "reset/resync → `\"reset\"`; strobe → `\"strobe\"`; a rate, or drift/skew/fast or slow clock with no offset → `\"skew\"`; otherwise (bump, jump, an offset) → `\"bump\"`", "`\"bump\"`"},
			{"delta", "clock bump +30s, clock skew of 500ms, jump back 5s, 2s behind (bump and strobe)", "`\"30s\"`"},
			{"period", "strobe with period 500ms, a 2s period (strobe; `every` stays the fault's interval)", "`\"1s\"`"},
			{"rate", "time drift at rate 1.1, clock runs 5% fast, 2% slow clock, 1.05x (skew; 0.9 to 1.1)", "1.05"},
		}},
}

// params reads the clause's own arguments for k and checks them as the
// nemesis will when the scenario loads (nemesis.Fault.Validate), so a plan
// whose fault would be refused fails lint at its line instead. spec is the
// clause's target.
func (k *faultKind) params(clause, spec string) (map[string]any, *problem) {
	fp, ok := faultParamsOf[k.kind]
	if !ok {
		return nil, nil
	}
	args, prob := fp.read(clause)
	if prob != nil {
		return nil, prob
	}
	if k.validate != nil {
		value := maps.Clone(args)
		value["nodes"] = spec
		if err := k.validate(value); err != nil {
			return nil, &problem{sev: Error, msg: fmt.Sprintf("%s in %q cannot be injected as written: %v", k.kind, clause, err),
				fix: "state parameters the fault takes (see docs/plan-vocabulary.md, Fault parameters), or write a ```starlark nemesis = ... block"}
		}
	}
	return args, nil
}

// lossRe reads the probability of a packet-loss clause.
var lossRe = regexp.MustCompile(`(\d+(?:\.\d+)?)\s*%`)

func lossParams(clause string) (map[string]any, *problem) {
	m := lossRe.FindStringSubmatch(clause)
	if m == nil {
		return nil, &problem{sev: Warning, msg: fmt.Sprintf("packet loss in %q states no percentage", clause), fix: `write "packet loss 30%"`}
	}
	p, _ := strconv.ParseFloat(m[1], 64)
	return map[string]any{"probability": p / 100}, nil
}

// A tc time: a number and ms, s or us (µs).
const tcTimeRe = `(\d+(?:\.\d+)?)\s*(ms|s|us|µs)\b`

var (
	netemDelayRe = regexp.MustCompile(`(?i)\b(?:delay|latency)\s+(?:of\s+)?` + tcTimeRe + `(?:\s*(?:±|\+/-|\+-)\s*` + tcTimeRe + `)?` +
		`|` + tcTimeRe + `(?:\s*(?:±|\+/-|\+-)\s*` + tcTimeRe + `)?\s+(?:of\s+)?(?:added\s+|extra\s+)?(?:delay|latency)\b`)
	// "jitter 5ms" is tried before "5ms jitter": in "delay 50ms jitter
	// 5ms" the time before the word is the delay's.
	netemJitterRes = []*regexp.Regexp{regexp.MustCompile(`(?i)\bjitter\s+(?:of\s+)?` + tcTimeRe), regexp.MustCompile(`(?i)` + tcTimeRe + `\s+(?:of\s+)?jitter\b`)}
	netemJitterWd  = regexp.MustCompile(`(?i)\bjitter\b`)
	// A rate: tc's kbit/mbit/gbit, or bit/s and bps as people write them
	// (Mbps is megabits here, never tc's megabytes).
	netemRateRe   = regexp.MustCompile(`(?i)\brate(?:[- ]limit\w*)?\s+(?:of\s+|to\s+|at\s+)?(\d+(?:\.\d+)?)\s*([kmg]?)(?:bit/s|bits?|bps)\b|(\d+(?:\.\d+)?)\s*([kmg]?)(?:bit/s|bits?|bps)\s+rate[- ]limit`)
	netemRateWord = regexp.MustCompile(`(?i)\brate[- ]limit`)
)

// netemProbs are netem's probabilities, each with the stem plans name it
// by and its default when named without a percentage (loss has none: like
// the loss fault it needs one).
var netemProbs = []struct {
	arg, stem string
	def       float64
}{
	{"loss", `loss`, 0},
	{"reorder", `reorder\w*`, 0.25},
	{"duplicate", `duplicat\w*`, 0.1},
	{"corrupt", `corrupt\w*`, 0.01},
}

// netemProbRes are, per probability, the regexp reading its percentage
// ("reorder 25%", "5% of packets duplicated") and the one that finds it
// named at all.
var netemProbRes = func() map[string][2]*regexp.Regexp {
	out := map[string][2]*regexp.Regexp{}
	for _, p := range netemProbs {
		pct := `([-−]?\d+(?:\.\d+)?)\s*%`
		out[p.arg] = [2]*regexp.Regexp{
			regexp.MustCompile(`(?i)\b` + p.stem + `\s+(?:of\s+|by\s+)?(?:the\s+)?(?:packets?\s+)?` + pct + `|` + pct + `\s+(?:of\s+)?(?:the\s+)?(?:packets?\s+)?(?:are\s+)?` + p.stem),
			regexp.MustCompile(`(?i)\b` + p.stem + `\b`),
		}
	}
	return out
}()

func netemParams(clause string) (map[string]any, *problem) {
	clause = withoutSchedule(clause)
	args := map[string]any{}
	if m := netemDelayRe.FindStringSubmatch(clause); m != nil {
		if m[1] != "" {
			args["delay"] = tcTime(m[1], m[2])
			if m[3] != "" {
				args["jitter"] = tcTime(m[3], m[4])
			}
		} else {
			args["delay"] = tcTime(m[5], m[6])
			if m[7] != "" {
				args["jitter"] = tcTime(m[7], m[8])
			}
		}
	}
	jitter := false
	for _, re := range netemJitterRes {
		if m := re.FindStringSubmatch(clause); m != nil {
			args["jitter"], jitter = tcTime(m[1], m[2]), true
			break
		}
	}
	if _, set := args["jitter"]; !set && !jitter && netemJitterWd.MatchString(clause) {
		args["jitter"] = "10ms"
	}
	for _, p := range netemProbs {
		res := netemProbRes[p.arg]
		if m := res[0].FindStringSubmatch(clause); m != nil {
			n := m[1]
			if n == "" {
				n = m[2]
			}
			v, _ := strconv.ParseFloat(strings.Replace(n, "−", "-", 1), 64)
			args[p.arg] = v / 100
			continue
		}
		if !res[1].MatchString(clause) {
			continue
		}
		if p.def == 0 {
			return nil, &problem{sev: Warning, msg: fmt.Sprintf("netem %s in %q states no percentage", p.arg, clause), fix: `write "` + p.arg + ` 5%"`}
		}
		args[p.arg] = p.def
	}
	if m := netemRateRe.FindStringSubmatch(clause); m != nil {
		n, unit := m[1], m[2]
		if n == "" {
			n, unit = m[3], m[4]
		}
		args["rate"] = n + strings.ToLower(unit) + "bit"
	} else if netemRateWord.MatchString(clause) {
		args["rate"] = "1mbit"
	}
	_, reorder := args["reorder"]
	_, jitter = args["jitter"]
	if _, ok := args["delay"]; !ok && (reorder || jitter) {
		args["delay"] = "50ms"
	}
	return args, nil
}

// withoutSchedule cuts the schedule phrases out of a clause, so that "for
// 20s" or "at T+30s" is never read as a parameter.
func withoutSchedule(clause string) string {
	for _, s := range scheduleTerms {
		clause = s.re.ReplaceAllString(clause, " ")
	}
	return clause
}

// tcTime writes a number and unit as tc reads a time ("500ms").
func tcTime(n, unit string) string {
	if unit == "µs" {
		unit = "us"
	}
	return n + strings.ToLower(unit)
}

// A clock offset: a signed duration ("+30s", "-2s", "500 ms").
const clockDurRe = `([+−-]?)\s*(\d+(?:\.\d+)?)\s*(ms|s|secs?|seconds?|m|mins?|minutes?|h|hours?)\b`

var (
	clockResetRe  = regexp.MustCompile(`(?i)\breset\w*|\bresync\w*`)
	clockStrobeRe = regexp.MustCompile(`(?i)\bstrob\w*`)
	clockSkewRe   = regexp.MustCompile(`(?i)\bdrift\w*|\bskew\w*|\b(?:fast|slow)\s+clocks?\b|\bruns?\s+(?:fast|slow)\b`)
	clockRateRe   = regexp.MustCompile(`(?i)\brate\s+(?:of\s+)?(\d+(?:\.\d+)?)\b|\b(\d+(?:\.\d+)?)\s*[x×](?:\s|$|,)|\b(\d+(?:\.\d+)?)\s*%\s+(fast|slow)`)
	clockPeriodRe = regexp.MustCompile(`(?i)\bperiods?\s+(?:of\s+)?` + clockDurRe + `|` + clockDurRe + `\s+periods?\b`)
	clockDeltaRe  = regexp.MustCompile(clockDurRe)
	clockBackRe   = regexp.MustCompile(`(?i)\bback(?:wards?)?\b|\bbehind\b|\binto the past\b`)
)

// clockParams reads a clock clause: the mode from its words and its
// parameters, with the builtin's defaults (bump by 30s, strobe every 1s,
// skew at 1.05) for what it leaves out. Schedule phrases are cut out
// first, so "for 20s" or "at T+30s" is never read as the offset.
func clockParams(clause string) (map[string]any, *problem) {
	rest := withoutSchedule(clause)
	switch {
	case clockResetRe.MatchString(rest):
		return map[string]any{"mode": "reset"}, nil
	case clockStrobeRe.MatchString(rest):
		period := "1s"
		if m := clockPeriodRe.FindStringSubmatch(rest); m != nil {
			period = clockDuration(m[1:4], m[4:7], false)
			rest = strings.Replace(rest, m[0], " ", 1)
		}
		return map[string]any{"mode": "strobe", "delta": clockDelta(rest), "period": period}, nil
	}
	if m := clockRateRe.FindStringSubmatch(rest); m != nil {
		var rate float64
		switch {
		case m[1] != "":
			rate, _ = strconv.ParseFloat(m[1], 64)
		case m[2] != "":
			rate, _ = strconv.ParseFloat(m[2], 64)
		default:
			pct, _ := strconv.ParseFloat(m[3], 64)
			if strings.EqualFold(m[4], "slow") {
				pct = -pct
			}
			rate = 1 + pct/100
		}
		return map[string]any{"mode": "skew", "rate": rate}, nil
	}
	if !clockDeltaRe.MatchString(rest) && clockSkewRe.MatchString(rest) {
		return map[string]any{"mode": "skew", "rate": 1.05}, nil
	}
	return map[string]any{"mode": "bump", "delta": clockDelta(rest)}, nil
}

// clockDelta is the clause's offset, negative when signed so or said to
// go back; 30s (the builtin's default) when it states none.
func clockDelta(rest string) string {
	m := clockDeltaRe.FindStringSubmatch(rest)
	if m == nil {
		return "30s"
	}
	return clockDuration(m[1:4], nil, clockBackRe.MatchString(rest))
}

// clockDuration writes a signed duration from clockDurRe's groups (a, or b
// when a matched nothing) as Go parses it ("-2s", "500ms").
func clockDuration(a, b []string, back bool) string {
	g := a
	if g[1] == "" && b != nil {
		g = b
	}
	sign, n, unit := g[0], g[1], strings.ToLower(g[2])
	v, _ := strconv.ParseFloat(n, 64)
	u, ok := durationUnits[unit]
	if unit == "ms" {
		u, ok = time.Millisecond, true
	}
	if !ok {
		u = time.Second
	}
	d := time.Duration(v * float64(u))
	s := formatDuration(d)
	if d == 0 {
		s = "0s"
	}
	if sign == "-" || sign == "−" || (sign == "" && back) {
		s = "-" + s
	}
	return s
}

// starValue writes a parameter as a Starlark literal: strings quoted,
// numbers as floats (the builtins' probabilities and rates are floats).
func starValue(v any) string {
	switch v := v.(type) {
	case float64:
		s := strconv.FormatFloat(v, 'g', -1, 64)
		if !strings.ContainsAny(s, ".eE") {
			s += ".0"
		}
		return s
	case string:
		return starQuote(v)
	}
	return starQuote(fmt.Sprint(v))
}
