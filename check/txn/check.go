package txn

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/faultline/faultline/history"
	"github.com/faultline/faultline/internal/plural"
)

// checker holds one check's state.
type checker struct {
	o       Options
	models  []string // canonical
	asked   []string // the models as the user named them, for the text
	h       *hist
	ai      *appendIndex   // list-append
	ri      *registerIndex // rw-register
	f       *found
	g       *graph
	prohib  map[string]bool // anomaly types that fail the check
	notes   []string        // for Result.Incomplete
	unknown bool            // a search the verdict depends on did not finish
	cancel  error           // set when ctx ended the check
}

// Check checks a transactional history. It returns an error only for bad
// options and for input it cannot read (a malformed transaction, a value
// written twice, an unpaired op), naming the op index; everything the
// database did wrong is in the Result.
func Check(ctx context.Context, ops []history.Op, o Options) (*Result, error) {
	c := &checker{o: o}
	if err := c.resolve(); err != nil {
		return nil, err
	}
	h, err := parse(ops, o.Workload)
	if err != nil {
		return nil, err
	}
	c.h, c.f = h, newFound()
	e := &edges{h: h}
	// The process and real-time orders read only the transactions parse
	// made, so they are built on another core while the workload's
	// analysis runs, into their own list, which then follows the
	// analysis's edges as it did when one list took both in turn.
	rt, pr := edgeNeeds(c.prohib)
	order := &edges{h: h}
	wait := goWithPanic(func() {
		if pr || o.Process {
			h.processEdges(order)
		}
		if rt || o.Realtime {
			h.realtimeEdges(order)
		}
	})
	if o.Workload == ListAppend {
		c.ai = h.analyzeAppend(c.f, e, o.HasInit)
		c.noteUnappended()
	} else {
		c.ri = h.analyzeRegister(c.f, e, &c.o)
	}
	wait()
	if h.completionsOnly && (rt || o.Realtime) {
		c.notes = append(c.notes, "the history records completions alone, no invocations (as Elle's examples): with no transaction's start known, none follows another in real time, so the real-time order the models ask for adds nothing")
	}
	e.appendAll(order)
	c.g = buildGraph(len(h.txns), e)
	e.chunks = nil
	if err := ctx.Err(); err != nil {
		c.cancel = context.Cause(ctx)
	} else {
		c.searchCycles(ctx)
	}
	return c.result(), nil
}

// noteUnappended notes, on a list-append result with reads of elements
// nobody appended and no known initial state, that they were taken for
// elements from before the history, as rw-register takes a read of a value
// nobody wrote: no garbage read, and the verdict stands. Elle's whole check
// gives no verdict on such a history (list_append.clj dirty-update-cases
// asserts that some transaction appended every element of a key's order),
// while its analyses (G1a, G1b, internal) ignore such elements, which is
// what this follows.
func (c *checker) noteUnappended() {
	var first *unappended
	keys := 0
	for k := range c.ai.unappended {
		if u := &c.ai.unappended[k]; u.read >= 0 {
			keys++
			if first == nil || u.read < first.read {
				first = u
			}
		}
	}
	if first == nil {
		return
	}
	r := &c.h.reads[first.read]
	more := ""
	if keys > 1 {
		more = fmt.Sprintf(", and reads of %s besides", plural.Count(keys-1, "other key"))
	}
	c.notes = append(c.notes, fmt.Sprintf("reads hold elements no transaction appended (%s read key %s = %s, holding %s%s); with the initial state unknown they may predate the history, so they are no garbage reads, as rw-register's reads of values nobody wrote are not (Elle's whole check stops with an error on such a history, while its analyses ignore them; an initial state of empty, --init nil, makes them garbage reads)",
		c.h.name(r.txn), c.h.keyName(r.key), fmtv(r.list()), fmtv(first.val), more))
}

// goWithPanic runs fn on its own goroutine; wait waits for it to end and
// re-raises a panic of fn's on the caller's goroutine, where the callers of
// Check recover it as an internal error instead of losing the process.
func goWithPanic(fn func()) (wait func()) {
	done := make(chan any, 1)
	go func() {
		defer func() { done <- recover() }()
		fn()
	}()
	return func() {
		if p := <-done; p != nil {
			panic(p)
		}
	}
}

