package check

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/faultline/faultline/history"
)

func init() {
	Register(Spec{
		Name:            "monotonic-reads",
		NoModel:         "faultline check has no flags for the session and version fields (session=, version=)",
		Plan:            []string{"monotonic-reads"},
		Oracle:          "history",
		ModelsUnderTest: []string{"session"},
		Mutants:         []string{"monotonic-reads"},
	})
	Register(Spec{
		Name:            "read-your-writes",
		NoModel:         "faultline check has no flag for the session field (session=)",
		Plan:            []string{"session-consistency"},
		Oracle:          "history",
		ModelsUnderTest: []string{"session"},
		Mutants:         []string{"read-your-writes"},
	})
}

// SessionOptions configures MonotonicReads and ReadYourWrites.
type SessionOptions struct {
	// Session names the Op.Extra field that identifies a session; "" means the
	// process is the session (a reconnect under the same process is then not
	// a new session, so give a field when clients reconnect).
	Session string
	// Version names the Op.Extra field of a read's completion holding the
	// version the store reported; "" compares the read values themselves,
	// which must then be numbers that only grow.
	Version string
}

// Session ops: :read (or :get) with an optional Key, whose ok value is the
// value read; :write (or :put) with an optional Key and the value written.
// An unkeyed op addresses the single register "".

// sessionKey is one (session, key) stream.
type sessionKey struct{ session, key string }

// sessionOf names the op's session.
func (o SessionOptions) sessionOf(op clientOp) (string, bool) {
	if o.Session == "" {
		return strconv.Itoa(op.inv.Process), true
	}
	v, ok := op.inv.Extra[o.Session]
	if !ok && op.comp != nil {
		v, ok = op.comp.Extra[o.Session]
	}
	return history.KeyText(v), ok
}

// optionArgs renders the options as Starlark keyword arguments.
func (o SessionOptions) optionArgs() string {
	var args []string
	if o.Session != "" {
		args = append(args, fmt.Sprintf("session=%q", o.Session))
	}
	if o.Version != "" {
		args = append(args, fmt.Sprintf("version=%q", o.Version))
	}
	return strings.Join(args, ", ")
}

func isRead(f string) bool  { return f == "read" || f == "get" }
func isWrite(f string) bool { return f == "write" || f == "put" }

// MonotonicReads returns a checker that, within each session and key, reads
// never go back: each ok read's version is at least that of the session's
// previous read of the key that had finished before it began. nil (the
// initial state) is the lowest version. Reads without a comparable version are
// skipped and counted.
func MonotonicReads(o SessionOptions) Checker { return monotonicReads{o: o} }

type monotonicReads struct{ o SessionOptions }

// Name implements Checker.
func (monotonicReads) Name() string { return "monotonic-reads" }

// String describes the checker as it would be written in a scenario.
func (c monotonicReads) String() string { return "check.monotonic_reads(" + c.o.optionArgs() + ")" }

