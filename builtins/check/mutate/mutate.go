// Package mutate tests the testers. Audit mutates a recorded, valid history in
// ways a correct oracle must reject (a stale or never-written read, a lost or
// duplicated effect, two appends in swapped order) and re-runs the declared
// checker on every mutant: a checker that accepts one cannot tell a pass from a
// fail. Shrink goes the other way: given a history a checker rejects, it
// searches for a small sub-history the checker still rejects.
//
// Mutants are derived only for the op shapes this package understands; every
// other history yields no mutants and a reason, never a silent pass:
//
//   - register, cas-register, kv (read/get with write/put/cas, per Op.Key or
//     Jepsen [k v] tuple): stale-read, phantom-read.
//   - set (add, and read returning a collection): lost-write, duplicate-effect
//     (list-valued reads only: a Set value ignores multiplicity), phantom-read.
//   - counter (add of an integer, read returning an integer): lost-write,
//     duplicate-effect.
//   - list-append (txn of [:append k v] and [:r k list]): lost-write,
//     swapped-appends, duplicate-effect, phantom-read.
//
// Every mutant is built so that it is wrong for certain, not merely suspicious:
// a stale read returns a value only one write ever produced, and that write
// was overwritten before the read began; a phantom value was never written; a
// counter read is moved outside the range any order of the adds allows. Some
// mutants are wrong only under real-time order (linearizability, strict
// serializability); they say so in Mutant.Realtime.
package mutate

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/faultline/faultline/history"
	"github.com/faultline/faultline/internal/seed"
)

// The mutant kinds, in the order Mutants produces them.
const (
	StaleRead       = "stale-read"
	PhantomRead     = "phantom-read"
	LostWrite       = "lost-write"
	SwappedAppends  = "swapped-appends"
	DuplicateEffect = "duplicate-effect"
)

// Kinds lists every mutant kind.
var Kinds = []string{StaleRead, PhantomRead, LostWrite, SwappedAppends, DuplicateEffect}

// Mutant is a copy of a history with one planted defect.
type Mutant struct {
	Kind        string // one of Kinds
	Description string // which op changed and how, in words
	Op          int64  // Index of the (first) op that changed
	// Realtime says the defect is a defect only under real-time order: an
	// oracle that promises serializability without it may rightly accept it.
	Realtime bool
	Ops      []history.Op // the mutated history; shares no edited value with the original
}

// DefaultMaxPerKind is how many mutants of each kind Mutants derives when max <= 0.
const DefaultMaxPerKind = 3

// Mutants derives up to max mutants of each applicable kind from h,
// deterministically from seed. It never modifies h.
func Mutants(h []history.Op, seed uint64, max int) []Mutant {
	ms, _, _ := derive(h, seed, max)
	return ms
}

// derive returns the mutants, notes on the kinds a present shape could not
// yield, and, when there are no mutants at all, why.
func derive(h []history.Op, root uint64, max int) (ms []Mutant, notes []string, skipped string) {
	if max <= 0 {
		max = DefaultMaxPerKind
	}
	pairs, err := history.Pair(h)
	if err != nil {
		return nil, nil, fmt.Sprintf("the history cannot be paired, so no mutant can be derived: %v", err)
	}
	v := newView(h, pairs)
	for _, fam := range families {
		got, note := fam.derive(v, seed.New(root, "mutate/"+fam.name), max)
		ms = append(ms, got...)
		if note != "" {
			notes = append(notes, fam.name+": "+note)
		}
	}
	if len(ms) > 0 {
		return ms, notes, ""
	}
	if len(notes) == 0 {
		return nil, nil, fmt.Sprintf("no op shape the audit knows how to mutate (client functions seen: %s); it mutates "+
			"read with write/put/cas (registers), add with read (set, counter) and txn appends (list-append)", strings.Join(v.functions(), ", "))
	}
	return nil, notes, "no applicable mutant: " + strings.Join(notes, "; ")
}

// family derives the mutants of one workload shape; note says why it found
// none although its shape is present ("" when its shape is absent).
type family struct {
	name   string
	derive func(v *view, rng *rand.Rand, max int) ([]Mutant, string)
}

var families = []family{
	{"register", registerMutants},
	{"set", setMutants},
	{"counter", counterMutants},
	{"list-append", appendMutants},
}

// call is one client operation: its invocation and completion positions.
type call struct {
	inv, comp int // comp is -1 when the op never completed
}

// view is a paired history the families read.
type view struct {
	h     []history.Op
	calls []call // client calls in invocation order
}

func newView(h []history.Op, pairs []history.OpPair) *view {
	v := &view{h: h, calls: make([]call, 0, len(pairs))}
	for _, p := range pairs {
		if !h[p.Invoke].IsNemesis() {
			v.calls = append(v.calls, call{inv: p.Invoke, comp: p.Complete})
		}
	}
	return v
}

