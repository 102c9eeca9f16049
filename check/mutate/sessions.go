package mutate

// The families in this file break session guarantees: monotonic reads and
// read-your-writes.

import (
	"fmt"
	"maps"
	"math/rand/v2"

	"github.com/faultline/faultline/check"
	"github.com/faultline/faultline/history"
)

// sessionOf names a call's session as the session oracles do: the process,
// or the named Extra field.
func sessionOf(v *view, c call, o check.SessionOptions) (string, bool) {
	if o.Session == "" {
		return fmt.Sprint(v.h[c.inv].Process), true
	}
	x, ok := extra(v, c, o.Session)
	return history.KeyText(x), ok
}

// isSessionRead and isSessionWrite are the session oracles' op functions.
func isSessionRead(f string) bool  { return f == "read" || f == "get" }
func isSessionWrite(f string) bool { return f == "write" || f == "put" }

// streamKey is one session's stream of one key.
type streamKey struct{ session, key string }

// monotonicMutants makes a read go back: of two reads of one key in one
// session, the second begun after the first ended, the second returns the
// initial state (nil, the lowest version) while the first returned a real
// version. With a version field the version is set to nil, else the value.
func monotonicMutants(v *view, opts any, rng *rand.Rand, limit int) ([]Mutant, string) {
	o, ok := opts.(check.SessionOptions)
	if !ok {
		return nil, ""
	}
	type read struct {
		c     call
		isNil bool
	}
	prev := map[streamKey]read{}
	var cands [][2]call // (earlier read with a version, later read)
	for _, c := range v.calls {
		if !isSessionRead(v.h[c.inv].F) || !v.ok(c) {
			continue
		}
		s, ok := sessionOf(v, c, o)
		if !ok {
			continue
		}
		raw := v.h[c.comp].Value
		if o.Version != "" {
			raw = v.h[c.comp].Extra[o.Version]
		}
		if _, num := asFloat(raw); raw != nil && !num {
			continue // no comparable version: the oracle skips it
		}
		sk := streamKey{s, keyText(keyOfCall(v, c))}
		p, seen := prev[sk]
		if seen && p.c.comp < c.inv && !p.isNil {
			cands = append(cands, [2]call{p.c, c})
		}
		if !seen || p.c.comp < c.inv {
			prev[sk] = read{c, raw == nil}
		}
	}
	if len(cands) == 0 {
		return nil, "no session reads a key again after a read of a real version ended"
	}
	var ms []Mutant
	for _, pc := range pick(rng, cands)[:min(limit, len(cands))] {
		p, c := pc[0], pc[1]
		op := v.h[c.comp]
		if o.Version != "" {
			op.Extra = maps.Clone(op.Extra)
			if op.Extra == nil {
				op.Extra = map[string]any{}
			}
			op.Extra[o.Version] = nil
		} else {
			op.Value = nil
		}
		ms = append(ms, v.mutant(StaleRead, false, map[int]history.Op{c.comp: op},
			"op %d (ok read, process %d) returns the initial state, though op %d in the same session read a later version before it began",
			op.Index, op.Process, v.h[p.comp].Index))
	}
	return byPos(ms), ""
}

// asFloat reads a number as float64, as the session oracles compare versions.
func asFloat(x any) (float64, bool) {
	switch y := x.(type) {
	case int64:
		return float64(y), true
	case int:
		return float64(y), true
	case float64:
		return y, true
	}
	return 0, false
}

// ryWMutants makes a session miss its own write: an ok read that began after
// the session's latest ok write to the key completed returns a value no op
// wrote.
func ryWMutants(v *view, opts any, rng *rand.Rand, limit int) ([]Mutant, string) {
	o, ok := opts.(check.SessionOptions)
	if !ok {
		return nil, ""
	}
	ph := newPhantoms()
	own := map[streamKey]call{}
	var cands []call
	for _, c := range v.calls {
		f := v.h[c.inv].F
		if isSessionWrite(f) {
			ph.see(v.h[c.inv].Value)
		}
		if !v.ok(c) || !isSessionRead(f) && !isSessionWrite(f) {
			continue
		}
		if isSessionRead(f) {
			ph.see(v.h[c.comp].Value)
		}
		s, ok := sessionOf(v, c, o)
		if !ok {
			continue
		}
		sk := streamKey{s, keyText(keyOfCall(v, c))}
		if isSessionWrite(f) {
			if w, ok := own[sk]; !ok || w.comp < c.comp {
				own[sk] = c
			}
			continue
		}
		if w, ok := own[sk]; ok && w.comp < c.inv {
			cands = append(cands, c)
		}
	}
	if len(cands) == 0 {
		return nil, "no session reads a key after its own acknowledged write to it"
	}
	var ms []Mutant
	for _, c := range pick(rng, cands)[:min(limit, len(cands))] {
		x, ok := ph.next()
		if !ok {
			break
		}
		op := &v.h[c.comp]
		ms = append(ms, v.mutant(StaleRead, false, v.withValue(c.comp, x),
			"op %d (ok read, process %d) returns %s, which no op wrote, after its session's own write to the key was acknowledged",
			op.Index, op.Process, history.FormatEDN(x)))
	}
	return byPos(ms), ""
}
