package mutate

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/faultline/faultline/check"
	"github.com/faultline/faultline/history"
	"github.com/faultline/faultline/internal/seed"
)

// Options configures Audit.
type Options struct {
	Seed       uint64 // chooses the mutants; the same seed gives the same ones
	MaxPerKind int    // mutants per kind; 0 means DefaultMaxPerKind
	// Timeout bounds each check run, the baseline's and every mutant's; 0
	// means DefaultTimeout.
	Timeout time.Duration
	// SkipRealtime leaves out, for every oracle, mutants that are wrong
	// only under real-time order. They are always left out for an oracle
	// whose baseline result promises no real-time order (serializable,
	// snapshot isolation, ...), which may rightly accept them.
	SkipRealtime bool
	// Parallel is how many checks run at once; 0 means GOMAXPROCS.
	Parallel int
	// Baseline is the checker's verdict on h when the caller already has
	// it (a run's own check); nil runs the checker on h first.
	Baseline *check.Result
}

// DefaultTimeout bounds one check run of an audit.
const DefaultTimeout = 30 * time.Second

// Undecided is a mutant the checker returned unknown on: neither caught nor
// escaped, and reported because an oracle that cannot decide does not earn
// a pass either.
type Undecided struct {
	Mutant  Mutant
	Summary string // the checker's summary
}

// Oracle is what the audit did for one leaf oracle of the declared checker
// (the checker itself, or one of compose's children, nested ones included).
type Oracle struct {
	Checker   string   `json:"checker"`         // its Name, as in check.Result.Checker
	Kinds     []string `json:"kinds,omitempty"` // the kinds judged against it, in Kinds order
	Applied   int      `json:"applied"`         // mutants judged against it
	Caught    int      `json:"caught"`          // of those, rejected
	Escaped   int      `json:"escaped"`         // of those, accepted
	Undecided int      `json:"undecided"`       // of those, unknown
	// Unfit is why no mutant applied to it on this history; "" when some did.
	Unfit string `json:"unfit,omitempty"`
}

// Report is the outcome of an audit. The oracle is too weak when Escaped is
// not empty; it proved nothing when Checked is 0 (Skipped says why); one of
// its oracles proved nothing on this history when it is named in Unfit.
type Report struct {
	Baseline  check.Validity // the checker's verdict on the unmutated history
	Checked   int            // mutants run that got a verdict (caught or escaped)
	Caught    int            // mutants the checker rejected
	Escaped   []Mutant       // mutants the checker accepted: it should have rejected them
	Undecided []Undecided    // mutants the checker returned unknown on
	Kinds     []string       // the kinds of mutant run, in Kinds order
	Notes     []string       // kinds a present op shape could not yield, and why
	Skipped   string         // why no mutant was checked; "" when some were
	// Oracles lists every leaf oracle audited, in the checker tree's order;
	// checkers that claim nothing (stats) are left out beside one that
	// claims something.
	Oracles []Oracle
	// Unfit names each leaf oracle no mutant applied to, with the reason:
	// "no mutant fits linearizable on this history: no ok read of a
	// written key". Such an oracle's pass was never shown to be earned.
	Unfit []string
}

// descriptive are checkers that report on a history without claiming
// anything a history could break. Beside an oracle that claims something
// they are not audited; as the whole oracle they get every mutant that
// needs no options, and letting them through is the evidence that the
// scenario's oracle cannot fail.
var descriptive = []string{"stats"}

// leaf is one oracle of the checker tree with its verdict on the history.
type leaf struct {
	c   check.Checker
	res check.Result
}

// leaves flattens a checker tree (compose and its children) into its leaf
// oracles, each beside its own result from res, which mirrors the tree.
func leaves(c check.Checker, res check.Result) []leaf {
	kids := check.Children(c)
	if kids == nil {
		return []leaf{{c, res}}
	}
	var out []leaf
	for i, k := range kids {
		if k == nil {
			continue
		}
		var r check.Result
		if i < len(res.Children) {
			r = res.Children[i]
		}
		out = append(out, leaves(k, r)...)
	}
	return out
}

// promisesRealtime reports whether a leaf oracle (its name and its result
// on the history) rests on real-time order: linearizability, or a strict
// consistency model.
func promisesRealtime(name string, r check.Result) bool {
	if name == "linearizable" {
		return true
	}
	models, _ := r.Details["consistency_models"].([]string)
	return slices.ContainsFunc(models, func(m string) bool { return strings.HasPrefix(m, "strict") || m == "linearizable" })
}