// outcome is the call's completion type; Info when it never completed.
func (v *view) outcome(c call) history.Type {
	if c.comp < 0 {
		return history.Info
	}
	return v.h[c.comp].Type
}

// ok reports whether the call completed ok.
func (v *view) ok(c call) bool { return c.comp >= 0 && v.h[c.comp].Type == history.OK }

// index names a call by its completion's Index, or its invocation's when it
// never completed.
func (v *view) index(c call) int64 {
	if c.comp < 0 {
		return v.h[c.inv].Index
	}
	return v.h[c.comp].Index
}

// functions lists the client functions seen, sorted.
func (v *view) functions() []string {
	var fs []string
	for _, c := range v.calls {
		if f := v.h[c.inv].F; !slices.Contains(fs, f) {
			fs = append(fs, f)
		}
	}
	slices.Sort(fs)
	return fs
}

// mutant copies the history and puts in the edited ops (by position). Ops are
// values, so only the edited ones differ; every edited Value must be a fresh
// copy made by the caller, never the original's slice.
func (v *view) mutant(kind string, realtime bool, edits map[int]history.Op, format string, args ...any) Mutant {
	ops := slices.Clone(v.h)
	first := math.MaxInt
	for pos, op := range edits {
		ops[pos] = op
		first = min(first, pos)
	}
	return Mutant{Kind: kind, Description: fmt.Sprintf(format, args...), Op: v.h[first].Index, Realtime: realtime, Ops: ops}
}

// withValue returns a copy of the op at pos whose Value is val.
func (v *view) withValue(pos int, val any) map[int]history.Op {
	op := v.h[pos]
	op.Value = val
	return map[int]history.Op{pos: op}
}

// valueKey is a map key that agrees with history.Equal on scalars: 1 and 1.0
// share one, as do :x and "x"; "1" and 1 do not.
func valueKey(x any) string {
	switch y := x.(type) {
	case string:
		return strconv.Quote(y)
	case history.Keyword:
		return strconv.Quote(string(y))
	}
	if n, ok := asInt(x); ok {
		return strconv.FormatInt(n, 10)
	}
	return history.FormatEDN(x)
}

// asInt reads an integer, or an integral float, as int64.
func asInt(x any) (int64, bool) {
	switch y := x.(type) {
	case int64:
		return y, true
	case int:
		return int64(y), true
	case float64:
		if y == math.Trunc(y) && y >= math.MinInt64 && y < math.MaxInt64 {
			return int64(y), true
		}
	}
	return 0, false
}

// phantoms makes values nobody wrote: integers when every value seen is one
// (beyond the largest magnitude seen), otherwise strings with a marker rune
// that no value seen contains, so no concatenation of them (kv appends) can
// produce one either.
type phantoms struct {
	allInts bool
	maxAbs  int64
	marker  bool // some string seen contains the marker rune
	n       int
}

const phantomMarker = "\u2603"

func newPhantoms() *phantoms { return &phantoms{allInts: true} }

// see notes a value that exists in the history.
func (p *phantoms) see(x any) {
	switch y := x.(type) {
	case nil:
		return
	case []any:
		for _, e := range y {
			p.see(e)
		}
		return
	case history.Set:
		for _, e := range y {
			p.see(e)
		}
		return
	case string:
		p.marker = p.marker || strings.Contains(y, phantomMarker)
	case history.Keyword:
		p.marker = p.marker || strings.Contains(string(y), phantomMarker)
	}
	n, ok := asInt(x)
	if !ok {
		p.allInts = false
		return
	}
	if n == math.MinInt64 {
		n = math.MaxInt64
	}
	p.maxAbs = max(p.maxAbs, n, -n)
}

// next returns a fresh never-written value, or false when none is certain.
func (p *phantoms) next() (any, bool) {
	p.n++
	if p.allInts {
		if p.maxAbs > math.MaxInt64/2 {
			return nil, false
		}
		// Far from every value seen, and never 0, the usual initial value.
		return p.maxAbs + 1_000_003 + int64(p.n), true
	}
	if p.marker {
		return nil, false
	}
	return fmt.Sprintf("phantom-%s-%d", phantomMarker, p.n), true
}

// pick returns a seeded shuffle of xs: its first k elements are a uniform
// sample of k.
func pick[T any](rng *rand.Rand, xs []T) []T {
	out := slices.Clone(xs)
	rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// byPos sorts mutants of one kind by the op they changed, so output order
// does not depend on map iteration or sampling order.
func byPos(ms []Mutant) []Mutant {
	slices.SortStableFunc(ms, func(a, b Mutant) int { return cmp.Compare(a.Op, b.Op) })
	return ms
}
