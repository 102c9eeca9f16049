package check

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/faultline/faultline/history"
)

func init() {
	Register(Spec{
		Name:    "exactly-once",
		NoModel: "it needs the business key (key=), which faultline check has no flag for",
		Plan:    []string{"exactly-once"},
		Mutants: []string{"exactly-once"},
	})
}

// ExactlyOnceOptions configures ExactlyOnce.
type ExactlyOnceOptions struct {
	Key    string   // the business idempotency key's field name (required)
	Writes []string // the functions that commit an effect; default: every function but Final and reads
	Final  string   // the function of the final dump or audit; default "dump"
}

// ExactlyOnce returns a checker that every business key committed at most one
// effect, and every acknowledged one exactly one. Ops: effect ops carry the
// business key in Op.Extra[Key] or in a map Value's Key field, and may be
// retried under the same key; the last ok :dump (Final) is the committed state:
// a collection, or a map whose values are taken, of records (maps with the Key
// field) or of bare business keys. A key with two records is a duplicate
// effect; an ok op whose key has no record is a lost one. An :info op's key may
// hold zero records or one. Without a dump the verdict is unknown: ok
// responses alone cannot tell a retry from a second effect.
func ExactlyOnce(o ExactlyOnceOptions) (Checker, error) {
	if o.Key == "" {
		return nil, errors.New("exactly-once needs the business key's field name")
	}
	if o.Final == "" {
		o.Final = "dump"
	}
	o.Writes = slices.Clone(o.Writes)
	return exactlyOnce{o: o}, nil
}

type exactlyOnce struct{ o ExactlyOnceOptions }

// Name implements Checker.
func (exactlyOnce) Name() string { return "exactly-once" }

// String describes the checker as it would be written in a scenario.
func (c exactlyOnce) String() string {
	s := fmt.Sprintf("check.exactly_once(key=%q", c.o.Key)
	if len(c.o.Writes) > 0 {
		s += ", writes=" + quoteList(c.o.Writes)
	}
	return s + fmt.Sprintf(", final=%q)", c.o.Final)
}

// isEffect reports whether f commits an effect.
func (c exactlyOnce) isEffect(f string) bool {
	if len(c.o.Writes) > 0 {
		return slices.Contains(c.o.Writes, f)
	}
	return f != c.o.Final && !isRead(f)
}

// businessKey finds the op's business key.
func (c exactlyOnce) businessKey(op clientOp) (any, bool) {
	for _, o := range []*history.Op{op.inv, op.comp} {
		if o == nil {
			continue
		}
		if v, ok := o.Extra[c.o.Key]; ok {
			return v, true
		}
		if m, ok := o.Value.(map[string]any); ok {
			if v, ok := m[c.o.Key]; ok {
				return v, true
			}
		}
	}
	return nil, false
}

// Check implements Checker.
func (c exactlyOnce) Check(_ context.Context, h []history.Op, _ Env) Result {
	blind := []string{
		"the business key must be the client's idempotency key: an op id used as key hides duplicates",
		"judges the final dump only: effects undone before it are not seen",
	}
	ops, err := clientOps(h)
	if err != nil {
		return cannotCheck(c.Name(), err, blind)
	}
	type attempt struct {
		key      any
		ok, info int
	}
	byKey := map[string]*attempt{}
	consumed, noKey := 0, 0
	for _, op := range ops {
		if !c.isEffect(op.inv.F) || op.outcome() == history.Fail {
			continue
		}
		bk, ok := c.businessKey(op)
		if !ok {
			noKey++
			continue
		}
		consumed++
		k := elemKey(bk)
		a := byKey[k]
		if a == nil {
			a = &attempt{key: bk}
			byKey[k] = a
		}
		if op.outcome() == history.OK {
			a.ok++
		} else {
			a.info++
		}
	}
	if consumed == 0 {
		why := fmt.Sprintf("no effect op carries the business key %q", c.o.Key)
		return nothingToCheck(c.Name(), why, blind)
	}
	res := Result{Checker: c.Name(), Valid: Valid, Consumed: Consumed{Ops: consumed, Keys: len(byKey)}, BlindSpots: blind}
	dump, ok := finalDump(ops, c.o.Final)
	if !ok {
		res.Valid = Unknown
		res.Summary = fmt.Sprintf("unknown: %d effect ops over %d business keys but no ok :%s to count committed effects", consumed, len(byKey), c.o.Final)
		return res
	}
	records, err := c.countRecords(dump.comp.Value)
	if err != nil {
		return cannotCheck(c.Name(), history.OpErrorf(dump.comp.Index, "op %d: %w", dump.comp.Index, err), blind)
	}
	res.Consumed.Ops++
	var dup, lost, unexpected []string
	for k, n := range records {
		a := byKey[k]
		switch {
		case a == nil:
			unexpected = append(unexpected, k)
		case n > 1:
			dup = append(dup, fmt.Sprintf("%s committed %d times (%d ok, %d info attempts)", formatValue(a.key), n, a.ok, a.info))
		}
	}
	for k, a := range byKey {
		if a.ok > 0 && records[k] == 0 {
			lost = append(lost, fmt.Sprintf("%s acknowledged %d times, never committed", formatValue(a.key), a.ok))
		}
	}
	sort.Strings(dup)
	sort.Strings(lost)
	sort.Strings(unexpected)
	res.Details = map[string]any{"business_keys": len(byKey), "duplicated_count": len(dup), "lost_count": len(lost),
		"unexpected_count": len(unexpected), "without_key": noKey}
	res.Summary = fmt.Sprintf("%d business keys: %d duplicated, %d lost, %d committed without an attempt; %d effect ops had no key",
		len(byKey), len(dup), len(lost), len(unexpected), noKey)
	var b strings.Builder
	for _, l := range [][]string{dup, lost} {
		for i, s := range l {
			if i == 20 {
				fmt.Fprintf(&b, "  ... %d more\n", len(l)-20)
				break
			}
			b.WriteString("  " + s + "\n")
		}
	}
	if len(unexpected) > 0 {
		fmt.Fprintf(&b, "  committed with no attempt: %s\n", strings.Join(unexpected[:min(len(unexpected), 20)], " "))
	}
	if b.Len() > 0 {
		res.markInvalid()
		res.Explanation = fmt.Sprintf("Each business key must be committed once if acknowledged, at most once if not (final op %d):\n", dump.comp.Index) + b.String()
	}
	return res
}

// countRecords counts the dump's records per business key.
func (c exactlyOnce) countRecords(v any) (map[string]int, error) {
	els, ok := elements(v)
	if m, isMap := v.(map[string]any); isMap {
		els, ok = make([]any, 0, len(m)), true
		for _, e := range m {
			els = append(els, e)
		}
	}
	if !ok {
		return nil, fmt.Errorf("a dump is a collection or map of records, got %s", formatValue(v))
	}
	counts := make(map[string]int, len(els))
	for _, e := range els {
		if r, ok := e.(map[string]any); ok {
			bk, ok := r[c.o.Key]
			if !ok {
				return nil, fmt.Errorf("dump record %s has no %q field", formatValue(r), c.o.Key)
			}
			e = bk
		}
		counts[elemKey(e)]++
	}
	return counts, nil
}