// Check implements Checker.
func (c monotonicReads) Check(_ context.Context, h []history.Op, _ Env) Result {
	blind := []string{"versions must come from the store (or be growing values): wall-clock order is not a version order",
		"reads in one session that overlap in time are not compared"}
	ops, err := clientOps(h)
	if err != nil {
		return cannotCheck(c.Name(), err, blind)
	}
	if c.o.Version == "" {
		// Without a version field the read values are the versions, which
		// holds only for a workload whose writes grow: on a register of
		// arbitrary values a correct store "goes back" all the time. Such a
		// history is the wrong data model for this checker, not an anomaly.
		if why := valuesNotVersions(ops); why != "" {
			r := nothingToCheck(c.Name(), "the read values are not versions: "+why+"; give version= (the store's version field) or write growing values", blind)
			r.Details = map[string]any{"model_mismatch": why}
			return r
		}
	}
	type last struct {
		op      clientOp
		version float64
		isNil   bool
	}
	prev := map[sessionKey]last{}
	keys := keyCounter{}
	consumed, skipped, compared := 0, 0, 0
	var bad []string
	for _, op := range ops {
		if !isRead(op.inv.F) || op.outcome() != history.OK {
			continue
		}
		s, ok := c.o.sessionOf(op)
		if !ok {
			skipped++
			continue
		}
		raw := op.comp.Value
		if c.o.Version != "" {
			raw = op.comp.Extra[c.o.Version]
		}
		cur := last{op: op, isNil: raw == nil}
		if !cur.isNil {
			if cur.version, ok = asFloat(raw); !ok {
				skipped++
				continue
			}
		}
		consumed++
		keys.add(op.key())
		sk := sessionKey{s, history.KeyText(op.key())}
		p, seen := prev[sk]
		if seen && p.op.compAt < op.invAt {
			compared++
			if cur.isNil && !p.isNil || !cur.isNil && !p.isNil && cur.version < p.version {
				bad = append(bad, fmt.Sprintf("%s: op %d read %s after op %d read %s",
					streamName(s, op.key()), op.comp.Index, formatValue(raw), p.op.comp.Index, versionText(p.isNil, p.version)))
			}
		}
		if !seen || p.op.compAt < op.invAt {
			prev[sk] = cur
		}
	}
	if consumed == 0 {
		why := "no ok reads"
		if skipped > 0 {
			why = fmt.Sprintf("no ok read had a session and a numeric version (%d skipped)", skipped)
		}
		return nothingToCheck(c.Name(), why, blind)
	}
	res := Result{Checker: c.Name(), Valid: Valid, Consumed: Consumed{Ops: consumed, Keys: len(keys)}, BlindSpots: blind,
		Details: map[string]any{"reads": consumed, "compared": compared, "skipped": skipped, "streams": len(prev), "errors": len(bad)}}
	res.Summary = fmt.Sprintf("%d reads in %d session/key streams, %d compared with the one before, none went back; %d skipped", consumed, len(prev), compared, skipped)
	if compared == 0 {
		res.Valid = Unknown
		res.Summary = "unknown: no session read a key twice: " + res.Summary
	}
	if len(bad) > 0 {
		res.Valid = Invalid
		res.Summary = fmt.Sprintf("%d reads went back; first: %s", len(bad), bad[0])
		res.Details["problems"] = bad
		res.Explanation = "Within a session, a read must not return an older version than an earlier read of the same key:\n  " +
			strings.Join(bad[:min(len(bad), 20)], "\n  ") + "\n"
	}
	return res
}

// valuesNotVersions says why the written values of ops cannot serve as a
// version order ("" when they can): per key, every write's value must be a
// number greater than that of each write that completed before it began.
func valuesNotVersions(ops []clientOp) string {
	type w struct {
		v      float64
		compAt int // math.MaxInt when it never completed
	}
	byKey := map[string][]w{}
	for _, op := range ops {
		if !isWrite(op.inv.F) || op.outcome() == history.Fail {
			continue
		}
		k := history.KeyText(op.key())
		v, ok := asFloat(op.inv.Value)
		if !ok {
			return fmt.Sprintf("op %d writes %s, not a number", op.inv.Index, formatValue(op.inv.Value))
		}
		for _, p := range byKey[k] {
			if p.compAt < op.invAt && v <= p.v {
				return fmt.Sprintf("op %d writes %s to key %s after a write of %s had completed", op.inv.Index, formatValue(op.inv.Value), k, formatValue(p.v))
			}
		}
		byKey[k] = append(byKey[k], w{v, op.compAt})
	}
	return ""
}

// streamName names a (session, key) stream for messages.
func streamName(session string, key any) string {
	if key == nil {
		return "session " + session
	}
	return "session " + session + " key " + history.KeyText(key)
}

