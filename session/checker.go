package session

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/faultline/faultline/check"
)

// CheckerFlags are `faultline check`'s options for building a checker by
// --model, as given on the command line.
type CheckerFlags struct {
	Model     string // --model
	Init      string // --init, as written
	InitSet   bool   // --init was given, so the initial state is known
	BankTotal int64  // --bank-total
	// Elle's options, for list-append and rw-register.
	ConsistencyModels []string      // --consistency-model
	Anomalies         []string      // --anomalies
	CycleBudget       time.Duration // --cycle-search-timeout
	WFRKeys           bool          // --wfr-keys
	SequentialKeys    bool          // --sequential-keys
	LinearizableKeys  bool          // --linearizable-keys
	TransactionOrder  string        // --transaction-order
}

// txnFlag is a transactional flag as given: whether it was set, and
// whether it fits rw-register alone.
type txnFlag struct {
	name        string
	set, rwOnly bool
}

// txnFlags are the transactional flags, in help order.
func (f CheckerFlags) txnFlags() []txnFlag {
	return []txnFlag{
		{"--consistency-model", len(f.ConsistencyModels) > 0, false},
		{"--anomalies", len(f.Anomalies) > 0, false},
		{"--cycle-search-timeout", f.CycleBudget != 0, false},
		{"--wfr-keys", f.WFRKeys, true},
		{"--sequential-keys", f.SequentialKeys, true},
		{"--linearizable-keys", f.LinearizableKeys, true},
		{"--transaction-order", f.TransactionOrder != "", true},
	}
}

// txnOnly names the transactional flags given (those that fit rw-register
// alone only, with rwOnly), joined for a message; "" when none was.
func (f CheckerFlags) txnOnly(rwOnly bool) string {
	var set []string
	for _, t := range f.txnFlags() {
		if t.set && (t.rwOnly || !rwOnly) {
			set = append(set, t.name)
		}
	}
	return strings.Join(set, ", ")
}

// NewChecker builds the checker f.Model names (with init, parsed from
// f.Init by check.ParseInit), after refusing the flags
// that do not apply to it.
func NewChecker(f CheckerFlags, init any) (check.Checker, error) {
	spec, ok := check.ForModel(f.Model)
	if !ok {
		return nil, fmt.Errorf("--model %q: no such model; want one of %s", f.Model, strings.Join(check.ModelNames(), ", "))
	}
	if f.BankTotal != 0 && f.Model != "bank" {
		return nil, fmt.Errorf("--bank-total applies to bank, not %s", f.Model)
	}
	if f.BankTotal < 0 {
		return nil, fmt.Errorf("--bank-total must not be negative, got %d", f.BankTotal)
	}
	o := check.Options{Model: f.Model, Init: init, Bank: check.BankOptions{Total: f.BankTotal}}
	switch spec.Name {
	case "transactional":
		// --init makes the start known; list-append takes only the empty
		// one (nil or []), which the checker enforces.
		o.HasInit = f.InitSet || f.Init != "nil"
		if f.Model != "rw-register" {
			if set := f.txnOnly(true); set != "" {
				return nil, fmt.Errorf("%s applies to rw-register, not %s", set, f.Model)
			}
		}
		order, err := parseTxnOrder(f.TransactionOrder)
		if err != nil {
			return nil, err
		}
		if f.CycleBudget < 0 {
			return nil, fmt.Errorf("--cycle-search-timeout must be positive, got %s", f.CycleBudget)
		}
		o.Transactional = check.TransactionalOptions{ConsistencyModels: f.ConsistencyModels, Anomalies: f.Anomalies,
			CycleSearchBudget: f.CycleBudget, WritesFollowReads: f.WFRKeys, SequentialKeys: f.SequentialKeys, LinearizableKeys: f.LinearizableKeys,
			TransactionOrder: order}
	case "linearizable":
		if set := f.txnOnly(false); set != "" {
			return nil, fmt.Errorf("%s applies to list-append and rw-register, not %s", set, f.Model)
		}
	default: // the oracles: no model search, no initial state
		if f.Init != "nil" {
			return nil, fmt.Errorf("--init does not apply to %s", f.Model)
		}
		if set := f.txnOnly(false); set != "" {
			return nil, fmt.Errorf("%s applies to list-append and rw-register, not %s", set, f.Model)
		}
	}
	return spec.New(o)
}

// parseTxnOrder parses --transaction-order: INDEX:POS pairs, comma-separated,
// each a transaction's completion history index and its commit position.
func parseTxnOrder(s string) (map[int64]int, error) {
	if s == "" {
		return nil, nil
	}
	out := map[int64]int{}
	for _, pair := range strings.Split(s, ",") {
		i, p, ok := strings.Cut(strings.TrimSpace(pair), ":")
		idx, err1 := strconv.ParseInt(i, 10, 64)
		pos, err2 := strconv.Atoi(p)
		if !ok || err1 != nil || err2 != nil {
			return nil, fmt.Errorf("--transaction-order: %q is not INDEX:POS (a completion's history index and its commit position)", pair)
		}
		if _, dup := out[idx]; dup {
			return nil, fmt.Errorf("--transaction-order: index %d given twice", idx)
		}
		out[idx] = pos
	}
	return out, nil
}
