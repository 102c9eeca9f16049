package check

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/faultline/faultline/history"
)

// Stats returns a checker that counts ok/fail/info completions per function.
// It is load evidence, never a safety oracle: its answer is valid whenever
// there was anything to count. A function that never succeeded is named in
// the summary and in Details["never_ok"] (a cas that never matched is what a
// correct store under contention may well do), and the verdict layer reads it
// as load evidence: it can keep a run from passing, never make it fail.
func Stats() Checker { return statsChecker{} }

type statsChecker struct{}

// Name implements Checker.
func (statsChecker) Name() string { return "stats" }

// String describes the checker as it would be written in a scenario.
func (statsChecker) String() string { return "check.stats()" }

// fCounts is the tally of one function's completions.
type fCounts struct{ ok, fail, info int }

// Check implements Checker.
func (statsChecker) Check(_ context.Context, h []history.Op, _ Env) Result {
	blind := []string{"counts outcomes only; says nothing about whether results were correct"}
	counts := map[string]*fCounts{}
	keys := map[string]struct{}{}
	total := 0
	for i := range h {
		op := &h[i]
		if op.IsNemesis() || op.Type == history.Invoke {
			continue
		}
		c := counts[op.F]
		if c == nil {
			c = &fCounts{}
			counts[op.F] = c
		}
		switch op.Type {
		case history.OK:
			c.ok++
		case history.Fail:
			c.fail++
		default:
			c.info++
		}
		if op.Key != nil {
			keys[history.KeyText(op.Key)] = struct{}{}
		}
		total++
	}
	if total == 0 {
		return nothingToCheck("stats", "no operations", blind)
	}
	fs := make([]string, 0, len(counts))
	for f := range counts {
		fs = append(fs, f)
	}
	sort.Strings(fs)
	byF := make(map[string]any, len(fs))
	var never, parts []string
	for _, f := range fs {
		c := counts[f]
		byF[f] = map[string]any{"ok": c.ok, "fail": c.fail, "info": c.info}
		parts = append(parts, fmt.Sprintf("%s %d ok/%d fail/%d info", f, c.ok, c.fail, c.info))
		if c.ok == 0 {
			never = append(never, f)
		}
	}
	res := Result{
		Checker:    "stats",
		Valid:      Valid,
		Summary:    fmt.Sprintf("%d completions: %s", total, strings.Join(parts, "; ")),
		Consumed:   Consumed{Ops: total, Keys: len(keys)},
		BlindSpots: blind,
		Details:    map[string]any{"by_f": byF},
	}
	if len(never) > 0 {
		res.Summary = fmt.Sprintf("%s; no successful %s", res.Summary, strings.Join(never, ", "))
		var b strings.Builder
		for _, f := range never {
			c := counts[f]
			fmt.Fprintf(&b, "Function %s never completed ok (%d fail, %d info): its effect on the system was never observed,\n", f, c.fail, c.info)
		}
		b.WriteString("so checks over this history cannot vouch for it. This is load evidence, not an anomaly: look at the op errors.\n")
		res.Explanation = b.String()
		res.Details["never_ok"] = never
	}
	return res
}
