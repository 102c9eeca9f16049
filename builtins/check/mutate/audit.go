package mutate

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/faultline/faultline/builtins/check"
	"github.com/faultline/faultline/history"
)

// Options configures Audit.
type Options struct {
	Seed       uint64 // chooses the mutants; the same seed gives the same ones
	MaxPerKind int    // mutants per kind; 0 means DefaultMaxPerKind
	// Timeout bounds each check run, the baseline's and every mutant's; 0
	// means DefaultTimeout.
	Timeout time.Duration
	// SkipRealtime leaves out mutants that are wrong only under real-time
	// order; set it when the declared oracle promises no real-time order
	// (serializable, snapshot isolation, ...), which may rightly accept them.
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

// Report is the outcome of an audit. The oracle is too weak when Escaped is
// not empty; it proved nothing when Checked is 0 (Skipped says why).
type Report struct {
	Baseline  check.Validity // the checker's verdict on the unmutated history
	Checked   int            // mutants run that got a verdict (caught or escaped)
	Caught    int            // mutants the checker rejected
	Escaped   []Mutant       // mutants the checker accepted: it should have rejected them
	Undecided []Undecided    // mutants the checker returned unknown on
	Kinds     []string       // the kinds of mutant run, in Kinds order
	Notes     []string       // kinds a present op shape could not yield, and why
	Skipped   string         // why no mutant was checked; "" when some were
}

// Audit runs c on the recorded history h and, if c accepts it, on every
// mutant of h. A mutant the checker rejects is caught, one it accepts has
// escaped, one it cannot decide is undecided. h is never modified.
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
	ms, notes, skipped := derive(h, o.Seed, o.MaxPerKind)
	rep.Notes = notes
	if o.SkipRealtime {
		n := len(ms)
		ms = slices.DeleteFunc(ms, func(m Mutant) bool { return m.Realtime })
		if n > len(ms) {
			rep.Notes = append(rep.Notes, fmt.Sprintf("%d mutants left out: they are wrong only under real-time order, which the oracle does not promise", n-len(ms)))
		}
		if len(ms) == 0 && skipped == "" {
			skipped = "every mutant relies on real-time order, which the oracle does not promise"
		}
	}
	var base check.Result
	if o.Baseline != nil {
		base = *o.Baseline
	} else {
		base = run(ctx, c, h, o.Timeout)
	}
	rep.Baseline = base.Valid
	switch {
	case base.Valid != check.Valid:
		rep.Skipped = fmt.Sprintf("the audit needs a history the checker accepts; %s returned %s on it: %s", c.Name(), base.Valid, base.Summary)
		return rep
	case skipped != "":
		rep.Skipped = skipped
		return rep
	}
	results := make([]check.Result, len(ms))
	var wg sync.WaitGroup
	next := make(chan int)
	for range min(o.Parallel, len(ms)) {
		wg.Go(func() {
			for i := range next {
				results[i] = run(ctx, c, ms[i].Ops, o.Timeout)
			}
		})
	}
	for i := range ms {
		next <- i
	}
	close(next)
	wg.Wait()
	for i, r := range results {
		m := ms[i]
		if !slices.Contains(rep.Kinds, m.Kind) {
			rep.Kinds = append(rep.Kinds, m.Kind)
		}
		switch r.Valid {
		case check.Invalid:
			rep.Checked++
			rep.Caught++
		case check.Valid:
			rep.Checked++
			rep.Escaped = append(rep.Escaped, m)
		default:
			rep.Undecided = append(rep.Undecided, Undecided{Mutant: m, Summary: r.Summary})
		}
	}
	slices.SortFunc(rep.Kinds, func(a, b string) int { return slices.Index(Kinds, a) - slices.Index(Kinds, b) })
	if rep.Checked == 0 {
		rep.Skipped = fmt.Sprintf("the checker decided none of the %d mutants", len(ms))
	}
	return rep
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
	if len(r.Undecided) > 0 {
		s += fmt.Sprintf(", %d undecided", len(r.Undecided))
	}
	if len(r.Escaped) > 0 {
		m := r.Escaped[0]
		s += fmt.Sprintf("; %d escaped, first a %s mutant: %s", len(r.Escaped), m.Kind, m.Description)
	}
	return s
}
