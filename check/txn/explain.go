package txn

import (
	"fmt"
	"strings"

	"github.com/faultline/faultline/history"
)

// found collects anomalies: every case is counted, and the first
// MaxAnomaliesPerType of each type are explained (the rest are never built).
type found struct {
	counts map[string]int
	cases  map[string][]Anomaly
}

func newFound() *found {
	return &found{counts: make(map[string]int), cases: make(map[string][]Anomaly)}
}

func (f *found) add(typ string, mk func() Anomaly) {
	f.counts[typ]++
	if len(f.cases[typ]) < MaxAnomaliesPerType {
		a := mk()
		a.Type = typ
		f.cases[typ] = append(f.cases[typ], a)
	}
}

// fmtv renders a value in EDN, the notation Jepsen users read.
func fmtv(v any) string { return history.FormatEDN(v) }

// fmtList renders values as an EDN vector.
func fmtList(vs []any) string { return history.FormatEDN(vs) }

// name names transaction t in prose.
func (h *hist) name(t int32) string { return fmt.Sprintf("op %d", h.opIndex(t)) }

func (h *hist) keyName(k int32) string { return fmtv(h.in.keys[k]) }

// opIndexes returns the history indices of transactions.
func (h *hist) opIndexes(ts ...int32) []int {
	out := make([]int, len(ts))
	for i, t := range ts {
		out[i] = h.opIndex(t)
	}
	return out
}

// describe is one line about transaction t: where it is and what it did.
func (h *hist) describe(t int32) string {
	tr := &h.txns[t]
	return fmt.Sprintf("op %d, process %s, %s: %s", h.opIndex(t), history.ProcessName(h.proc(t)), tr.st, clip(fmtv(h.value(t)), 300))
}

// clip shortens s to about n bytes, on a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !isRuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// why says why transaction a precedes b by relation r, naming them na and
// nb. short is a terse edge label ("wr :x").
func (c *checker) why(a, b int32, r rel, na, nb string) (text, key string) {
	h := c.h
	switch r {
	case process:
		return fmt.Sprintf("%s and %s ran on process %s, in that order", na, nb, history.ProcessName(h.proc(a))), ""
	case realtime:
		return fmt.Sprintf("%s completed (op %d) before %s was invoked (op %d)",
			na, h.ops[h.txns[a].comp].Index, nb, h.ops[h.txns[b].inv].Index), ""
	}
	var text2 string
	if h.w == ListAppend {
		text2, key = c.whyAppend(a, b, r, na, nb)
	} else {
		text2, key = c.whyRegister(a, b, r, na, nb)
	}
	if text2 == "" {
		return fmt.Sprintf("%s precedes %s (%s)", na, nb, r), ""
	}
	return text2, key
}

// whyAppend justifies a list-append dependency from the version orders.
func (c *checker) whyAppend(a, b int32, r rel, na, nb string) (string, string) {
	h, ai := c.h, c.ai
	switch r {
	case ww:
		for _, m := range h.txnMops(b) {
			if m.kind != mAppend {
				continue
			}
			v := &h.vers[m.val]
			order := ai.keyOrder(m.key)
			switch {
			case v.pos > 0 && h.vers[order[v.pos-1]].writer == a:
				return fmt.Sprintf("%s appended %s to key %s right after %s appended %s",
					nb, fmtv(v.val), h.keyName(m.key), na, fmtv(h.vers[order[v.pos-1]].val)), h.keyName(m.key)
			case v.pos < 0 && len(order) > 0 && h.vers[order[len(order)-1]].writer == a:
				return fmt.Sprintf("%s appended %s to key %s; nobody read it, so it came after every element read, the last being %s, which %s appended",
					nb, fmtv(v.val), h.keyName(m.key), fmtv(h.vers[order[len(order)-1]].val), na), h.keyName(m.key)
			}
		}
	case wr:
		for _, m := range h.txnMops(b) {
			if m.kind != mRead || h.reads[m.val].prefix <= 0 {
				continue
			}
			rd := &h.reads[m.val]
			last := &h.vers[ai.keyOrder(m.key)[rd.prefix-1]]
			if last.writer == a {
				return fmt.Sprintf("%s read key %s = %s, ending with %s's append of %s",
					nb, h.keyName(m.key), fmtv(rd.val), na, fmtv(last.val)), h.keyName(m.key)
			}
		}
	case rw:
		for _, m := range h.txnMops(a) {
			if m.kind != mRead || h.reads[m.val].prefix < 0 {
				continue
			}
			rd := &h.reads[m.val]
			order := ai.keyOrder(m.key)
			if int(rd.prefix) < len(order) {
				if next := &h.vers[order[rd.prefix]]; next.writer == b {
					return fmt.Sprintf("%s read key %s = %s, missing %s's append of %s, which came next",
						na, h.keyName(m.key), fmtv(rd.val), nb, fmtv(next.val)), h.keyName(m.key)
				}
				continue
			}
			for _, u := range ai.unread(m.key) {
				if h.vers[u].writer == b {
					return fmt.Sprintf("%s read key %s = %s, all of it anyone ever read, so it missed %s's append of %s, which nobody read",
						na, h.keyName(m.key), fmtv(rd.val), nb, fmtv(h.vers[u].val)), h.keyName(m.key)
				}
			}
		}
	}
	return "", ""
}

