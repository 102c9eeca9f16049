// Package mutate tests the testers. Audit mutates a recorded, valid history in
// ways a correct oracle must reject (a stale or never-written read, a lost or
// duplicated effect, two appends in swapped order, an acknowledged write
// missing from the final dump, latencies past a declared bound) and re-runs
// the oracle on every mutant: an oracle that accepts one cannot tell a pass
// from a fail. Shrink goes the other way: given a history a checker rejects,
// it searches for a small sub-history the checker still rejects.
//
// Every mutant kind fits the claims of certain oracles only, named by
// check.Result.Checker, and is judged against that oracle alone: a stale read
// says nothing about no-lost-ack, a lost acknowledgement nothing about
// linearizability. An oracle for which no mutant applies on a history is
// reported as unfit, with the reason, never passed over in silence.
//
//   - linearizable (register, cas-register, kv: read/get with write/put/cas,
//     per Op.Key or Jepsen [k v] tuple): stale-read, phantom-read, on ok reads
//     of keys some op writes.
//   - set, set-full (add, and read returning a collection): lost-write,
//     duplicate-effect (list-valued reads only: a Set value ignores
//     multiplicity), phantom-read.
//   - counter (add of an integer, read returning an integer): lost-write,
//     duplicate-effect.
//   - transactional (list-append: txn of [:append k v] and [:r k list]):
//     lost-write, swapped-appends, duplicate-effect, phantom-read;
//     (rw-register: txn of [:w k v] and [:r k v]): phantom-read.
//   - no-lost-ack: lost-ack, an acknowledged write removed from the final dump.
//   - slo: slow-ops, the ok ops of one window taking longer than every
//     declared latency bound; failed-ops, enough of them failing to exceed
//     the declared error rate.
//   - fairness: starved-group, every ok op of one group failing.
//   - recovery: slow-recovery, the ok ops within the bound after one fault
//     failing, so the first ok op comes too late.
//   - bank: broken-conservation, one balance of one read off by one.
//   - monotonic-reads: stale-read, a session's later read returning the
//     initial state after an earlier one saw a version.
//   - read-your-writes: stale-read, a session's read after its own
//     acknowledged write returning a value no op wrote.
//   - exactly-once: duplicate-effect, a business key's record twice in the
//     final dump; lost-ack, an acknowledged key's records removed from it.
//   - replicas: phantom-read, one replica's final dump also holding a value
//     no op wrote.
//   - mutual-exclusion: duplicate-effect, an acquire that failed while
//     another process held the lock completing ok.
//   - prefix-order: phantom-read, a consumer view also showing a value
//     nobody produced; duplicate-effect, a view showing a value twice.
//   - replay-equivalence: phantom-read, the rebuilt state also holding a
//     value no op wrote.
//   - boundary: cross-tenant-leak, a tenant's read of its own key also
//     holding another tenant's key.
//   - unique-ids: duplicate-effect, one id handed out twice.
//   - queue, total-queue (enqueue, dequeue, drain): phantom-read, a taken
//     element no op enqueued; total-queue also lost-write, an acknowledged
//     element nobody takes.
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

	"github.com/faultline/faultline/check"
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
	// LostAck removes an acknowledged write from the final dump (no-lost-ack).
	LostAck = "lost-ack"
	// SlowOps inflates the latency of a window's ok ops past the bounds (slo).
	SlowOps = "slow-ops"
	// FailedOps turns a window's ok ops to fail past the error rate (slo).
	FailedOps = "failed-ops"
	// StarvedGroup fails every ok op of one group (fairness).
	StarvedGroup = "starved-group"
	// SlowRecovery fails the ok ops that showed recovery from a fault (recovery).
	SlowRecovery = "slow-recovery"
	// BrokenConservation moves one bank read's balances off the total (bank).
	BrokenConservation = "broken-conservation"
	// CrossTenantLeak puts another tenant's data in a response (boundary).
	CrossTenantLeak = "cross-tenant-leak"
)

// Kinds lists every mutant kind.
var Kinds = []string{StaleRead, PhantomRead, LostWrite, SwappedAppends, DuplicateEffect,
	LostAck, SlowOps, FailedOps, StarvedGroup, SlowRecovery, BrokenConservation, CrossTenantLeak}

// Mutant is a copy of a history with one planted defect.
type Mutant struct {
	Kind        string // one of Kinds
	Description string // which op changed and how, in words
	Op          int64  // Index of the (first) op that changed
	// Realtime says the defect is a defect only under real-time order: an
	// oracle that promises serializability without it may rightly accept it.
	Realtime bool
	// Oracle is the checker (its Name) whose claim the mutant breaks and
	// that judges it; Audit sets it.
	Oracle string
	Ops    []history.Op // the mutated history; shares no edited value with the original
}