// resolve validates and normalises the options.
func (c *checker) resolve() error {
	if c.o.Workload != ListAppend && c.o.Workload != RWRegister {
		return fmt.Errorf("unknown workload %q (want %s or %s)", c.o.Workload, ListAppend, RWRegister)
	}
	if c.o.Workload != RWRegister {
		for _, opt := range []struct {
			set  bool
			name string
		}{{c.o.WritesFollowReads, "writes-follow-reads"}, {c.o.SequentialKeys, "sequential-keys"},
			{c.o.LinearizableKeys, "linearizable-keys"}, {len(c.o.TransactionOrder) > 0, "transaction-order"}} {
			if opt.set {
				return fmt.Errorf("%s applies to %s only", opt.name, RWRegister)
			}
		}
		if l, isList := c.o.Init.([]any); c.o.HasInit && c.o.Init != nil && (!isList || len(l) > 0) {
			return fmt.Errorf("initial state %s: a %s history can only start empty (nil or [])", fmtv(c.o.Init), ListAppend)
		}
	}
	ms := c.o.ConsistencyModels
	if len(ms) == 0 && len(c.o.Anomalies) == 0 {
		// Named anomalies alone are the question (Elle's
		// :consistency-models nil): no model is added to them.
		ms = []string{"strict-serializable"}
	}
	c.asked = ms
	for _, m := range ms {
		cm, err := canonicalModel(m)
		if err != nil {
			return err
		}
		c.models = append(c.models, cm)
	}
	for _, a := range c.o.Anomalies {
		if !knownAnomaly(a) {
			return fmt.Errorf("unknown anomaly %q", a)
		}
	}
	if c.o.CycleSearchBudget <= 0 {
		c.o.CycleSearchBudget = DefaultCycleSearchBudget
	}
	c.prohib = prohibited(c.models, c.o.Anomalies)
	return nil
}

// searchCycles searches every strongly connected component for cycles.
func (c *checker) searchCycles(ctx context.Context) {
	comp, n := tarjan(c.g, allRels)
	sccs := components(comp, n)
	comp = nil
	scratch := make([]int32, c.g.order())
	for i := range scratch {
		scratch[i] = -1
	}
	for _, vs := range sccs {
		b := &budget{ctx: ctx, deadline: time.Now().Add(c.o.CycleSearchBudget)}
		sub := c.g.subgraph(vs, scratch)
		c.searchSCC(vs, sub, b)
		if b.cancelled {
			c.cancel = context.Cause(ctx)
			return
		}
	}
}

// searchSCC looks for one cycle of each class in one component, most severe
// first, skipping classes a found one implies.
func (c *checker) searchSCC(vs []int32, sub *graph, b *budget) {
	var has rel
	for _, r := range sub.rels {
		has |= r
	}
	s := newSearcher(sub, b)
	redundant := map[string]bool{}
	var unfinished, got []string
	for _, cl := range searchOrder {
		if cl.variant != 0 && has&cl.variant == 0 || redundant[cl.String()] {
			continue
		}
		cy, done := s.find(cl)
		if !done {
			if b.cancelled {
				return
			}
			unfinished = append(unfinished, cl.String())
		}
		if cy == nil {
			continue
		}
		cy.explainByData(sub, c.o.Workload == RWRegister)
		typ := cy.classify()
		if redundant[typ] {
			continue
		}
		for i, v := range cy.vs {
			cy.vs[i] = vs[v]
		}
		c.f.add(typ, func() Anomaly { return c.explainCycle(cy, typ) })
		got = append(got, typ)
		for a := range closure([]string{typ}, func(a string) []string { return implies[a] }) {
			redundant[a] = true
		}
	}
	// A class whose search did not finish may still have been found since,
	// under another class's search.
	unfinished = slices.DeleteFunc(unfinished, func(u string) bool { return redundant[u] })
	if len(unfinished) == 0 {
		return
	}
	matters := false
	for _, u := range unfinished {
		matters = matters || c.prohib[u]
	}
	note := fmt.Sprintf("cycle search ran out of its %v budget on an SCC of %d txns before finishing the search for %s: a cycle exists (found %s)",
		c.o.CycleSearchBudget, len(vs), strings.Join(unfinished, ", "), strings.Join(got, ", "))
	c.notes = append(c.notes, note)
	if !matters {
		return // what was left unsearched is allowed anyway
	}
	c.unknown = true
	c.cycleExists(vs, sub, got)
	ops := make([]int, 0, min(len(vs), 10))
	for _, v := range vs[:min(len(vs), 10)] {
		ops = append(ops, c.h.opIndex(v))
	}
	// Elle reports the timeout as an anomaly type, which makes the result
	// unknown unless something forbidden was found.
	c.f.add(CycleSearchTimeout, func() Anomaly {
		return Anomaly{Ops: ops, Explanation: "Cycle search timed out: " + note + "."}
	})
}

