package mutate

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/faultline/faultline/check"
	"github.com/faultline/faultline/history"
)

// ShrinkOptions configures Shrink.
type ShrinkOptions struct {
	MaxRuns int           // check runs allowed, the first included; 0 means DefaultMaxRuns
	Timeout time.Duration // bounds each check run; 0 means DefaultTimeout
	// Anomaly is the anomaly class the shrunk history must still show, for
	// checkers that name classes (transactional). "" keeps the first class
	// the checker names on the whole history.
	Anomaly string
}

// DefaultMaxRuns bounds the check runs of one Shrink.
const DefaultMaxRuns = 400

// Shrunk is a small sub-history the checker still rejects.
type Shrunk struct {
	Ops         []history.Op // kept ops, in their original order and with their original Index
	Description string       // "N ops -> k ops, keys [..], window [t0,t1]"
	Runs        int          // check runs spent, the first (on the whole history) included
	Anomaly     string       // the anomaly class kept, "" when the checker names none
	Result      check.Result // the checker's result on Ops
}

// ErrNotInvalid is returned when the checker does not reject the history to shrink.
var ErrNotInvalid = errors.New("shrink needs a history the checker rejects")

// Shrink looks for a small sub-history of h that c still rejects (with the
// same anomaly class, when c names classes). Invocations and their
// completions are kept or dropped together, so every candidate is a
// well-formed history. Steps, each verified by a check run: the transactions
// the checker's explanation names (transactional), one key alone (keyed
// histories), a prefix and then a suffix found by binary search, delta
// debugging over processes, then over single operations, until 1-minimal or
// out of runs. h is never modified.
func Shrink(ctx context.Context, c check.Checker, h []history.Op, o ShrinkOptions) (Shrunk, error) {
	if c == nil {
		return Shrunk{}, errors.New("shrink: no checker")
	}
	if o.MaxRuns <= 0 {
		o.MaxRuns = DefaultMaxRuns
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	pairs, err := history.Pair(h)
	if err != nil {
		return Shrunk{}, fmt.Errorf("shrink: %w", err)
	}
	s := &shrinker{ctx: ctx, c: c, h: h, o: o, units: make([][]int, len(pairs))}
	for i, p := range pairs {
		s.units[i] = []int{p.Invoke}
		if p.Complete >= 0 {
			s.units[i] = append(s.units[i], p.Complete)
		}
	}
	all := indexes(len(s.units))
	s.sources, s.needs = readSources(h, pairs)
	s.runs++
	s.best = run(ctx, c, h, o.Timeout)
	if s.best.Valid != check.Invalid {
		return Shrunk{Runs: s.runs, Result: s.best}, fmt.Errorf("%w; %s returned %s: %s", ErrNotInvalid, c.Name(), s.best.Valid, s.best.Summary)
	}
	s.anomaly = o.Anomaly
	if types := anomalyTypes(s.best); s.anomaly == "" && len(types) > 0 {
		s.anomaly = types[0]
	}
	cur := s.named(all)
	cur = s.oneKey(cur)
	cur = s.window(cur)
	cur = s.ddmin(cur, s.byProcess(cur))
	cur = s.ddmin(cur, singletons(cur))
	out := s.build(cur)
	return Shrunk{Ops: out, Description: describe(len(h), out), Runs: s.runs, Anomaly: s.anomaly, Result: s.best}, nil
}

// shrinker is one Shrink's state. Candidates are sets of units: indexes into
// units, each an invocation with its completion.
type shrinker struct {
	ctx   context.Context
	c     check.Checker
	h     []history.Op
	o     ShrinkOptions
	units [][]int // positions in h of each unit's ops
	// sources lists, for a unit that read a register, the units that could
	// have written what it read. A candidate keeps one of them: dropping them
	// all would turn the failure into a read of a value nobody wrote, true of
	// the candidate but not the failure the person is looking for.
	sources map[int][]int
	// needs lists, for a unit that read a kv key built by appends, the
	// appends whose text its value contains: all of them must stay.
	needs   map[int][]int
	anomaly string
	runs    int
	best    check.Result // the result of the last candidate that failed
}

// build returns the ops of the units in ids, in history order.
func (s *shrinker) build(ids []int) []history.Op {
	var pos []int
	for _, u := range ids {
		pos = append(pos, s.units[u]...)
	}
	slices.Sort(pos)
	out := make([]history.Op, len(pos))
	for i, p := range pos {
		out[i] = s.h[p]
	}
	return out
}

// fails runs the checker on the units in ids and reports whether it still
// rejects them with the same anomaly class. Out of runs, it says no.
func (s *shrinker) fails(ids []int) bool {
	if s.runs >= s.o.MaxRuns || s.ctx.Err() != nil || len(ids) == 0 || !s.sourced(ids) {
		return false
	}
	s.runs++
	r := run(s.ctx, s.c, s.build(ids), s.o.Timeout)
	if r.Valid != check.Invalid || s.anomaly != "" && !slices.Contains(anomalyTypes(r), s.anomaly) {
		return false
	}
	s.best = r
	return true
}

// sourced reports whether every register read in ids keeps a unit that
// could have written its value, when the whole history had one.
func (s *shrinker) sourced(ids []int) bool {
	if len(s.sources) == 0 && len(s.needs) == 0 {
		return true
	}
	in := make(map[int]bool, len(ids))
	for _, u := range ids {
		in[u] = true
	}
	for _, u := range ids {
		if src, ok := s.sources[u]; ok && !slices.ContainsFunc(src, func(w int) bool { return in[w] }) {
			return false
		}
		if need, ok := s.needs[u]; ok && slices.ContainsFunc(need, func(w int) bool { return !in[w] }) {
			return false
		}
	}
	return true
}

// readSources maps each unit whose ok register read (or cas) saw a written value
// to the units that wrote that value, and each read of a key built by kv
// appends to the appends its value contains (pairs and units share indexes).
func readSources(h []history.Op, pairs []history.OpPair) (sources, needs map[int][]int) {
	v := newView(h, pairs)
	r := splitRegisters(v)
	if r == nil {
		return nil, nil
	}
	unit := make(map[int]int, len(pairs)) // invocation position -> unit
	for i, p := range pairs {
		unit[p.Invoke] = i
	}
	sources, needs = map[int][]int{}, map[int][]int{}
	byKey := map[string][]regOp{}
	for _, a := range r.appended {
		byKey[a.key] = append(byKey[a.key], a)
	}
	// An ok cas read its from value as surely as a read did.
	for _, rd := range slices.Concat(r.reads, r.casReads) {
		if absent(rd.val) {
			continue
		}
		u := unit[rd.inv]
		for _, w := range r.sources[rd.key][valueKey(rd.val)] {
			sources[u] = append(sources[u], unit[w.inv])
		}
		got, _ := rd.val.(string)
		for _, a := range byKey[rd.key] {
			if piece, ok := a.val.(string); ok && piece != "" && strings.Contains(got, piece) {
				needs[u] = append(needs[u], unit[a.inv])
			}
		}
	}
	return sources, needs
}

// anomalyTypes collects the anomaly classes a result (or its children) names.
func anomalyTypes(r check.Result) []string {
	types, _ := r.Details["anomaly_types"].([]string)
	for _, ch := range r.Children {
		types = append(types, anomalyTypes(ch)...)
	}
	return types
}

// opRef matches the "op N" by which checkers name operations in explanations.
var opRef = regexp.MustCompile(`\bop (\d+)\b`)

// named tries the units whose ops the explanation of the kept anomaly class
// names: for a transactional anomaly, the transactions in its cycle.
func (s *shrinker) named(cur []int) []int {
	if s.anomaly == "" {
		return cur
	}
	text := s.best.Explanation
	for _, ch := range s.best.Children {
		text += "\n" + ch.Explanation
	}
	// The explanation lists each class under a "<class>: N found" line.
	at := strings.Index(text, "\n"+s.anomaly+": ")
	if at < 0 {
		return cur
	}
	section := text[at+1:]
	if end := strings.Index(section, "\n\n"); end >= 0 {
		section = section[:end]
	}
	want := map[int64]bool{}
	for _, m := range opRef.FindAllStringSubmatch(section, -1) {
		if n, err := strconv.ParseInt(m[1], 10, 64); err == nil {
			want[n] = true
		}
	}
	cand := slices.DeleteFunc(slices.Clone(cur), func(u int) bool {
		return !slices.ContainsFunc(s.units[u], func(p int) bool { return want[s.h[p].Index] })
	})
	if len(cand) < len(cur) && s.fails(cand) {
		return cand
	}
	return cur
}

// oneKey tries each key alone, the one the checker blamed first, then the
// smallest; it keeps the first that still fails.
func (s *shrinker) oneKey(cur []int) []int {
	tuples := false
	for _, u := range cur {
		inv := &s.h[s.units[u][0]]
		if t, ok := inv.Value.([]any); ok && len(t) == 2 && inv.Key == nil && (inv.F == "read" || inv.F == "get") {
			tuples = true
		}
	}
	byKey := map[string][]int{}
	for _, u := range cur {
		inv := &s.h[s.units[u][0]]
		switch {
		case inv.IsNemesis():
		case inv.Key != nil:
			byKey[history.KeyText(inv.Key)] = append(byKey[history.KeyText(inv.Key)], u)
		case tuples:
			if t, ok := inv.Value.([]any); ok && len(t) == 2 {
				byKey[history.KeyText(t[0])] = append(byKey[history.KeyText(t[0])], u)
			}
		}
	}
	if len(byKey) < 2 {
		return cur
	}
	keys := make([]string, 0, len(byKey))
	for k := range byKey {
		keys = append(keys, k)
	}
	blamed, _ := s.best.Details["failing_key"].(string)
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if (a == blamed) != (b == blamed) {
			return a == blamed
		}
		if len(byKey[a]) != len(byKey[b]) {
			return len(byKey[a]) < len(byKey[b])
		}
		return a < b
	})
	for _, k := range keys {
		if s.fails(byKey[k]) {
			return byKey[k]
		}
	}
	return cur
}