// versionText renders a version for messages.
func versionText(isNil bool, v float64) string {
	if isNil {
		return "nil"
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// ReadYourWrites returns a checker that a session sees its own writes: an ok
// read that began after the session's latest ok write to the key completed
// must return that value, or the value of a non-failed write (by anyone) that
// may have followed it: one that was not over before the session's write
// began and that began before the read ended.
func ReadYourWrites(o SessionOptions) Checker { return readYourWrites{o: o} }

type readYourWrites struct{ o SessionOptions }

// Name implements Checker.
func (readYourWrites) Name() string { return "read-your-writes" }

// String describes the checker as it would be written in a scenario.
func (c readYourWrites) String() string { return "check.read_your_writes(" + c.o.optionArgs() + ")" }

// Check implements Checker.
func (c readYourWrites) Check(_ context.Context, h []history.Op, _ Env) Result {
	blind := []string{"a session's :info write leaves its later reads unjudged until its next ok write",
		"reads before the session's first ok write to a key are not judged"}
	ops, err := clientOps(h)
	if err != nil {
		return cannotCheck(c.Name(), err, blind)
	}
	writesByKey := map[string][]clientOp{}
	for _, op := range ops {
		if isWrite(op.inv.F) && op.outcome() != history.Fail {
			k := history.KeyText(op.key())
			writesByKey[k] = append(writesByKey[k], op)
		}
	}
	own := map[sessionKey]clientOp{} // the session's latest ok write per key
	keys := keyCounter{}
	consumed, judged := 0, 0
	var bad []string
	for _, op := range ops {
		if op.outcome() != history.OK || !isRead(op.inv.F) && !isWrite(op.inv.F) {
			continue
		}
		s, ok := c.o.sessionOf(op)
		if !ok {
			continue
		}
		consumed++
		keys.add(op.key())
		sk := sessionKey{s, history.KeyText(op.key())}
		if isWrite(op.inv.F) {
			if w, ok := own[sk]; !ok || w.compAt < op.compAt {
				own[sk] = op
			}
			continue
		}
		w, ok := own[sk]
		if !ok || w.compAt > op.invAt {
			continue
		}
		judged++
		if !seesWrite(op, w, writesByKey[sk.key]) {
			bad = append(bad, fmt.Sprintf("%s: op %d read %s after its own op %d wrote %s",
				streamName(s, op.key()), op.comp.Index, formatValue(op.comp.Value), w.comp.Index, formatValue(w.inv.Value)))
		}
	}
	if consumed == 0 {
		return nothingToCheck(c.Name(), "no ok reads or writes with a session", blind)
	}
	res := Result{Checker: c.Name(), Valid: Valid, Consumed: Consumed{Ops: consumed, Keys: len(keys)}, BlindSpots: blind,
		Details: map[string]any{"judged_reads": judged, "errors": len(bad)}}
	res.Summary = fmt.Sprintf("%d reads after a session's own write, all saw it or a later write", judged)
	if judged == 0 {
		res.Valid = Unknown
		res.Summary = "unknown: no session read a key after writing it"
	}
	if len(bad) > 0 {
		res.Valid = Invalid
		res.Summary = fmt.Sprintf("%d of %d reads missed the session's own write; first: %s", len(bad), judged, bad[0])
		res.Details["problems"] = bad
		res.Explanation = "A read must return the session's last write to the key, or a write that may have come after it:\n  " +
			strings.Join(bad[:min(len(bad), 20)], "\n  ") + "\n"
	}
	return res
}

// seesWrite reports whether read r returned w's value or that of a write that
// may have been ordered after w and before r.
func seesWrite(r, w clientOp, writes []clientOp) bool {
	got := r.comp.Value
	if history.Equal(got, w.inv.Value) {
		return true
	}
	for _, o := range writes {
		if o.inv != w.inv && o.compAt > w.invAt && o.invAt < r.compAt && history.Equal(got, o.inv.Value) {
			return true
		}
	}
	return false
}