// cycleExistsSpecs are Elle's cycle-exists specifications, in Elle's order:
// if a model holds, the graph restricted to mask is acyclic; with ext set,
// the graph is mask's sequential extension by ext (every mask path, and
// every mask edge followed by one ext edge), which is how snapshot
// isolation's cycles can cross a single anti-dependency at a time. Realtime
// order contains process order, so realtime masks take process edges too.
var cycleExistsSpecs = []struct {
	model string // canonical
	typ   string
	mask  rel
	ext   rel
}{
	{"read-uncommitted", "PL-1-cycle-exists", ww, 0},
	{"read-committed", "PL-2-cycle-exists", ww | wr, 0},
	{"snapshot-isolation", "PL-SI-cycle-exists", ww | wr, rw},
	{"repeatable-read", "PL-2.99-cycle-exists", ww | wr | rw, 0},
	{"serializable", "PL-3-cycle-exists", ww | wr | rw, 0},
	{"strong-session-read-uncommitted", "strong-session-PL-1-cycle-exists", ww | process, 0},
	{"strong-session-read-committed", "strong-session-PL-2-cycle-exists", ww | wr | process, 0},
	{"strong-session-snapshot-isolation", "strong-session-snapshot-isolation-cycle-exists", ww | wr | process, rw},
	{"strong-session-serializable", "strong-session-serializable-cycle-exists", dataRels | process, 0},
	{"strong-read-uncommitted", "strong-PL-1-cycle-exists", ww | process | realtime, 0},
	{"strong-read-committed", "strong-PL-2-cycle-exists", ww | wr | process | realtime, 0},
	{"strong-snapshot-isolation", "strong-snapshot-isolation-cycle-exists", ww | wr | process | realtime, rw},
	{"strict-serializable", "PL-SS-cycle-exists", allRels, 0},
}

// cycleExists reports, for a component whose search ran out of time, the
// models a cycle in it is proven to violate by a strongly connected
// component of the relations they forbid cycles in (Elle's cycle-exists
// pass), skipping models that the cycles found (got) or a weaker proven
// model already rule out.
func (c *checker) cycleExists(vs []int32, sub *graph, got []string) {
	not, also := boundary(got)
	ruled := map[string]bool{}
	for _, m := range append(not, also...) {
		ruled[m] = true
	}
	for _, sp := range cycleExistsSpecs {
		if ruled[sp.model] || !c.prohib[sp.typ] {
			continue
		}
		var scc []int32
		if sp.ext == 0 {
			scc = smallestSCC(sub, sp.mask)
		} else {
			scc = smallestExtensionSCC(sub, sp.mask, sp.ext)
		}
		if scc == nil {
			continue
		}
		for m := range closure([]string{sp.model}, func(m string) []string { return strongerModels[m] }) {
			ruled[m] = true
		}
		ops := make([]int, 0, min(len(scc), 10))
		for _, v := range scc[:min(len(scc), 10)] {
			ops = append(ops, c.h.opIndex(vs[v]))
		}
		relsText := maskNames(sp.mask) + " alone"
		if sp.ext != 0 {
			relsText = maskNames(sp.mask) + " and single " + maskNames(sp.ext) + " edges, never two in a row,"
		}
		c.f.add(sp.typ, func() Anomaly {
			return Anomaly{Ops: ops, Explanation: fmt.Sprintf("A cycle %s forbids exists: %s of this component depend on each other by %s (the first %d shown), though the search ran out of time before naming one.",
				elleName(sp.model), plural.Count(len(scc), "transaction"), relsText, len(ops))}
		})
	}
}

// smallestSCC returns the smallest strongly connected component of more
// than one vertex of g restricted to mask; nil when it is acyclic.
func smallestSCC(g *graph, mask rel) []int32 {
	comp, n := tarjan(g, mask)
	var scc []int32
	for _, cs := range components(comp, n) {
		if len(cs) > 1 && (scc == nil || len(cs) < len(scc)) {
			scc = cs
		}
	}
	return scc
}

