package history

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// WriteEDN writes ops as a Jepsen history.edn, one map per line:
//
//	{:index 0, :time 0, :type :invoke, :process 0, :f :read, :value nil}
//
// The nemesis process is :nemesis; type is a keyword, and so is f when it is a
// valid keyword name (else a string). Key, error, node and fault_epoch appear
// only when set, then Extra entries, sorted. Map keys are keywords where they
// can be. The output reads back through Read as the same ops; a Keyword value
// that has no valid EDN spelling is therefore an error (ExportEDN writes it as
// a string instead).
func WriteEDN(w io.Writer, ops []Op) error {
	return writeOps(w, ops, "EDN", appendEDNOp)
}

// ExportEDN writes ops as the history.edn Jepsen itself would have written,
// for Clojure tools to read (one map per line, as WriteEDN writes them): the
// ops are first put in Jepsen's conventions by JepsenOps. Reading the output
// back gives JepsenOps(ops).
func ExportEDN(w io.Writer, ops []Op) error {
	return WriteEDN(w, JepsenOps(ops))
}

// JepsenOps returns ops in the conventions of a Jepsen history, leaving ops
// untouched:
//
//   - a nemesis op is :info whether it is the invocation or the completion
//     (faultline records the nemesis invocation as invoke, Jepsen as info;
//     Pair pairs the two info ops all the same);
//   - a Keyword that no EDN reader accepts (see isKeywordName) becomes a
//     string with its text, which is what it would have been in JSONL.
//
// Op fields, map keys and values that are not keywords need no change: the
// EDN writer already spells them as strings where a keyword would be invalid.
// Ops that need no change share their values with ops.
func JepsenOps(ops []Op) []Op {
	out := make([]Op, len(ops))
	for i, op := range ops {
		if op.Process == NemesisProcess && op.Type == Invoke {
			op.Type = Info
		}
		op.Key, _ = ednSafe(op.Key, 0)
		op.Value, _ = ednSafe(op.Value, 0)
		op.Error, _ = ednSafe(op.Error, 0)
		if op.Extra != nil {
			if m, changed := ednSafeMap(op.Extra, 0); changed {
				op.Extra = m
			}
		}
		out[i] = op
	}
	return out
}

// ednSafe returns v with every keyword that has no EDN spelling replaced by
// its text, and whether it changed anything. Only the collections on the way
// to such a keyword are copied. Past maxDepth v is returned as it is, for the
// writer to refuse.
func ednSafe(v any, depth int) (any, bool) {
	if depth > maxDepth {
		return v, false
	}
	switch x := v.(type) {
	case Keyword:
		if !isKeywordName(string(x)) {
			return string(x), true
		}
	case []any:
		if out, changed := ednSafeSlice(x, depth); changed {
			return out, true
		}
	case Set:
		if out, changed := ednSafeSlice(x, depth); changed {
			return Set(out), true
		}
	case map[string]any:
		if out, changed := ednSafeMap(x, depth); changed {
			return out, true
		}
	}
	return v, false
}

// ednSafeSlice applies ednSafe to the elements of vs; when one changes, it
// returns a copy holding the changes.
func ednSafeSlice(vs []any, depth int) ([]any, bool) {
	var out []any
	for i, e := range vs {
		if w, changed := ednSafe(e, depth+1); changed {
			if out == nil {
				out = slices.Clone(vs)
			}
			out[i] = w
		}
	}
	return out, out != nil
}

// ednSafeMap is ednSafeSlice for map values.
func ednSafeMap(m map[string]any, depth int) (map[string]any, bool) {
	var out map[string]any
	for k, e := range m {
		if w, changed := ednSafe(e, depth+1); changed {
			if out == nil {
				out = maps.Clone(m)
			}
			out[k] = w
		}
	}
	return out, out != nil
}

// KeyText names a key the way checkers, clients and reports agree on:
// strings and keywords by their text, anything else in EDN notation. Two
// keys with the same KeyText are the same key.
func KeyText(k any) string {
	switch x := k.(type) {
	case string:
		return x
	case Keyword:
		return string(x)
	}
	return FormatEDN(k)
}

// FormatEDN renders a generic value in EDN, the notation Jepsen users read:
// nil, 3, "s", :kw, [1 2], #{1}, {:x 0}. Map keys are sorted so the text is
// deterministic. A value outside the generic model is written as a quoted
// string rather than failing: this is for messages, not for storage.
func FormatEDN(v any) string {
	e := ednEncoder{}
	e.value(v)
	return string(e.buf)
}

// appendEDNOp appends op as one EDN map.
func appendEDNOp(dst []byte, op *Op) ([]byte, error) {
	e := ednEncoder{encoder{buf: dst}}
	e.op(op)
	return e.buf, e.err
}

// ednEncoder appends EDN.
type ednEncoder struct{ encoder }