// job is one mutant to judge and the leaf oracle that judges it.
type job struct {
	leaf int
	m    Mutant
}

// Audit runs c on the recorded history h and, if c accepts it, judges every
// mutant that fits one of c's oracles (c itself, or each leaf of a compose)
// by that oracle alone. A mutant the oracle rejects is caught, one it accepts
// has escaped, one it cannot decide is undecided. An oracle no mutant fits
// on h is named in Report.Unfit. h is never modified.
func Audit(ctx context.Context, c check.Checker, h []history.Op, o Options) Report {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Parallel <= 0 {
		o.Parallel = runtime.GOMAXPROCS(0)
	}
	var rep Report
	if c == nil {
		rep.Baseline, rep.Skipped = check.Unknown, "no checker to audit"
		return rep
	}
	var base check.Result
	if o.Baseline != nil {
		base = *o.Baseline
	} else {
		base = run(ctx, c, h, o.Timeout)
	}
	rep.Baseline = base.Valid
	if base.Valid != check.Valid {
		rep.Skipped = fmt.Sprintf("the audit needs a history the checker accepts; %s returned %s on it: %s", c.Name(), base.Valid, base.Summary)
		return rep
	}
	pairs, err := history.Pair(h)
	if err != nil {
		rep.Skipped = fmt.Sprintf("the history cannot be paired, so no mutant can be derived: %v", err)
		return rep
	}
	v := newView(h, pairs)
	ls := leaves(c, base)
	claims := slices.ContainsFunc(ls, func(l leaf) bool { return !slices.Contains(descriptive, l.c.Name()) })
	jobs, shared := []job{}, map[string]derived{}
	slot := map[int]int{} // leaf index -> index in rep.Oracles
	for i, l := range ls {
		name := l.c.Name()
		fams := fitting(name)
		if slices.Contains(descriptive, name) {
			if claims {
				continue
			}
			fams = slices.DeleteFunc(slices.Clone(families), func(f family) bool { return f.options })
		}
		slot[i] = len(rep.Oracles)
		ms, unfit := rep.derive(v, l, fams, shared, o)
		rep.Oracles = append(rep.Oracles, Oracle{Checker: name, Unfit: unfit})
		if unfit != "" {
			rep.Unfit = append(rep.Unfit, fmt.Sprintf("no mutant fits %s on this history: %s", name, unfit))
		}
		for _, m := range ms {
			m.Oracle = name
			jobs = append(jobs, job{i, m})
		}
	}
	results := make([]check.Result, len(jobs))
	var wg sync.WaitGroup
	next := make(chan int)
	for range min(o.Parallel, len(jobs)) {
		wg.Go(func() {
			for i := range next {
				results[i] = run(ctx, ls[jobs[i].leaf].c, jobs[i].m.Ops, o.Timeout)
			}
		})
	}
	for i := range jobs {
		next <- i
	}
	close(next)
	wg.Wait()
	for i, r := range results {
		m, or := jobs[i].m, &rep.Oracles[slot[jobs[i].leaf]]
		addKind(&rep.Kinds, m.Kind)
		addKind(&or.Kinds, m.Kind)
		or.Applied++
		switch r.Valid {
		case check.Invalid:
			rep.Checked++
			rep.Caught++
			or.Caught++
		case check.Valid:
			rep.Checked++
			rep.Escaped = append(rep.Escaped, m)
			or.Escaped++
		default:
			rep.Undecided = append(rep.Undecided, Undecided{Mutant: m, Summary: r.Summary})
			or.Undecided++
		}
	}
	switch {
	case rep.Checked > 0:
	case len(jobs) > 0:
		rep.Skipped = fmt.Sprintf("the checker decided none of the %d mutants", len(jobs))
	case len(rep.Oracles) == 0:
		rep.Skipped = fmt.Sprintf("no oracle to audit: %s has no leaf checker", c.Name())
	default:
		rep.Skipped = strings.Join(rep.Unfit, "; ")
	}
	return rep
}

// derived is one history-only family's mutants and note, shared by every
// oracle it fits.
type derived struct {
	ms   []Mutant
	note string
}

