package check

import (
	"fmt"
	"strings"

	"github.com/faultline/faultline/history"
)

// modelKind selects the sequential specification an op history is checked against.
type modelKind int

const (
	kindRegister modelKind = iota // read/write on one register
	kindCAS                       // read/write/cas on one register
	kindMulti                     // txn of read/write micro-ops over named registers
	kindKV                        // a cas-register plus append per key
)

// models maps each model name to its kind; Models lists the names in this order.
var models = []struct {
	name string
	kind modelKind
	fs   string // what functions the model accepts, for error text
}{
	{"register", kindRegister, "read/get, write/put"},
	{"cas-register", kindCAS, "read/get, write/put, cas"},
	{"multi-register", kindMulti, "txn of [:read k v] / [:write k v]"},
	{"kv", kindKV, "read/get, write/put, cas, append, per key"},
}

// opKind is the operation a modelled op performs.
type opKind uint8

const (
	opRead opKind = iota
	opWrite
	opCAS
	opAppend
	opTxn
)

// input is a porcupine call: what the op asked for. It also carries where the
// op sits in our history, so text and the visualization can name it.
type input struct {
	kind   opKind
	arg    any   // write/append value, cas expected value
	to     any   // cas new value
	txn    []mop // txn micro-ops (from the completion when it is ok)
	key    string
	invoke int // position of the invocation in the history
}

// output is a porcupine return: what the op observed.
type output struct {
	unknown  bool // info or never completed: the effect may apply, the output is unconstrained
	value    any  // read result
	complete int  // position of the completion in the history, -1 if none
}

// mop is one micro-op of a multi-register txn.
type mop struct {
	write bool
	key   string
	value any
}

// spec is a model with its initial state: the sequential behaviour every
// partition must be explainable by.
type spec struct {
	kind    modelKind
	name    string
	init    any            // initial register value (register, cas-register, kv)
	initMap map[string]any // initial registers (multi-register), never mutated
}

// initial returns the state a partition starts in.
func (s *spec) initial() any {
	if s.kind == kindMulti {
		return s.initMap
	}
	return s.init
}

// readMatches reports whether a read that returned got is explained by the
// register holding state. A nil read means the key was absent, which is how a
// store shows the initial value, so it also matches a register that holds init.
func readMatches(state, got, init any) bool {
	return history.Equal(state, got) || got == nil && history.Equal(state, init)
}

// step applies one op to a state. It never mutates state: porcupine keeps old
// states in its cache.
func (s *spec) step(state any, in *input, out *output) (bool, any) {
	switch in.kind {
	case opRead:
		return out.unknown || readMatches(state, out.value, s.init), state
	case opWrite:
		return true, in.arg
	case opCAS:
		if history.Equal(state, in.arg) {
			return true, in.to
		}
		// An info cas that found another value failed harmlessly.
		return out.unknown, state
	case opAppend:
		next, ok := appendValue(state, in.arg)
		return ok, next
	case opTxn:
		return s.stepTxn(state.(map[string]any), in, out)
	}
	return false, state
}

// appendValue concatenates string registers; nil is the empty string (kv).
func appendValue(state, arg any) (any, bool) {
	a, _ := arg.(string)
	switch st := state.(type) {
	case nil:
		return arg, true
	case string:
		return st + a, true
	}
	return state, false
}

// stepTxn runs micro-ops in order against a copy-on-write map: reads see the
// txn's own earlier writes; an info txn's reads are unconstrained.
func (s *spec) stepTxn(state map[string]any, in *input, out *output) (bool, any) {
	cur, copied := state, false
	for _, m := range in.txn {
		if !m.write {
			if !out.unknown && !readMatches(cur[m.key], m.value, s.initMap[m.key]) {
				return false, state
			}
			continue
		}
		if !copied {
			cur, copied = make(map[string]any, len(state)+1), true
			for k, v := range state {
				cur[k] = v
			}
		}
		// Absent and nil are one value, so equal maps stay equal.
		if m.value == nil {
			delete(cur, m.key)
		} else {
			cur[m.key] = m.value
		}
	}
	return true, cur
}

// equal compares states; maps and lists need more than porcupine's ==.
func (s *spec) equal(a, b any) bool { return history.Equal(a, b) }

// hash agrees with equal so porcupine's cache can bucket states.
func (s *spec) hash(st any) uint64 { return hashValue(st) }

// describeOp renders an op the way a person reads a history line.
func describeOp(in *input, out *output) string {
	var b strings.Builder
	switch in.kind {
	case opRead:
		b.WriteString("read -> ")
		if out.unknown {
			b.WriteString("?")
		} else {
			b.WriteString(formatValue(out.value))
		}
	case opWrite:
		b.WriteString("write " + formatValue(in.arg))
	case opCAS:
		b.WriteString("cas " + formatValue(in.arg) + " -> " + formatValue(in.to))
	case opAppend:
		b.WriteString("append " + formatValue(in.arg))
	case opTxn:
		b.WriteString("txn [")
		for i, m := range in.txn {
			if i > 0 {
				b.WriteByte(' ')
			}
			f, v := "r", m.value
			if m.write {
				f = "w"
			} else if out.unknown {
				v = history.Keyword("?")
			}
			fmt.Fprintf(&b, "[%s %s %s]", f, formatValue(history.Keyword(m.key)), formatValue(v))
		}
		b.WriteString("]")
	}
	if in.key != "" && in.kind != opTxn {
		b.WriteString(" @" + formatValue(in.key))
	}
	if out.unknown {
		b.WriteString(" (info)")
	}
	return b.String()
}

// whyNot says in words why an op cannot take effect in a state, or "" if it can.
func (s *spec) whyNot(state any, in *input, out *output) string {
	if ok, _ := s.step(state, in, out); ok {
		return ""
	}
	holds := "the register holds " + formatValue(state)
	switch in.kind {
	case opRead:
		return "it returned " + formatValue(out.value) + ", but " + holds
	case opCAS:
		return "it succeeded, so the register held " + formatValue(in.arg) + ", but " + holds
	case opAppend:
		return "it appends to a string, but " + holds
	case opTxn:
		st, written := state.(map[string]any), map[string]any{}
		for _, m := range in.txn {
			if m.write {
				written[m.key] = m.value
				continue
			}
			v, ok := written[m.key]
			if !ok {
				v = st[m.key]
			}
			if !readMatches(v, m.value, s.initMap[m.key]) {
				k := formatValue(history.Keyword(m.key))
				return fmt.Sprintf("it read %s = %s, but %s holds %s", k, formatValue(m.value), k, formatValue(v))
			}
		}
	}
	return "the model rejects it in state " + formatValue(state)
}
