package check

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/faultline/faultline/history"
)

func init() {
	Register(Spec{
		Name:            "bank",
		Models:          []string{"bank"},
		New:             func(o Options) (Checker, error) { return Bank(o.Bank), nil },
		Plan:            []string{"bank"},
		ModelsUnderTest: []string{"ledger"},
		Mutants:         []string{"bank"},
	})
}

// BankOptions configures Bank.
type BankOptions struct {
	Total         int64 // the conserved sum of all balances; 0 takes it from the first ok read
	Accounts      []any // the expected accounts; nil accepts whatever the reads show
	AllowNegative bool  // accept negative balances (overdrafts are legal)
}

// Bank returns Jepsen's bank checker. Ops: :transfer with value {from, to,
// amount}, and :read whose ok value maps each account to its balance. Every
// ok read must show numeric balances that sum to the total, none negative
// (unless allowed), over exactly the declared accounts. Transfers are counted
// as evidence but not replayed: a snapshot read is what the invariant is
// about, so an :info transfer needs no special case.
func Bank(o BankOptions) Checker {
	o.Accounts = slices.Clone(o.Accounts)
	return bank{o: o}
}

type bank struct{ o BankOptions }

// Name implements Checker.
func (bank) Name() string { return "bank" }

// String describes the checker as it would be written in a scenario.
func (c bank) String() string {
	var args []string
	if c.o.Total != 0 {
		args = append(args, fmt.Sprintf("total=%d", c.o.Total))
	}
	if c.o.Accounts != nil {
		if v, ok := scriptLiteral(c.o.Accounts); ok {
			args = append(args, "accounts="+v)
		}
	}
	if c.o.AllowNegative {
		args = append(args, "allow_negative=True")
	}
	return "check.bank(" + strings.Join(args, ", ") + ")"
}

// Check implements Checker.
func (c bank) Check(_ context.Context, h []history.Op, _ Env) Result {
	blind := []string{
		"judges snapshot reads only: a read that is not a snapshot can hide or invent a violation",
		"transfers are not replayed, so a wrong but conserving transfer passes",
	}
	if c.o.Total == 0 {
		blind = append(blind, "no total was declared: the first read's sum is taken as the truth")
	}
	ops, err := clientOps(h)
	if err != nil {
		return cannotCheck(c.Name(), err, blind)
	}
	want := map[string]bool{}
	for _, a := range c.o.Accounts {
		want[history.KeyText(a)] = true
	}
	total, haveTotal := c.o.Total, c.o.Total != 0
	consumed, reads, transfers := 0, 0, 0
	accounts := keyCounter{}
	var bad []string
	for _, op := range ops {
		switch {
		case op.inv.F == "transfer":
			consumed++
			transfers++
			continue
		case op.inv.F != "read" || op.outcome() != history.OK:
			continue
		}
		consumed++
		reads++
		m, ok := op.comp.Value.(map[string]any)
		if !ok {
			return cannotCheck(c.Name(), history.OpErrorf(op.comp.Index, "op %d: a bank read returns a map of balances, got %s", op.comp.Index, formatValue(op.comp.Value)), blind)
		}
		if errs := c.checkRead(op, m, want, &total, &haveTotal, accounts); len(errs) > 0 {
			bad = append(bad, errs...)
		}
	}
	if consumed == 0 {
		return nothingToCheck(c.Name(), "no :transfer or :read ops", blind)
	}
	res := Result{
		Checker:    c.Name(),
		Valid:      Valid,
		Consumed:   Consumed{Ops: consumed, Keys: len(accounts)},
		BlindSpots: blind,
		Details:    map[string]any{"reads": reads, "transfers": transfers, "total": total, "errors": len(bad)},
	}
	if reads == 0 {
		res.Valid = Unknown
		res.Summary = fmt.Sprintf("nothing to check: no ok :read among %d transfers", transfers)
		return res
	}
	res.Summary = fmt.Sprintf("%d reads over %d accounts all sum to %d with no negative balance", reads, len(accounts), total)
	if len(bad) > 0 {
		res.Valid = Invalid
		res.Summary = fmt.Sprintf("%d problems in %d reads; first: %s", len(bad), reads, bad[0])
		res.Details["problems"] = bad
		var b strings.Builder
		fmt.Fprintf(&b, "Every read must show the declared accounts, balances summing to %d, none negative:\n", total)
		for i, s := range bad {
			if i == 20 {
				fmt.Fprintf(&b, "... %d more\n", len(bad)-20)
				break
			}
			b.WriteString("  " + s + "\n")
		}
		res.Explanation = b.String()
	}
	return res
}

// checkRead lists what is wrong with one read's balances.
func (c bank) checkRead(op clientOp, m map[string]any, want map[string]bool, total *int64, haveTotal *bool, seen keyCounter) []string {
	var errs []string
	at := fmt.Sprintf("op %d (process %d)", op.comp.Index, op.inv.Process)
	var sum float64
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		seen.add(k)
		v, ok := asFloat(m[k])
		switch {
		case !ok:
			errs = append(errs, fmt.Sprintf("%s: account %s has balance %s, not a number", at, k, formatValue(m[k])))
		case v < 0 && !c.o.AllowNegative:
			errs = append(errs, fmt.Sprintf("%s: account %s has negative balance %s", at, k, formatValue(m[k])))
		}
		if len(want) > 0 && !want[k] {
			errs = append(errs, fmt.Sprintf("%s: unexpected account %s", at, k))
		}
		sum += v
	}
	for _, a := range c.o.Accounts {
		if _, ok := m[history.KeyText(a)]; !ok {
			errs = append(errs, fmt.Sprintf("%s: account %s is missing", at, history.KeyText(a)))
		}
	}
	if !*haveTotal {
		*total, *haveTotal = int64(sum), true
	}
	if sum != float64(*total) {
		errs = append(errs, fmt.Sprintf("%s: balances sum to %s, not %d", at, strconv.FormatFloat(sum, 'f', -1, 64), *total))
	}
	return errs
}