func (e *ednEncoder) op(op *Op) {
	b := append(e.buf, "{:index "...)
	b = strconv.AppendInt(b, op.Index, 10)
	b = append(b, ", :time "...)
	b = strconv.AppendInt(b, op.Time, 10)
	if !op.Type.Valid() {
		e.fail(fmt.Errorf("invalid op type %q", op.Type))
	}
	b = append(b, ", :type :"...)
	b = append(b, op.Type...)
	b = append(b, ", :process "...)
	switch op.Process {
	case NemesisProcess:
		b = append(b, ":nemesis"...)
	case NoProcess:
		b = append(b, "nil"...)
	default:
		b = strconv.AppendInt(b, int64(op.Process), 10)
	}
	b = append(b, ", :f "...)
	switch {
	case op.F == "":
		b = append(b, "nil"...)
	case isKeywordName(op.F):
		b = append(append(b, ':'), op.F...)
	default:
		b = appendQuoted(b, op.F)
	}
	e.buf = b
	if op.Key != nil {
		e.buf = append(e.buf, ", :key "...)
		e.value(op.Key)
	}
	e.buf = append(e.buf, ", :value "...)
	e.value(op.Value)
	if op.Error != nil {
		e.buf = append(e.buf, ", :error "...)
		e.value(op.Error)
	}
	if op.Node != "" {
		e.buf = append(e.buf, ", :node "...)
		e.buf = appendQuoted(e.buf, op.Node)
	}
	if op.FaultEpoch != 0 {
		e.buf = append(e.buf, ", :fault_epoch "...)
		e.buf = strconv.AppendInt(e.buf, int64(op.FaultEpoch), 10)
	}
	var arr [8]string
	for _, k := range sortedKeys(op.Extra, arr[:0]) {
		if fieldOf(k) != fieldExtra {
			e.fail(fmt.Errorf("%w: %q", errReservedExtra, k))
			continue
		}
		e.buf = append(e.buf, ", "...)
		e.key(k)
		e.buf = append(e.buf, ' ')
		e.value(op.Extra[k])
	}
	e.buf = append(e.buf, '}')
}

// key writes a map key: a keyword when the name allows it, else a string. Both
// read back as the same Go key.
func (e *ednEncoder) key(k string) {
	if isKeywordName(k) {
		e.buf = append(append(e.buf, ':'), k...)
	} else {
		e.buf = appendQuoted(e.buf, k)
	}
}

func (e *ednEncoder) value(v any) {
	switch v := v.(type) {
	case nil:
		e.buf = append(e.buf, "nil"...)
	case bool:
		e.buf = strconv.AppendBool(e.buf, v)
	case int64:
		e.buf = strconv.AppendInt(e.buf, v, 10)
	case int:
		e.buf = strconv.AppendInt(e.buf, int64(v), 10)
	case float64:
		e.buf = appendFloat(e.buf, v, true)
	case string:
		e.buf = appendQuoted(e.buf, v)
	case Keyword:
		if !isKeywordName(string(v)) {
			e.fail(fmt.Errorf("keyword %q has no EDN spelling", string(v)))
			e.buf = appendQuoted(e.buf, string(v))
			return
		}
		e.buf = append(append(e.buf, ':'), v...)
	case []any:
		e.seq("[", v, "]")
	case Set:
		e.seq("#{", v, "}")
	case map[string]any:
		e.object(v)
	default:
		e.fail(fmt.Errorf("unsupported value type %T", v))
		e.buf = appendQuoted(e.buf, fmt.Sprint(v))
	}
}

func (e *ednEncoder) seq(open string, vs []any, closer string) {
	if !e.enter() {
		e.buf = append(e.buf, "nil"...)
		return
	}
	e.buf = append(e.buf, open...)
	for i, v := range vs {
		if i > 0 {
			e.buf = append(e.buf, ' ')
		}
		e.value(v)
	}
	e.buf = append(e.buf, closer...)
	e.leave()
}

func (e *ednEncoder) object(m map[string]any) {
	if !e.enter() {
		e.buf = append(e.buf, "nil"...)
		return
	}
	e.buf = append(e.buf, '{')
	var arr [8]string
	for i, k := range sortedKeys(m, arr[:0]) {
		if i > 0 {
			e.buf = append(e.buf, ", "...)
		}
		e.key(k)
		e.buf = append(e.buf, ' ')
		e.value(m[k])
	}
	e.buf = append(e.buf, '}')
	e.leave()
}

// IsKeywordName reports whether :s is a keyword FormatEDN and WriteEDN write
// as a keyword (see isKeywordName); any other Keyword is written as a string.
// Readers of other notations that must read FormatEDN's output back (the
// --init parser) accept exactly these names after a ':'.
func IsKeywordName(s string) bool { return isKeywordName(s) }

// isKeywordName reports whether :s is a keyword that every EDN reader
// accepts, Clojure's clojure.edn and LispReader among them, and reads back as
// the keyword s. It follows the EDN spec's symbol rules, and Clojure's where
// they are stricter: an optional namespace and a name, split by at most one
// '/', each part non-empty, of letters, digits and . * + ! - _ ? $ % & = < >,
// with ':' and '#' allowed after a part's first character; a part starts with
// no digit, nor with - + or . followed by a digit; and neither "::" nor a
// trailing ':' appears, since Clojure refuses both. Text outside these rules
// (spaces, "1x", "a/b/c", ":x", "x'") must be written as a string: our own
// reader is lenient and would take it back, but Clojure's would not.
func isKeywordName(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	if ns, name, ok := strings.Cut(s, "/"); ok {
		return isSymbolPart(ns) && isSymbolPart(name)
	}
	return isSymbolPart(s)
}

// isSymbolPart reports whether s can be the namespace or the name of an EDN
// symbol or keyword (see isKeywordName). '/' is never part of one.
func isSymbolPart(s string) bool {
	if s == "" || isDigit(s[0]) || s[0] == ':' || s[0] == '#' {
		return false
	}
	if (s[0] == '-' || s[0] == '+' || s[0] == '.') && len(s) > 1 && isDigit(s[1]) {
		return false // would read as a number, or be refused as a malformed one
	}
	if strings.Contains(s, "::") || s[len(s)-1] == ':' {
		return false
	}
	for _, r := range s {
		switch {
		case r < utf8.RuneSelf:
			if !isASCIILetter(byte(r)) && !isDigit(byte(r)) && !strings.ContainsRune(".*+!-_?$%&=<>:#", r) {
				return false
			}
		case !unicode.IsLetter(r): // "alphanumeric": letters of any script, not symbols or marks
			return false
		}
	}
	return true
}