// derive finds the mutants of families fams for leaf l, and why there are
// none when there are none. Notes on kinds a present shape could not yield
// go to the report.
func (rep *Report) derive(v *view, l leaf, fams []family, shared map[string]derived, o Options) ([]Mutant, string) {
	name := l.c.Name()
	if len(fams) == 0 {
		return nil, fmt.Sprintf("the audit has no mutant kind for %s's claim", name)
	}
	max := o.MaxPerKind
	if max <= 0 {
		max = DefaultMaxPerKind
	}
	var ms []Mutant
	var why []string
	opts := check.OptionsOf(l.c)
	for _, fam := range fams {
		d, ok := shared[fam.name]
		if !ok || fam.options {
			d.ms, d.note = safeDerive(fam, v, opts, seed.New(o.Seed, "mutate/"+fam.name), max)
			if !fam.options {
				shared[fam.name] = d
			}
		}
		ms = append(ms, d.ms...)
		if d.note != "" {
			if note := fam.name + ": " + d.note; !slices.Contains(rep.Notes, note) {
				rep.Notes = append(rep.Notes, note)
			}
		}
		switch {
		case len(d.ms) > 0:
		case d.note != "":
			why = append(why, d.note)
		default:
			why = append(why, fam.absent)
		}
	}
	desc := slices.Contains(descriptive, name)
	if desc && len(ms) == 0 && len(rep.Notes) == 0 {
		why = []string{fmt.Sprintf("it claims nothing, and no op shape the audit mutates is present (client functions seen: %s)", strings.Join(v.functions(), ", "))}
	}
	// A checker that claims nothing promises no order either, but every
	// mutant is wrong under some claim it could have made.
	if o.SkipRealtime || !desc && !promisesRealtime(name, l.res) {
		n := len(ms)
		ms = slices.DeleteFunc(ms, func(m Mutant) bool { return m.Realtime })
		if n > len(ms) {
			rep.Notes = append(rep.Notes, fmt.Sprintf("%d mutants left out for %s: they are wrong only under real-time order, which it does not promise", n-len(ms), name))
			if len(ms) == 0 {
				why = []string{"every mutant relies on real-time order, which it does not promise"}
			}
		}
	}
	if len(ms) > 0 {
		return ms, ""
	}
	return nil, strings.Join(why, "; ")
}

// safeDerive runs one family, turning a panic into a note: a defect in a
// mutant family must not end the run whose history it audits.
func safeDerive(fam family, v *view, opts any, rng *rand.Rand, max int) (ms []Mutant, note string) {
	defer func() {
		if r := recover(); r != nil {
			ms, note = nil, fmt.Sprintf("deriving its mutants panicked: %v", r)
		}
	}()
	return fam.derive(v, opts, rng, max)
}

// addKind adds kind to kinds once, keeping Kinds order.
func addKind(kinds *[]string, kind string) {
	if slices.Contains(*kinds, kind) {
		return
	}
	*kinds = append(*kinds, kind)
	slices.SortFunc(*kinds, func(a, b string) int { return slices.Index(Kinds, a) - slices.Index(Kinds, b) })
}

// run checks h within timeout, turning a panic into an unknown result.
func run(ctx context.Context, c check.Checker, h []history.Op, timeout time.Duration) (res check.Result) {
	defer func() {
		if r := recover(); r != nil {
			res = check.Result{Checker: c.Name(), Valid: check.Unknown, Summary: fmt.Sprintf("checker panicked: %v", r)}
		}
	}()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	return c.Check(ctx, h, check.Env{Timeout: timeout})
}

// String is a short account of the report, for logs and findings.
func (r Report) String() string {
	if r.Skipped != "" {
		return "sensitivity audit skipped: " + r.Skipped
	}
	s := fmt.Sprintf("sensitivity audit: %d of %d mutants caught", r.Caught, r.Checked)
	if len(r.Oracles) > 1 {
		var per []string
		for _, o := range r.Oracles {
			if o.Applied > 0 {
				per = append(per, fmt.Sprintf("%s %d/%d", o.Checker, o.Caught, o.Caught+o.Escaped))
			}
		}
		s += " (" + strings.Join(per, ", ") + ")"
	}
	if len(r.Undecided) > 0 {
		s += fmt.Sprintf(", %d undecided", len(r.Undecided))
	}
	if len(r.Escaped) > 0 {
		m := r.Escaped[0]
		s += fmt.Sprintf("; %d escaped, first a %s mutant %s accepted: %s", len(r.Escaped), m.Kind, m.Oracle, m.Description)
	}
	if len(r.Unfit) > 0 {
		s += "; " + strings.Join(r.Unfit, "; ")
	}
	return s
}