// smallestExtensionSCC is smallestSCC for the sequential extension of g's
// a edges by its b edges. The extension is never built (an a edge into a
// vertex with many b edges out would multiply them): each vertex v gets a
// second copy v' meaning "arrived by a b edge", a edges lead from either
// copy to the plain vertex and b edges only from the plain one to the copy,
// so no two b edges run consecutively, and a cycle of the doubled graph is
// a cycle of the extension. Components are projected back onto g's
// vertices.
func smallestExtensionSCC(g *graph, a, b rel) []int32 {
	n := int32(g.order())
	d := &graph{off: make([]int32, 2*n+1)}
	for u := int32(0); u < n; u++ {
		for i := g.off[u]; i < g.off[u+1]; i++ {
			if g.rels[i]&a != 0 {
				d.off[u+1]++
				d.off[n+u+1]++
			}
			if g.rels[i]&b != 0 {
				d.off[u+1]++
			}
		}
	}
	for v := int32(0); v < 2*n; v++ {
		d.off[v+1] += d.off[v]
	}
	d.dst, d.rels = make([]int32, d.off[2*n]), make([]rel, d.off[2*n])
	fill := slices.Clone(d.off[:2*n])
	put := func(from, to int32) {
		d.dst[fill[from]], d.rels[fill[from]] = to, ww
		fill[from]++
	}
	for u := int32(0); u < n; u++ {
		for i := g.off[u]; i < g.off[u+1]; i++ {
			w := g.dst[i]
			if g.rels[i]&a != 0 {
				put(u, w)
				put(n+u, w)
			}
			if g.rels[i]&b != 0 {
				put(u, n+w)
			}
		}
	}
	comp, nc := tarjan(d, ww)
	var scc []int32
	for _, cs := range components(comp, nc) {
		seen := make(map[int32]bool, len(cs))
		var vs []int32
		for _, v := range cs {
			if v >= n {
				v -= n
			}
			if !seen[v] {
				seen[v] = true
				vs = append(vs, v)
			}
		}
		if len(vs) > 1 && (scc == nil || len(vs) < len(scc)) {
			slices.Sort(vs)
			scc = vs
		}
	}
	return scc
}

// maskNames spells a relation set.
func maskNames(m rel) string {
	var out []string
	for r := ww; r <= realtime; r <<= 1 {
		if m&r != 0 {
			out = append(out, r.String())
		}
	}
	return strings.Join(out, ", ")
}

// dropRedundantCycleExists removes X-cycle-exists cases whose model the
// other anomalies found already rule out (Elle's
// remove-redundant-cycle-exists): a named anomaly says more.
func (c *checker) dropRedundantCycleExists() {
	var other []string
	for typ := range c.f.counts {
		if !strings.HasSuffix(typ, "-cycle-exists") {
			other = append(other, typ)
		}
	}
	not, also := boundary(other)
	for _, sp := range cycleExistsSpecs {
		if slices.Contains(not, sp.model) || slices.Contains(also, sp.model) {
			delete(c.f.counts, sp.typ)
			delete(c.f.cases, sp.typ)
		}
	}
}

// forbiddenBy names what the check holds the history to: the models, as
// the user spelled them (PL-SS stays PL-SS), and the anomalies named on
// their own.
func (c *checker) forbiddenBy() string {
	var parts []string
	if len(c.asked) > 0 {
		parts = append(parts, strings.Join(c.asked, ", "))
	}
	if len(c.o.Anomalies) > 0 {
		parts = append(parts, strings.Join(c.o.Anomalies, ", "))
	}
	return strings.Join(parts, " or ")
}

// ValidateOptions reports whether o names a known workload, models and
// anomalies, so a caller can refuse bad options before any history.
func ValidateOptions(o Options) error {
	c := &checker{o: o}
	return c.resolve()
}

