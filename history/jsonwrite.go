package history

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"
)

// AppendJSON appends op as one JSONL line, without the newline, to dst. It is
// the journal's per-op encoder, so it is hand-written and allocation-light.
//
// Key, error, node and fault_epoch are left out when empty; Extra entries follow
// as keys of their own, sorted. Keywords are written as strings and sets as
// arrays. JSON has no NaN or infinities, so those floats become the strings
// "NaN", "+Inf" and "-Inf". AppendJSON never fails: a value outside the generic
// model is written as its fmt.Sprint string and an Extra key that names a core
// field is skipped. Journal.Append and WriteJSONL refuse such ops instead.
func AppendJSON(dst []byte, op *Op) []byte {
	dst, _ = appendJSONOp(dst, op)
	return dst
}

// WriteJSONL writes ops as JSONL, one line per op. It stops at the first op it
// cannot encode faithfully (see AppendJSON).
func WriteJSONL(w io.Writer, ops []Op) error {
	return writeOps(w, ops, "JSONL", appendJSONOp)
}

// writeChunk is how much encoded text writers gather per Write call.
const writeChunk = 64 << 10

// writeOps encodes ops one per line and writes them in chunks.
func writeOps(w io.Writer, ops []Op, format string, appendOp func([]byte, *Op) ([]byte, error)) error {
	buf := make([]byte, 0, writeChunk+writeChunk/4)
	for i := range ops {
		var err error
		if buf, err = appendOp(buf, &ops[i]); err != nil {
			return fmt.Errorf("write %s: op %d: %w", format, ops[i].Index, err)
		}
		buf = append(buf, '\n')
		if len(buf) >= writeChunk || i == len(ops)-1 {
			if _, err := w.Write(buf); err != nil {
				return fmt.Errorf("write %s: %w", format, err)
			}
			buf = buf[:0]
		}
	}
	return nil
}

// appendJSONOp is AppendJSON that also reports the first thing it could not
// encode faithfully.
func appendJSONOp(dst []byte, op *Op) ([]byte, error) {
	e := jsonEncoder{encoder{buf: dst}}
	e.op(op)
	return e.buf, e.err
}

// encoder is the state the JSON and EDN encoders share: the output, the first
// thing that could not be encoded faithfully, and the nesting depth.
type encoder struct {
	buf   []byte
	err   error
	depth int
}

func (e *encoder) fail(err error) {
	if e.err == nil {
		e.err = err
	}
}

// errTooDeep stops encoders on values that nest absurdly deep, or loop.
var errTooDeep = errors.New("value nests deeper than the readers accept")

// enter descends into a collection; it refuses (and records why) past
// maxDepth, which also stops a Go value that contains itself.
func (e *encoder) enter() bool {
	if e.depth >= maxDepth {
		e.fail(errTooDeep)
		return false
	}
	e.depth++
	return true
}

func (e *encoder) leave() { e.depth-- }

// jsonEncoder appends JSON.
type jsonEncoder struct{ encoder }

func (e *jsonEncoder) op(op *Op) {
	b := append(e.buf, `{"index":`...)
	b = strconv.AppendInt(b, op.Index, 10)
	b = append(b, `,"time":`...)
	b = strconv.AppendInt(b, op.Time, 10)
	b = append(b, `,"process":`...)
	switch op.Process {
	case NemesisProcess:
		b = append(b, `"nemesis"`...)
	case NoProcess:
		b = append(b, "null"...)
	default:
		b = strconv.AppendInt(b, int64(op.Process), 10)
	}
	if !op.Type.Valid() {
		e.fail(fmt.Errorf("invalid op type %q", op.Type))
	}
	b = append(b, `,"type":`...)
	b = appendQuoted(b, string(op.Type))
	b = append(b, `,"f":`...)
	e.buf = appendQuoted(b, op.F)
	if op.Key != nil {
		e.buf = append(e.buf, `,"key":`...)
		e.value(op.Key)
	}
	e.buf = append(e.buf, `,"value":`...)
	e.value(op.Value)
	if op.Error != nil {
		e.buf = append(e.buf, `,"error":`...)
		e.value(op.Error)
	}
	if op.Node != "" {
		e.buf = append(e.buf, `,"node":`...)
		e.buf = appendQuoted(e.buf, op.Node)
	}
	if op.FaultEpoch != 0 {
		e.buf = append(e.buf, `,"fault_epoch":`...)
		e.buf = strconv.AppendInt(e.buf, int64(op.FaultEpoch), 10)
	}
	if len(op.Extra) > 0 {
		var arr [8]string
		for _, k := range sortedKeys(op.Extra, arr[:0]) {
			if fieldOf(k) != fieldExtra {
				e.fail(fmt.Errorf("%w: %q", errReservedExtra, k))
				continue
			}
			e.buf = append(e.buf, ',')
			e.buf = appendQuoted(e.buf, k)
			e.buf = append(e.buf, ':')
			e.value(op.Extra[k])
		}
	}
	e.buf = append(e.buf, '}')
}