// DefaultMaxPerKind is how many mutants of each kind Mutants derives when max <= 0.
const DefaultMaxPerKind = 3

// Mutants derives up to max mutants of each applicable kind from h,
// deterministically from seed, for the kinds that need no oracle's options
// (the register, set, counter, transaction, unique-id and queue families).
// It never modifies h.
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
		if fam.options {
			continue
		}
		got, note := fam.derive(v, nil, seed.New(root, "mutate/"+fam.name), max)
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
			"read with write/put/cas (registers), add with read (set, counter), txn appends and register writes (list-append, rw-register), generate (unique ids) and enqueue with dequeue or drain (queues)", strings.Join(v.functions(), ", "))
	}
	return nil, notes, "no applicable mutant: " + strings.Join(notes, "; ")
}

// family derives the mutants of one workload shape or oracle claim; note says
// why it found none although its shape is present ("" when its shape is
// absent).
type family struct {
	// name is the family's name; a checker's check.Spec lists in Mutants
	// the families whose every mutant breaks its claim, and those checkers
	// alone judge the family's mutants.
	name string
	// absent is why the family yields nothing when its op shape is missing.
	absent string
	// options says derive needs the oracle's check.OptionsOf; derive of any
	// other family ignores it, so its mutants are shared by its oracles.
	options bool
	derive  func(v *view, opts any, rng *rand.Rand, max int) ([]Mutant, string)
}

var families = []family{
	{"register", "no ok read of a written key", false, historyOnly(registerMutants)},
	{"set", "no add with an ok read of the collection", false, historyOnly(setMutants)},
	{"counter", "no add with an ok read of an integer", false, historyOnly(counterMutants)},
	{"list-append", "no transaction appends to a list", false, historyOnly(appendMutants)},
	{"rw-register", "no transaction writes a register", false, historyOnly(rwRegisterMutants)},
	{"unique-ids", "fewer than two ok generates", false, historyOnly(uniqueIDMutants)},
	{"queue", "no ok dequeue or drain of an enqueued queue", false, historyOnly(queueMutants)},
	{"total-queue", "no ok dequeue or drain of an enqueued queue", false, historyOnly(totalQueueMutants)},
	{"no-lost-ack", "no acknowledged write and ok final dump", true, lostAckMutants},
	{"slo", "no window with ok ops to slow down", true, sloMutants},
	{"fairness", "no group with ok ops to starve", true, fairnessMutants},
	{"recovery", "no measured fault followed by an ok op", true, recoveryMutants},
	{"bank", "no ok read of integer balances", true, bankMutants},
	{"monotonic-reads", "no session reads a key twice", true, monotonicMutants},
	{"read-your-writes", "no session reads a key after writing it", true, ryWMutants},
	{"exactly-once", "no effect with a business key and ok final dump", true, exactlyOnceMutants},
	{"replicas", "fewer than two replicas dumped their state", true, replicaMutants},
	{"mutual-exclusion", "no acquire of a lock", true, mutexMutants},
	{"prefix-order", "no produce with an ok consumer view", true, prefixMutants},
	{"replay-equivalence", "no ok replay", true, replayMutants},
	{"boundary", "no ok read of a tenant's own key beside another tenant", true, boundaryMutants},
}

// historyOnly adapts a family that reads the history alone.
func historyOnly(f func(v *view, rng *rand.Rand, max int) ([]Mutant, string)) func(*view, any, *rand.Rand, int) ([]Mutant, string) {
	return func(v *view, _ any, rng *rand.Rand, max int) ([]Mutant, string) { return f(v, rng, max) }
}

// fitting lists the families whose mutants break the claim of the checker
// named name, as its registered check.Spec says, in the families' order.
func fitting(name string) []family {
	spec, _ := check.Lookup(name)
	var out []family
	for _, f := range families {
		if slices.Contains(spec.Mutants, f.name) {
			out = append(out, f)
		}
	}
	return out
}

// call is one client operation: its invocation and completion positions.
type call struct {
	inv, comp int // comp is -1 when the op never completed
}

// view is a paired history the families read.
type view struct {
	h       []history.Op
	calls   []call // client calls in invocation order
	nemesis []call // nemesis ops in invocation order
}

func newView(h []history.Op, pairs []history.OpPair) *view {
	v := &view{h: h, calls: make([]call, 0, len(pairs))}
	for _, p := range pairs {
		if h[p.Invoke].IsNemesis() {
			v.nemesis = append(v.nemesis, call{inv: p.Invoke, comp: p.Complete})
		} else {
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