// whyRegister justifies an rw-register dependency.
func (c *checker) whyRegister(a, b int32, r rel, na, nb string) (string, string) {
	h := c.h
	// extReadOf returns t's external read of k, -1 if none.
	extReadOf := func(t, k int32) int32 {
		for _, m := range h.txnMops(t) {
			if m.key == k {
				if m.kind == mRead && h.txns[t].st == committed {
					return m.val
				}
				return -1
			}
		}
		return -1
	}
	for _, m := range h.txnMops(b) {
		k := m.key
		switch {
		case r == wr && m.kind == mRead && m.val >= 0 && h.vers[m.val].writer == a && extReadOf(b, k) == m.val:
			return fmt.Sprintf("%s read key %s = %s, which %s wrote", nb, h.keyName(k), fmtv(h.vers[m.val].val), na), h.keyName(k)
		case m.kind != mWrite || h.vers[m.val].inter:
			continue
		case r == ww:
			prev := lastWrite(h.txnMops(a), k)
			ve, ok := c.ri.before[[2]int32{prev, m.val}]
			if prev < 0 || !ok {
				continue
			}
			if ve.src == srcWFR && extReadOf(b, k) == prev {
				return fmt.Sprintf("%s read key %s = %s, which %s wrote, and then wrote %s over it",
					nb, h.keyName(k), fmtv(h.vers[prev].val), na, fmtv(h.vers[m.val].val)), h.keyName(k)
			}
			return fmt.Sprintf("%s wrote key %s = %s and %s wrote %s, which came later in the version order (%s)",
				na, h.keyName(k), fmtv(h.vers[prev].val), nb, fmtv(h.vers[m.val].val), vsourceNames[ve.src]), h.keyName(k)
		case r == rw:
			seen := extReadOf(a, k)
			ve, ok := c.ri.before[[2]int32{seen, m.val}]
			if seen < 0 || !ok {
				continue
			}
			switch {
			case ve.src == srcInitial:
				return fmt.Sprintf("%s read key %s = %s, the initial state, which %s's write of %s replaced",
					na, h.keyName(k), fmtv(h.vers[seen].val), nb, fmtv(h.vers[m.val].val)), h.keyName(k)
			case ve.src == srcWFR && extReadOf(b, k) == seen:
				return fmt.Sprintf("%s read key %s = %s; %s read the same version and then wrote %s over it",
					na, h.keyName(k), fmtv(h.vers[seen].val), nb, fmtv(h.vers[m.val].val)), h.keyName(k)
			}
			return fmt.Sprintf("%s read key %s = %s and %s wrote %s, which came later in the version order (%s)",
				na, h.keyName(k), fmtv(h.vers[seen].val), nb, fmtv(h.vers[m.val].val), vsourceNames[ve.src]), h.keyName(k)
		}
	}
	return "", ""
}

// classMeaning is a short gloss of each base class.
var classMeaning = map[base]string{
	g0:           "a write cycle: each transaction overwrote the next one's write",
	g1c:          "cyclic information flow: each transaction read or overwrote the next one's write",
	gSingle:      "read skew: exactly one anti-dependency, a read that missed a write",
	gNonadjacent: "an anti-dependency cycle whose anti-dependencies (reads that missed writes) never follow one another",
	g2Item:       "an anti-dependency cycle (write skew): reads missed writes all the way around",
}