func (e *jsonEncoder) value(v any) {
	switch v := v.(type) {
	case nil:
		e.buf = append(e.buf, "null"...)
	case bool:
		e.buf = strconv.AppendBool(e.buf, v)
	case int64:
		e.buf = strconv.AppendInt(e.buf, v, 10)
	case int:
		e.buf = strconv.AppendInt(e.buf, int64(v), 10)
	case float64:
		e.buf = appendFloat(e.buf, v, false)
	case string:
		e.buf = appendQuoted(e.buf, v)
	case Keyword:
		e.buf = appendQuoted(e.buf, string(v))
	case []any:
		e.array(v)
	case Set:
		e.array(v)
	case map[string]any:
		e.object(v)
	default:
		e.fail(fmt.Errorf("unsupported value type %T", v))
		e.buf = appendQuoted(e.buf, fmt.Sprint(v))
	}
}

func (e *jsonEncoder) array(vs []any) {
	if !e.enter() {
		e.buf = append(e.buf, "null"...)
		return
	}
	e.buf = append(e.buf, '[')
	for i, v := range vs {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		e.value(v)
	}
	e.buf = append(e.buf, ']')
	e.leave()
}

func (e *jsonEncoder) object(m map[string]any) {
	if !e.enter() {
		e.buf = append(e.buf, "null"...)
		return
	}
	e.buf = append(e.buf, '{')
	var arr [8]string
	for i, k := range sortedKeys(m, arr[:0]) {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		e.buf = appendQuoted(e.buf, k)
		e.buf = append(e.buf, ':')
		e.value(m[k])
	}
	e.buf = append(e.buf, '}')
	e.leave()
}

// sortedKeys appends m's keys to buf and sorts them, for deterministic output.
func sortedKeys(m map[string]any, buf []string) []string {
	for k := range m {
		buf = append(buf, k)
	}
	slices.Sort(buf)
	return buf
}

// appendFloat writes f so that it reads back as a float: with a fraction or an
// exponent, never as a bare integer. Non-finite values are EDN's ##NaN, ##Inf
// and ##-Inf, or JSON strings.
func appendFloat(dst []byte, f float64, edn bool) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		s := "NaN"
		if f > 0 {
			s = "Inf"
		} else if f < 0 {
			s = "-Inf"
		}
		if edn {
			return append(append(dst, "##"...), s...)
		}
		if f > 0 {
			s = "+Inf"
		}
		return strconv.AppendQuote(dst, s)
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	start := len(dst)
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if format == 'f' && !slices.Contains(dst[start:], '.') {
		dst = append(dst, ".0"...)
	}
	return dst
}

const hexDigits = "0123456789abcdef"

// appendQuoted writes s as a double-quoted string that both JSON and EDN read
// back as s: quotes, backslashes and control characters are escaped, invalid
// UTF-8 becomes \ufffd, everything else is copied.
func appendQuoted(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < 0x7f {
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r != utf8.RuneError || size > 1 {
				i += size
				continue
			}
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\f':
			dst = append(dst, '\\', 'f')
		default:
			if c >= utf8.RuneSelf {
				dst = append(dst, `\ufffd`...)
			} else {
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
		}
		i++
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