// window binary-searches the shortest failing prefix, then the shortest
// failing suffix of it, in invocation order. Failure need not be monotone in
// the window, so each bound found is one the checker confirmed.
func (s *shrinker) window(cur []int) []int {
	cur = slices.Clone(cur)
	slices.SortFunc(cur, func(a, b int) int { return s.units[a][0] - s.units[b][0] })
	lo, hi := 1, len(cur) // cur[:hi] fails
	for lo < hi {
		mid := (lo + hi) / 2
		if s.fails(cur[:mid]) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	cur = cur[:hi]
	lo, hi = 0, len(cur)-1 // cur[lo:] fails
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if s.fails(cur[mid:]) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return cur[lo:]
}

// byProcess groups units by process.
func (s *shrinker) byProcess(cur []int) [][]int {
	idx := map[int]int{}
	var groups [][]int
	for _, u := range cur {
		p := s.h[s.units[u][0]].Process
		g, ok := idx[p]
		if !ok {
			g = len(groups)
			idx[p] = g
			groups = append(groups, nil)
		}
		groups[g] = append(groups[g], u)
	}
	return groups
}

// singletons makes every unit its own group.
func singletons(cur []int) [][]int {
	out := make([][]int, len(cur))
	for i, u := range cur {
		out[i] = []int{u}
	}
	return out
}

// ddmin is delta debugging over groups of units (Zeller and Hildebrandt):
// it tries each chunk alone, then each complement, refining the chunks until
// no single group can go or the runs are spent. It returns the kept units.
func (s *shrinker) ddmin(cur []int, groups [][]int) []int {
	n := 2
	for len(groups) >= 2 && s.runs < s.o.MaxRuns && s.ctx.Err() == nil {
		chunks := split(groups, n)
		reduced := false
		for _, ch := range chunks {
			if s.fails(slices.Concat(ch...)) {
				groups, n, reduced = ch, 2, true
				break
			}
		}
		if !reduced && len(chunks) > 2 {
			for i := range chunks {
				rest := slices.Concat(slices.Concat(chunks[:i]...), slices.Concat(chunks[i+1:]...))
				if s.fails(slices.Concat(rest...)) {
					groups, n, reduced = rest, max(n-1, 2), true
					break
				}
			}
		}
		if !reduced {
			if n >= len(groups) {
				break
			}
			n = min(2*n, len(groups))
		}
	}
	if len(groups) == 0 {
		return cur
	}
	return slices.Concat(groups...)
}

// split cuts groups into n chunks of near-equal size.
func split(groups [][]int, n int) [][][]int {
	n = min(n, len(groups))
	out := make([][][]int, 0, n)
	for i := range n {
		out = append(out, groups[i*len(groups)/n:(i+1)*len(groups)/n])
	}
	return out
}

// describe says how far the history shrank and what it kept.
func describe(from int, ops []history.Op) string {
	var keys []string
	for i := range ops {
		if k := ops[i].Key; k != nil && !slices.Contains(keys, history.KeyText(k)) {
			keys = append(keys, history.KeyText(k))
		}
	}
	slices.Sort(keys)
	var t0, t1 int64
	if len(ops) > 0 {
		t0, t1 = ops[0].Time, ops[len(ops)-1].Time
	}
	return fmt.Sprintf("%d ops -> %d ops, keys [%s], window [%d,%d]", from, len(ops), strings.Join(keys, " "), t0, t1)
}
