package history

import (
	"fmt"
	"io"
	"strconv"
	"unicode/utf8"
)

// WriteEDN writes ops as a Jepsen history.edn, one map per line:
//
//	{:index 0, :time 0, :type :invoke, :process 0, :f :read, :value nil}
//
// The nemesis process is :nemesis; type is a keyword, and so is f when it is a
// valid keyword name (else a string). Key, error, node and fault_epoch appear
// only when set, then Extra entries, sorted. Map keys are keywords where they
// can be. The output reads back through Read as the same ops.
func WriteEDN(w io.Writer, ops []Op) error {
	return writeOps(w, ops, "EDN", appendEDNOp)
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
	if op.Process == NemesisProcess {
		b = append(b, ":nemesis"...)
	} else {
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

// isKeywordName reports whether :s reads back as the keyword s: every byte is a
// token constituent and the text is valid UTF-8.
func isKeywordName(s string) bool {
	if s == "" || !utf8.ValidString(s) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isConstituent(s[i]) {
			return false
		}
	}
	return true
}