// Cycles longer than cycleHead+cycleTail steps are shown with the middle
// elided: a person cannot follow thousands of steps, and Graphviz would not
// lay them out in reasonable time.
const (
	cycleHead = 30
	cycleTail = 10
)

// explainCycle renders a cycle of transactions (global vertex ids) as text
// and DOT.
func (c *checker) explainCycle(cy *cycle, typ string) Anomaly {
	h := c.h
	n := len(cy.vs)
	shown := func(i int) bool { return n <= cycleHead+cycleTail || i < cycleHead || i >= n-cycleTail }
	name := func(i int) string { return fmt.Sprintf("T%d", i%n+1) }
	var b strings.Builder
	meaning := classMeaning[classBase(typ)]
	switch {
	case strings.HasSuffix(typ, "-realtime"):
		meaning += ", using real-time order (a transaction that completed before another began must come first)"
	case strings.HasSuffix(typ, "-process"):
		meaning += ", using process order (a process runs its transactions one after another)"
	}
	fmt.Fprintf(&b, "%s: a cycle of %d transactions, %s.\n", typ, n, meaning)
	var dot strings.Builder
	fmt.Fprintf(&dot, "digraph %q {\n  rankdir=LR;\n  node [shape=box, fontname=\"monospace\"];\n", typ)
	for i, t := range cy.vs {
		if !shown(i) {
			continue
		}
		fmt.Fprintf(&b, "  %s = %s\n", name(i), h.describe(t))
		tr := &h.txns[t]
		label := fmt.Sprintf("%s: op %d, process %s, %s\n%s", name(i), h.opIndex(t), history.ProcessName(h.proc(t)), tr.st, clip(fmtv(h.value(t)), 120))
		fmt.Fprintf(&dot, "  %s [label=%s];\n", name(i), dotQuote(label))
	}
	if !shown(cycleHead) {
		gap := n - cycleHead - cycleTail
		fmt.Fprintf(&b, "  (%d transactions in the middle of the cycle are not shown)\n", gap)
		fmt.Fprintf(&dot, "  elided [label=%s, shape=plaintext];\n", dotQuote(fmt.Sprintf("… %d more steps …", gap+1)))
	}
	steps := make([]Step, 0, n)
	for i, t := range cy.vs {
		j := (i + 1) % n
		text, key := c.why(t, cy.vs[j], cy.rels[i], name(i), name(j))
		steps = append(steps, Step{From: h.opIndex(t), To: h.opIndex(cy.vs[j]), Rel: cy.rels[i].String(), Key: key, Why: text})
		switch {
		case shown(i) && shown(i+1):
			short := strings.TrimSpace(cy.rels[i].String() + " " + key)
			fmt.Fprintf(&b, "  %s -%s-> %s: %s.\n", name(i), cy.rels[i], name(j), text)
			fmt.Fprintf(&dot, "  %s -> %s [label=%s, color=%q];\n", name(i), name(j), dotQuote(short), relColor[cy.rels[i]])
		case shown(i):
			fmt.Fprintf(&b, "  %s -%s-> ... (elided)\n", name(i), cy.rels[i])
			fmt.Fprintf(&dot, "  %s -> elided [label=%q, color=%q];\n", name(i), cy.rels[i].String(), relColor[cy.rels[i]])
		case shown(i + 1):
			fmt.Fprintf(&dot, "  elided -> %s [style=dashed];\n", name(j))
		}
	}
	dot.WriteString("}\n")
	b.WriteString("Each edge means its first transaction took effect before its second, so going around the cycle each transaction must precede itself: no order of them can explain what the clients saw.")
	return Anomaly{Ops: h.opIndexes(cy.vs...), Steps: steps, Explanation: b.String(), DOT: dot.String()}
}

var relColor = map[rel]string{ww: "blue", wr: "darkgreen", rw: "red", process: "gray40", realtime: "orange"}

// dotQuote quotes s as a DOT string.
func dotQuote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return `"` + r.Replace(s) + `"`
}
