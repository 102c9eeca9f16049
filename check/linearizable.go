package check

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/faultline/faultline/history"
	"github.com/faultline/faultline/internal/plural"
)

func init() {
	Register(Spec{
		Name:   "linearizable",
		Models: Models(),
		New: func(o Options) (Checker, error) {
			return Linearizable(LinearizableOptions{Model: o.Model, Init: o.Init})
		},
		Plan:            []string{"linearizable"},
		Oracle:          "history",
		ModelsUnderTest: []string{"register", "map"},
		Mutants:         []string{"register"},
	})
}

// VisualizationFile is the name of the HTML page a failing or undecided
// linearizability check writes into Env.OutDir.
const VisualizationFile = "linearizability.html"

// LinearizableOptions configures Linearizable.
type LinearizableOptions struct {
	Model string // one of Models()
	Init  any    // initial value (register, cas-register, kv) or map of registers (multi-register); nil by default
}

// Models lists the model names Linearizable accepts.
func Models() []string {
	names := make([]string, len(models))
	for i, m := range models {
		names[i] = m.name
	}
	return names
}

// Linearizable returns a checker that decides whether a history is
// linearizable with respect to the named model, using porcupine.
func Linearizable(o LinearizableOptions) (Checker, error) {
	s := &spec{name: o.Model, init: o.Init}
	found := false
	for _, m := range models {
		if m.name == o.Model {
			s.kind, found = m.kind, true
		}
	}
	if !found {
		return nil, fmt.Errorf("unknown linearizability model %q; models: %s", o.Model, strings.Join(Models(), ", "))
	}
	switch s.kind {
	case kindMulti:
		m, ok := o.Init.(map[string]any)
		if !ok && o.Init != nil {
			return nil, fmt.Errorf("multi-register init must be a map of registers such as {x:0,y:0}, got %s", formatValue(o.Init))
		}
		// nil and absent are one value in the state, so drop nil entries.
		s.initMap = make(map[string]any, len(m))
		for k, v := range m {
			if v != nil {
				s.initMap[k] = v
			}
		}
		s.init = nil
	case kindKV:
		if _, ok := o.Init.(map[string]any); ok {
			return nil, fmt.Errorf("kv init is one value for every key, got the map %s", formatValue(o.Init))
		}
		s.init = normKV(o.Init)
	}
	return &linearizable{s: s, init: o.Init}, nil
}

type linearizable struct {
	s    *spec
	init any // the init value as given, for display
}

// Name implements Checker.
func (c *linearizable) Name() string { return "linearizable" }

// String describes the checker as it would be written in a scenario.
func (c *linearizable) String() string {
	init := formatValue(c.init)
	if v, ok := scriptLiteral(c.init); ok {
		init = v
	}
	return fmt.Sprintf("check.linearizable(model=%q, init=%s)", c.s.name, init)
}

// blindSpots says what a pass from this checker does not cover.
func (c *linearizable) blindSpots() []string {
	b := []string{
		"fail ops are taken as never having happened",
		"info and unfinished ops may take effect at any time after their invocation; their results are not checked",
		"real-time order is the order ops were recorded in the history, not their clocks",
	}
	if c.s.kind == kindKV {
		b = append(b, "an absent key and the empty string are the same value")
	}
	if c.s.init != nil || len(c.s.initMap) > 0 {
		b = append(b, "a read of nil is taken as reading the initial value")
	}
	return b
}