// result assembles the verdict.
func (c *checker) result() *Result {
	c.dropRedundantCycleExists()
	h := c.h
	r := &Result{Anomalies: map[string][]Anomaly{}, Counts: c.f.counts, Txns: h.consumed}
	for _, t := range h.touched {
		if t {
			r.Keys++
		}
	}
	empty := len(c.g.dst) == 0
	const emptyNote = "empty transaction graph: no dependency between any two transactions could be inferred"
	if empty {
		c.f.add(EmptyTransactionGraph, func() Anomaly {
			// The first few transactions stand for all: none depends on another.
			ops := []int{}
			for t := int32(0); t < int32(len(c.h.txns)) && len(ops) < 10; t++ {
				if c.h.txns[t].st != aborted {
					ops = append(ops, c.h.opIndex(t))
				}
			}
			return Anomaly{Ops: ops, Explanation: fmt.Sprintf("Empty transaction graph: no dependency between any two of the %s could be inferred, so no cycle could show.",
				plural.Count(c.h.consumed, "transaction"))}
		})
	}
	var all, allowed, bad []string
	for typ := range c.f.counts {
		all = append(all, typ)
		switch {
		case c.prohib[typ]:
			bad = append(bad, typ)
		case slices.Contains(unknownTypes, typ):
		default:
			allowed = append(allowed, typ)
			continue
		}
		// Forbidden types and the ones that make a result unknown are
		// reported, as Elle's reportable-anomaly-types.
		r.AnomalyTypes = append(r.AnomalyTypes, typ)
		r.Anomalies[typ] = c.f.cases[typ]
	}
	sort.Strings(r.AnomalyTypes)
	sort.Strings(allowed)
	sort.Strings(bad)
	r.Not, r.AlsoNot = reportedBoundary(all)
	r.Incomplete = c.notes
	if c.cancel != nil {
		r.Incomplete = append(r.Incomplete, fmt.Sprintf("check cancelled: %v", c.cancel))
	}
	if empty {
		r.Incomplete = append(r.Incomplete, emptyNote)
	}
	scope := fmt.Sprintf("%s over %s", plural.Count(r.Txns, "txn"), plural.Count(r.Keys, "key"))
	models := c.forbiddenBy()
	switch {
	case len(bad) > 0:
		r.Valid = Invalid
		r.Summary = fmt.Sprintf("invalid: %s in %s", strings.Join(bad, ", "), scope)
		if len(r.Not) > 0 {
			r.Summary += "; not " + strings.Join(r.Not, ", ")
		}
	case c.cancel != nil || c.unknown || empty:
		r.Valid = Unknown
		r.Summary = fmt.Sprintf("unknown: %s (%s)", r.Incomplete[len(r.Incomplete)-1], scope)
	default:
		// As Elle's valid result, which carries no :not: what the anomalies
		// the check allows rule out is not its answer (they are listed as
		// allowed in the explanation).
		r.Valid, r.Not, r.AlsoNot = Valid, nil, nil
		r.Summary = fmt.Sprintf("valid: no anomaly %s forbids in %s", models, scope)
		if len(c.models) == 0 {
			r.Summary = fmt.Sprintf("valid: no %s in %s", strings.Join(c.o.Anomalies, " or "), scope)
		}
	}
	r.Explanation = c.explanation(r, allowed, models)
	return r
}

// explanation is the multi-line text of a result.
func (c *checker) explanation(r *Result, allowed []string, models string) string {
	h := c.h
	var b strings.Builder
	ok, info := 0, 0
	for _, t := range h.txns {
		switch t.st {
		case committed:
			ok++
		case indeterminate:
			info++
		}
	}
	fmt.Fprintf(&b, "Checked %s (%d ok, %d info) over %s as %s against %s.\n",
		plural.Count(r.Txns, "transaction"), ok, info, plural.Count(r.Keys, "key"), c.o.Workload, models)
	if failed := len(h.txns) - ok - info; failed > 0 {
		fmt.Fprintf(&b, "%s served only to spot reads of aborted writes.\n", plural.Count(failed, "failed transaction"))
	}
	fmt.Fprintf(&b, "Verdict: %s.\n", r.Valid)
	if len(r.Not) > 0 {
		fmt.Fprintf(&b, "Ruled out: %s", strings.Join(r.Not, ", "))
		if len(r.AlsoNot) > 0 {
			fmt.Fprintf(&b, "; also %s", strings.Join(r.AlsoNot, ", "))
		}
		b.WriteString(".\n")
	}
	for _, typ := range r.AnomalyTypes {
		n := r.Counts[typ]
		fmt.Fprintf(&b, "\n%s: %d found", typ, n)
		if n > len(r.Anomalies[typ]) {
			fmt.Fprintf(&b, ", the first %d shown", len(r.Anomalies[typ]))
		}
		b.WriteString("\n")
		for _, a := range r.Anomalies[typ] {
			b.WriteString(indent(a.Explanation) + "\n")
		}
	}
	if len(allowed) > 0 {
		parts := make([]string, len(allowed))
		for i, typ := range allowed {
			parts[i] = fmt.Sprintf("%s (%d)", typ, r.Counts[typ])
		}
		fmt.Fprintf(&b, "\nAlso found, but allowed by %s: %s.\n", models, strings.Join(parts, ", "))
	}
	for _, n := range r.Incomplete {
		fmt.Fprintf(&b, "\nIncomplete: %s.\n", n)
	}
	return strings.TrimRight(b.String(), "\n")
}

// indent makes s a bullet: "  - " before its first line, four spaces before
// the others.
func indent(s string) string {
	return "  - " + strings.ReplaceAll(s, "\n", "\n    ")
}