// Check implements Checker.
func (c *linearizable) Check(ctx context.Context, h []history.Op, env Env) (res Result) {
	res = Result{Checker: c.Name(), BlindSpots: c.blindSpots()}
	defer func() {
		// porcupine is third-party code; a panic in it must not take the run down.
		if r := recover(); r != nil {
			res.Valid, res.Summary = Unknown, fmt.Sprintf("internal error in the linearizability check: %v", r)
		}
	}()
	if r, empty := noClientOps(c.Name(), h); empty {
		r.BlindSpots = res.BlindSpots
		return r
	}
	prep, err := c.s.prepare(h)
	if err != nil {
		r := cannotCheck(c.Name(), err, res.BlindSpots)
		r.Summary = fmt.Sprintf("cannot check the history against %s: %v", c.s.name, err)
		return r
	}
	res.Details = map[string]any{
		"model": c.s.name, "init": formatValue(c.init), "ok_ops": prep.ok, "unknown_ops": prep.unknown,
		"failed_ops_dropped": prep.failed, "unknown_reads_dropped": prep.infoReads, "partitions": len(prep.parts),
	}
	if prep.loneInfos > 0 {
		res.Details["uninvoked_infos_dropped"] = prep.loneInfos
	}
	if prep.ops() == 0 {
		// Knossos' answer: with no op that took effect the history is
		// linearizable. (A history with no client op at all is unknown
		// above: nothing was asked.) Consumed stays 0, so the verdict layer knows the
		// run proved nothing.
		res.Valid = Valid
		res.Summary = fmt.Sprintf("valid: nothing took effect (%s, %s dropped), so the history is trivially linearizable; it proves nothing", plural.Count(prep.failed, "failed op"), plural.Count(prep.infoReads, "unknown read"))
		return res
	}
	res.Consumed = Consumed{Ops: prep.ops(), Keys: len(prep.parts)}

	timeout := env.Timeout
	if dl, ok := ctx.Deadline(); ok && (timeout == 0 || time.Until(dl) < timeout) {
		timeout = max(time.Until(dl), time.Nanosecond)
	}
	if err := ctx.Err(); err != nil {
		res.Valid, res.Summary = Unknown, fmt.Sprintf("check cancelled before it started: %v", err)
		return res
	}
	sr := c.s.search(ctx, h, prep, timeout)
	switch {
	case sr.failed >= 0:
		res.Valid = Invalid
		ex := c.explain(h, prep, sr.failed, sr.best)
		res.Summary, res.Explanation = ex.summary, ex.text
		maps.Copy(res.Details, ex.details)
		res.Ops = ex.ops
		if n := len(prep.parts[sr.failed].ops); env.OutDir != "" && n > maxVisualizedOps {
			// The page replays porcupine's search, whose cache is quadratic.
			res.Explanation += fmt.Sprintf("\nNo visualization: %d ops is more than the %d it handles.\n", n, maxVisualizedOps)
		} else if env.OutDir != "" {
			// Only the page needs porcupine's own record of the search.
			verdict, info := c.s.detail(ctx, h, prep.parts[sr.failed].ops, timeout)
			if verdict != porcupine.Illegal {
				res.Explanation += "\nThe re-run of the search that drew the visualization did not finish, so the page may show a shorter prefix.\n"
			}
			c.writePage(&res, h, prep, sr.failed, info, env.OutDir)
		}
	case sr.cancelled:
		res.Valid, res.Summary = Unknown, fmt.Sprintf("check cancelled: %v", context.Cause(ctx))
	case len(sr.timedOut) > 0:
		res.Valid = Unknown
		res.Summary, res.Explanation = c.timeoutText(prep, sr.timedOut, timeout)
		res.Details["timed_out_keys"] = partKeys(prep, sr.timedOut)
		if env.OutDir != "" && ctx.Err() == nil && len(prep.parts[sr.timedOut[0]].ops) <= maxVisualizedOps {
			// The page shows how far a bounded re-run of the largest undecided
			// partition got; the first search kept no partial orders.
			_, info := c.s.detail(ctx, h, prep.parts[sr.timedOut[0]].ops, min(timeout, undecidedPageBudget))
			c.writePage(&res, h, prep, sr.timedOut[0], info, env.OutDir)
		}
	default:
		res.Valid = Valid
		res.Summary = fmt.Sprintf("linearizable: %s", c.sizeText(prep))
	}
	return res
}

// undecidedPageBudget bounds the re-run that draws the page for a check that
// timed out, so a long timeout is not paid twice.
const undecidedPageBudget = 5 * time.Second

// writePage writes the HTML page and records it in res, or says why it could not.
func (c *linearizable) writePage(res *Result, h []history.Op, p *prepared, part int, info porcupine.LinearizationInfo, dir string) {
	if err := c.s.visualize(h, p, part, info, dir); err != nil {
		res.Explanation += fmt.Sprintf("\nThe visualization could not be written: %v\n", err)
		return
	}
	res.Artifacts = append(res.Artifacts, VisualizationFile)
}

// sizeText says how much was checked: "120 ops (14 with unknown outcome) over 3 keys".
func (c *linearizable) sizeText(p *prepared) string {
	s := plural.Count(p.ops(), "op")
	if p.unknown > 0 {
		s += fmt.Sprintf(" (%d with unknown outcome)", p.unknown)
	}
	if c.s.kind == kindKV {
		s += " over " + plural.Count(len(p.parts), "key")
	}
	return s
}

// timeoutText explains an undecided search: how long it ran and which
// partitions did not finish, largest first.
func (c *linearizable) timeoutText(p *prepared, timedOut []int, timeout time.Duration) (string, string) {
	summary := fmt.Sprintf("unknown: the linearizability search timed out after %s on %s", timeout, c.sizeText(p))
	if c.s.kind == kindKV {
		big := &p.parts[timedOut[0]]
		summary += fmt.Sprintf("; %d keys undecided, the largest %s with %d ops (%d with unknown outcome)",
			len(timedOut), formatValue(big.key), len(big.ops), big.unknown)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "The search for a linearization did not finish within %s, so nothing was decided.\n", timeout)
	b.WriteString("Checking linearizability is NP-hard: every op whose outcome is unknown (info or never completed)\n")
	b.WriteString("may take effect anywhere after its invocation, which multiplies the orders to try.\n")
	if c.s.kind == kindKV {
		b.WriteString("Undecided keys, largest first (keys are checked independently):\n")
		for i, idx := range timedOut[:min(5, len(timedOut))] {
			pt := &p.parts[idx]
			fmt.Fprintf(&b, "  %d. key %s: %d ops, %d with unknown outcome\n", i+1, formatValue(pt.key), len(pt.ops), pt.unknown)
		}
	}
	b.WriteString("To decide it: raise the timeout, run shorter or with fewer ops per key, or reduce op timeouts so fewer ops end as info.\n")
	return summary, b.String()
}

// partKeys names the given partitions by key.
func partKeys(p *prepared, idx []int) []string {
	keys := make([]string, len(idx))
	for i, j := range idx {
		keys[i] = p.parts[j].key
	}
	return keys
}
